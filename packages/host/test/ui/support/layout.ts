/// <reference lib="dom" />
/** Test support: assertions that a part of the desktop page is actually usable where it is. */
import { expect } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { fileURLToPath } from 'node:url';

/** Where the UI tests' screenshots go (Playwright makes the folder when it writes one). */
export const SHOTS = fileURLToPath(new URL('../../../../../test-output/ui/', import.meta.url));

/** Fails unless the element is visible and wholly inside the viewport (not scrolled or pushed off). */
export async function expectInViewport(page: Page, locator: Locator, what: string): Promise<void> {
  await locator.waitFor({ state: 'visible' });
  const box = await locator.boundingBox();
  const viewport = page.viewportSize();
  expect(box, `${what} has no box`).not.toBeNull();
  expect(viewport).not.toBeNull();
  if (!box || !viewport) return;
  const inside =
    box.x >= 0 &&
    box.y >= 0 &&
    box.x + box.width <= viewport.width + 0.5 &&
    box.y + box.height <= viewport.height + 0.5;
  expect(inside, `${what} is outside the ${viewport.width}x${viewport.height} viewport: ${JSON.stringify(box)}`).toBe(
    true,
  );
}

/**
 * Fails unless the element is wholly inside the viewport and what shows at its centre is the
 * element itself (not scrolled out of a box it is in, nor covered by something above it).
 */
export async function expectUncoveredInView(page: Page, locator: Locator, what: string): Promise<void> {
  await expectInViewport(page, locator, what);
  const atCentre = await locator.evaluate((element) => {
    const box = element.getBoundingClientRect();
    const shown = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return shown !== null && element.contains(shown);
  });
  expect(atCentre, `${what} is covered or scrolled out of its box`).toBe(true);
}

/**
 * At 1280 and 420 px wide: a list opened over the message box and the box itself are both wholly
 * in view, and nothing scrolls sideways. Leaves the page at 1280 × 800.
 */
export async function expectListAndComposerInView(page: Page, list: Locator, composer: Locator): Promise<void> {
  for (const width of [1280, 420]) {
    await page.setViewportSize({ width, height: 800 });
    await expectInViewport(page, list, `the list at ${width} px`);
    await expectInViewport(page, composer, `the message box under the list at ${width} px`);
    await expectNoHorizontalOverflow(page);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** Fails when the page scrolls sideways (something wider than the viewport). */
export async function expectNoHorizontalOverflow(page: Page): Promise<void> {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
}

/** The sizes shotAllModes takes a screen at unless told others: wide, and narrow and tall. */
const SHOT_SIZES: readonly { width: number; height: number }[] = [
  { width: 1280, height: 800 },
  { width: 420, height: 860 },
];

/**
 * Screenshots of the current screen in light and dark, at 1280 and 420 px wide (or `sizes`), under
 * `dir`; `subject`, when given, is scrolled into view at each width (a resize moves what is in view).
 */
export async function shotAllModes(
  page: Page,
  dir: string,
  name: string,
  subject?: Locator,
  sizes = SHOT_SIZES,
): Promise<void> {
  const original = page.viewportSize() ?? { width: 1280, height: 800 };
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const { width, height } of sizes) {
      await page.setViewportSize({ width, height });
      await subject?.scrollIntoViewIfNeeded();
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      await page.screenshot({ path: `${dir}/${name}-${scheme}-${width}.png` });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(original);
}

/**
 * The WCAG contrast ratio of the element's text colour against the first opaque background at or
 * above it (the page's own when none is set).
 */
export function textContrast(locator: Locator): Promise<number> {
  return locator.evaluate((element) => {
    const channels = (colour: string) => (colour.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = ([red = 0, green = 0, blue = 0]: number[]) => {
      const linear = (value: number) => {
        const share = value / 255;
        return share <= 0.03928 ? share / 12.92 : ((share + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue);
    };
    let background = [255, 255, 255];
    for (let at: Element | null = element; at; at = at.parentElement) {
      const found = channels(getComputedStyle(at).backgroundColor);
      if (found.length === 3 || (found[3] ?? 0) >= 1) {
        background = found.slice(0, 3);
        break;
      }
    }
    const text = luminance(channels(getComputedStyle(element).color));
    const behind = luminance(background);
    return (Math.max(text, behind) + 0.05) / (Math.min(text, behind) + 0.05);
  });
}
