/// <reference lib="dom" />
/**
 * How a file change's diff reads, in real Chromium with the real host and sidecar (scripted model):
 * a diff with a line too long for its box, scrolled sideways, keeps each row's old and new line
 * numbers and its +/- marker inside the box and uncovered, over an opaque background in light and
 * dark — on the approval card, on the tool card and in the Changes panel; a write_file over a
 * binary file is never called "added", waiting for its answer nor done. Screenshots go to
 * test-output/ui/.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { DIFF_PREVIOUS_UNKNOWN_NOTE, type Session } from '@bastion/protocol';
import type { ScriptedTurn } from '@bastion/test-support';
import type { TempHost } from '../support/temp-host.js';
import { openScriptedDesktopWorld, useDesktopWorld, sendMessage } from './support/desktop-world.js';
import { expectUncoveredInView, shotAllModes, SHOTS } from './support/layout.js';

const SETTLED = { timeout: 30_000 };
/** Screenshot sizes: wide, and the narrowest the page is checked at. */
const SIZES = [
  { width: 1280, height: 800 },
  { width: 400, height: 800 },
];

const turns: ScriptedTurn[] = [];
let host: TempHost;
let page: Page;
let sessionId: string;

useDesktopWorld(
  () => openScriptedDesktopWorld(turns, 'sk-diff-view-test-key'),
  (opened) => ({ host, page, sessionId } = opened),
);

/** Where each numbered row's gutter and marker are against its diff's visible box, once scrolled sideways. */
interface HeldRow {
  line: string;
  numbersInside: boolean;
  markerInside: boolean;
  numbersShown: boolean;
  markerShown: boolean;
}

/**
 * Scrolls `diff`'s box to its right end and reports, for each numbered row, whether its two line
 * numbers and its marker are wholly inside the box's visible width and are what shows at their
 * centres (not covered by the scrolled text); and how far the box scrolled.
 */
async function scrolledSideways(diff: Locator): Promise<{ scrolled: number; rows: HeldRow[] }> {
  const body = diff.locator('.diff-body');
  await body.scrollIntoViewIfNeeded();
  const scrolled = await body.evaluate((element) => {
    element.scrollLeft = element.scrollWidth;
    return element.scrollLeft;
  });
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  const rows = await body.evaluate((element) => {
    const box = element.getBoundingClientRect();
    const [left, right] = [box.left + element.clientLeft, box.left + element.clientLeft + element.clientWidth];
    const inside = (part: Element) => {
      const at = part.getBoundingClientRect();
      return at.left >= left - 0.5 && at.right <= right + 0.5;
    };
    const shown = (part: Element) => {
      const at = part.getBoundingClientRect();
      const hit = document.elementFromPoint(at.left + at.width / 2, at.top + at.height / 2);
      return hit !== null && part.contains(hit);
    };
    return Array.from(element.querySelectorAll('.diff-row'))
      .filter((row) => row.querySelector('.diff-marker') !== null)
      .map((row) => {
        const numbers = Array.from(row.querySelectorAll('.diff-number'));
        const marker = row.querySelector('.diff-marker') as Element;
        return {
          line: row.querySelector('.diff-line')?.textContent?.slice(0, 12) ?? '',
          numbersInside: numbers.every(inside),
          markerInside: inside(marker),
          numbersShown: numbers.every(shown),
          markerShown: shown(marker),
        };
      });
  });
  return { scrolled, rows };
}

/**
 * Fails unless `diff`, scrolled sideways by more than its gutter, keeps every numbered row's line
 * numbers and marker in its visible box and uncovered, over opaque backgrounds, in light and dark.
 */
async function expectGutterHeld(diff: Locator, rowCount: number, what: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const { scrolled, rows } = await scrolledSideways(diff);
    expect(scrolled, `${what} scrolls sideways`).toBeGreaterThan(300);
    expect(rows, `${what}'s numbered rows`).toHaveLength(rowCount);
    for (const row of rows) {
      expect(row, `${what} (${scheme}), scrolled sideways`).toEqual({
        line: row.line,
        numbersInside: true,
        markerInside: true,
        numbersShown: true,
        markerShown: true,
      });
    }
    // Opaque: the scrolled text passes under the gutter and markers, not showing through.
    const alphas = await diff
      .locator('.diff-gutter, .diff-marker')
      .evaluateAll((parts) => parts.map((part) => getComputedStyle(part).backgroundColor));
    for (const colour of alphas) expect(colour, `${what}'s gutter background (${scheme})`).toMatch(/^rgb\(/);
    await diff.locator('.diff-body').evaluate((element) => (element.scrollLeft = 0));
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

describe('a diff with a long line', () => {
  it('scrolled sideways keeps every row’s line numbers and +/- marker inside its box, uncovered and opaque, light and dark: on the approval card, the tool card and the Changes panel', async () => {
    await host.client.request('PATCH', `/sessions/${sessionId}`, { mode: 'accept-edits', ask_before_writes: true });
    await expect
      .poll(async () => (await host.client.request<Session>('GET', `/sessions/${sessionId}`)).body)
      .toMatchObject({ mode: 'accept-edits', ask_before_writes: true });
    await page.reload();
    await page.getByLabel('Ask before file edits').waitFor();

    writeFileSync(join(host.workspace, 'wide.ts'), 'const a = 1;\nconst b = 2;\nconst c = 3;\n');
    const long = `const b = [${Array.from({ length: 60 }, (_, i) => `'item-${i}'`).join(', ')}];`;
    turns.push(
      {
        kind: 'tool-call',
        name: 'write_file',
        input: { path: 'wide.ts', content: `const a = 1;\n${long}\nconst c = 3;\n` },
      },
      { kind: 'text', pieces: ['Widened b.'] },
    );
    await sendMessage(page, 'Widen b');
    // Two context rows, the old b removed and the long one added.
    const region = page.getByRole('region', { name: 'Approval needed' });
    await region.getByTestId('diff').waitFor();
    await expectGutterHeld(region.getByTestId('diff'), 4, 'the approval card’s diff');
    const card = page.getByRole('article', { name: 'Tool write_file' }).last();
    await expectGutterHeld(card.getByTestId('diff'), 4, 'the tool card’s preview diff');
    await region
      .getByTestId('diff')
      .locator('.diff-body')
      .evaluate((element) => (element.scrollLeft = 200));
    await shotAllModes(page, SHOTS, 'diff-gutter-approval', region, SIZES);

    await region.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.getByText('Widened b.').waitFor(SETTLED);
    await expectGutterHeld(card.getByTestId('diff'), 4, 'the tool card’s diff');
    await card
      .getByTestId('diff')
      .locator('.diff-body')
      .evaluate((element) => (element.scrollLeft = 200));
    await shotAllModes(page, SHOTS, 'diff-gutter-tool-card', card, SIZES);

    await page.locator('.chat-head').getByRole('button', { name: 'Changes (1)' }).click();
    const panel = page.getByRole('complementary', { name: 'Changes' });
    const changed = panel.getByTestId('changed-file').filter({ hasText: 'wide.ts' }).getByTestId('diff');
    await changed.waitFor(SETTLED);
    await expectGutterHeld(changed, 4, 'the Changes panel’s diff');
    await changed.locator('.diff-body').evaluate((element) => (element.scrollLeft = 200));
    await shotAllModes(page, SHOTS, 'diff-gutter-changes', changed, SIZES);
    await panel.getByRole('button', { name: 'Close' }).click();
  });

  it('write_file over an existing binary file is never called added: waiting for approval its card says the file as it is is not shown and shows the content; done, it says modified with the earlier content not worked out, and counts no lines', async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]);
    writeFileSync(join(host.workspace, 'logo.png'), bytes);
    turns.push(
      { kind: 'tool-call', name: 'write_file', input: { path: 'logo.png', content: 'not a picture\n' } },
      { kind: 'text', pieces: ['Overwrote logo.png.'] },
    );
    await sendMessage(page, 'Overwrite the logo');
    const region = page.getByRole('region', { name: 'Approval needed' });
    await region.getByRole('heading').waitFor();
    const card = page.getByRole('article', { name: 'Tool write_file' }).last();
    await card.getByTestId('tool-status').getByText('waiting for approval').waitFor();
    expect(await card.textContent()).not.toContain('added');
    expect(await card.getByTestId('write-old-unknown').textContent()).toBe(
      'The file as it is now is not shown; this is all the write gives it.',
    );
    expect(await card.getByTestId('numbered-file').textContent()).toBe('1not a picture\n');
    expect(await card.getByTestId('diff-file').count()).toBe(0);
    expect(await card.getByTestId('tool-stat').count()).toBe(0);
    await shotAllModes(page, SHOTS, 'diff-binary-overwrite-waiting', card, SIZES);

    await region.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.getByText('Overwrote logo.png.').waitFor(SETTLED);
    expect(await card.getByTestId('diff-file').textContent()).toBe('modified logo.png');
    const note = card.locator('.diff-note');
    expect(await note.textContent()).toBe(`${DIFF_PREVIOUS_UNKNOWN_NOTE}\n`);
    // The note wraps in the card at 400 px, none of it scrolled out of its box.
    await page.setViewportSize({ width: 400, height: 800 });
    try {
      await expectUncoveredInView(page, note, 'the note at 400 px');
      expect(
        await note.evaluate(
          (element) => element.closest('.diff-body')!.scrollWidth <= element.closest('.diff-body')!.clientWidth,
        ),
      ).toBe(true);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    expect(await card.getByTestId('tool-stat').count()).toBe(0);
    expect(await card.textContent()).not.toContain('added');
    expect(readFileSync(join(host.workspace, 'logo.png'), 'utf8')).toBe('not a picture\n');
    await shotAllModes(page, SHOTS, 'diff-binary-overwrite-done', card, SIZES);
  });
});
