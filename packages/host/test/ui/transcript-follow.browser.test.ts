/// <reference lib="dom" />
/**
 * The transcript's end-following in real Chromium, against the real host and a loopback endpoint
 * streaming a long reply a paragraph at a time, while the window is resized wide and narrow (the
 * rows measured again at each width) and taller and shorter (the view shrinking by more than the
 * list's slack): a reader at the end stays at the end and sees the run's "Stopped" line, and a
 * reader who scrolled up to the first prompt stays on it.
 *
 * Each streamed paragraph moves the list's scroll position, so a resize lands in a frame that also
 * reports a scroll, read before the list's ResizeObserver sees the smaller view. The list used to
 * take that reading (more than the slack from the new end) for the reader having scrolled up and
 * stopped following for good — after a reload, the chat header filling in did the same, and that
 * was the "Stop" flake in agent-work. While a scroll-to-end the list itself started is still
 * re-aiming (up to five seconds after the reply's row was added, or after a resize) it hid the
 * loss, so the reply streams for six seconds before the first resize.
 *
 * A reader who scrolled up is shown "Jump to latest" once new output comes below (it takes them to
 * the end and hides there), and sending a message brings them to the end. The arrow key and the
 * scrollbar leave the end too while a reply streams a paragraph every 8 ms: a keyboard scroll's
 * one step is animated within the slack of the end, where a list following every append took the
 * view back, and any write of the end meanwhile cancelled it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import type { ScriptedTurn } from '@bastion/test-support';
import { launchChromium, openDesktop } from './support/browser.js';
import { openScriptedDesktopWorld, sendMessage, type ScriptedDesktopWorld } from './support/desktop-world.js';

/** Within this many pixels of the end counts as "at the end" (the list's own slack). */
const AT_END_PX = 64;
/** A paragraph streams every this many ms, so the list grows (and moves its scroll position) every frame. */
const PARAGRAPH_MS = 8;
/** Paragraphs streamed before the first resize: six seconds' worth. */
const PARAGRAPHS_BEFORE_RESIZING = 6_000 / PARAGRAPH_MS;
/**
 * Narrow and wide, and shorter and taller: the first resize already narrows the window and shrinks
 * the view by more than the slack.
 */
const WINDOW_SIZES = [
  { width: 420, height: 640 },
  { width: 1280, height: 800 },
  { width: 1280, height: 600 },
  { width: 420, height: 860 },
  { width: 900, height: 600 },
  { width: 1280, height: 820 },
  { width: 420, height: 660 },
  { width: 1100, height: 800 },
  { width: 1280, height: 620 },
  { width: 420, height: 860 },
  { width: 420, height: 640 },
  { width: 1280, height: 800 },
];
/** A reply that outlasts the test (Stop ends it): twenty seconds of paragraphs. */
const longReply = (label: string): ScriptedTurn => ({
  kind: 'text',
  pieces: Array.from({ length: 20_000 / PARAGRAPH_MS }, (_, index) => `${label} paragraph ${index}.\n\n`),
  delayMs: PARAGRAPH_MS,
});

const turns: ScriptedTurn[] = [];
let world: ScriptedDesktopWorld | undefined;
let page: Page;

const transcript = () => page.getByTestId('transcript');
const distanceFromEnd = () =>
  transcript().evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight);
/** Where `locator` is against the transcript's scrolled view (rows outside it are clipped, not gone). */
async function placementInTranscript(locator: Locator): Promise<'in view' | 'above' | 'below' | 'not laid out'> {
  const [box, view] = await Promise.all([locator.boundingBox(), transcript().boundingBox()]);
  if (!box || !view) return 'not laid out';
  if (box.y + box.height <= view.y) return 'above';
  if (box.y >= view.y + view.height) return 'below';
  return 'in view';
}

/** Resizes the window to each size in turn while the reply streams, calling `check` after each. */
async function resizeWhileStreaming(check: (size: { width: number; height: number }) => Promise<void>) {
  for (const size of WINDOW_SIZES) {
    await page.setViewportSize(size);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    await check(size);
  }
}

/** Wheels up over the transcript until the first prompt is in view. */
async function scrollUpToFirstPrompt(): Promise<Locator> {
  await transcript().hover();
  const first = page.getByTestId('user-bubble').filter({ hasText: 'The first prompt' });
  await expect
    .poll(
      async () => {
        await page.mouse.wheel(0, -5_000);
        return placementInTranscript(first);
      },
      { timeout: 10_000 },
    )
    .toBe('in view');
  return first;
}

const jumpToLatest = () => page.getByRole('button', { name: 'Jump to latest' });

/** Wheels up over the transcript until the end is more than two views below. */
async function scrollUpAway(): Promise<void> {
  await transcript().hover();
  const viewHeight = await transcript().evaluate((element) => element.clientHeight);
  await expect
    .poll(
      async () => {
        await page.mouse.wheel(0, -1_000);
        return distanceFromEnd();
      },
      { timeout: 10_000 },
    )
    .toBeGreaterThan(2 * viewHeight);
}

async function stopTheRun(): Promise<void> {
  await page.getByRole('button', { name: 'Stop' }).click();
  await page.getByTestId('activity').waitFor({ state: 'detached' });
  await page.getByTestId('run-end').last().getByText('Stopped').waitFor({ state: 'attached' });
}

beforeAll(async () => {
  world = await openScriptedDesktopWorld(turns, 'sk-ui-follow-test-key');
  ({ page } = world);
  // History taller than the view, so the end and the top are far apart.
  turns.push({
    kind: 'text',
    pieces: Array.from({ length: 40 }, (_, index) => `Earlier paragraph ${index}.\n\n`),
  });
  await sendMessage(page, 'The first prompt');
  await page.getByText('Earlier paragraph 39.').waitFor();
  await page.getByTestId('activity').waitFor({ state: 'detached' });
}, 90_000);

// A test that failed part-way leaves its run streaming: the next one starts on a quiet session.
afterEach(async () => {
  const stop = page.getByRole('button', { name: 'Stop' });
  // A run ending on its own while Stop is clicked takes the button away: the wait below still
  // holds the next test to a quiet session.
  if (await stop.isVisible()) await stop.click({ timeout: 5_000 }).catch(() => undefined);
  await page.getByTestId('activity').waitFor({ state: 'detached' });
  await page.setViewportSize({ width: 1280, height: 800 });
});

afterAll(() => world?.close());

describe('the transcript while a long reply streams and the window is resized', () => {
  it('stays within the slack of the end after each of twelve resizes of a reply streaming for six seconds, and shows the run’s "Stopped" line after Stop', async () => {
    turns.push(longReply('Following'));
    await sendMessage(page, 'Stream while I resize the window');
    await page.getByText(`Following paragraph ${PARAGRAPHS_BEFORE_RESIZING}.`).waitFor({ timeout: 30_000 });
    await resizeWhileStreaming(async (size) => {
      await expect
        .poll(distanceFromEnd, { message: `at ${size.width}x${size.height}`, timeout: 2_000 })
        .toBeLessThanOrEqual(AT_END_PX);
    });
    await stopTheRun();
    const stopped = page.getByTestId('run-end').last();
    await expect.poll(() => placementInTranscript(stopped), { timeout: 2_000 }).toBe('in view');
    await expect.poll(distanceFromEnd, { timeout: 2_000 }).toBeLessThanOrEqual(AT_END_PX);
  });

  it('keeps a reader who scrolled up to the first prompt on it through twelve resizes, not pulled to the end', async () => {
    turns.push(longReply('Reading'));
    await sendMessage(page, 'Stream while I read the start');
    await page.getByText('Reading paragraph 5.').waitFor();
    const first = await scrollUpToFirstPrompt();
    await resizeWhileStreaming(async (size) => {
      expect(await placementInTranscript(first), `the first prompt at ${size.width}x${size.height}`).toBe('in view');
      expect(await distanceFromEnd()).toBeGreaterThan(AT_END_PX);
    });
    await stopTheRun();
    expect(await placementInTranscript(first)).toBe('in view');
  });
});

describe('the transcript for a reader who scrolled up', () => {
  it('offers "Jump to latest" only once new output streams in below the view; clicking it goes to the end, where it hides while the reply still streams', async () => {
    turns.push(longReply('Jumping'));
    await sendMessage(page, 'Stream while I jump back');
    await page.getByText('Jumping paragraph 5.').waitFor();
    expect(await jumpToLatest().count()).toBe(0);
    await scrollUpAway();
    await jumpToLatest().waitFor();
    await jumpToLatest().click();
    await expect.poll(distanceFromEnd, { timeout: 2_000 }).toBeLessThanOrEqual(AT_END_PX);
    await jumpToLatest().waitFor({ state: 'detached' });
    // Still following: later paragraphs keep the view at the end, and the button stays away.
    await page.getByText('Jumping paragraph 200.').waitFor();
    await expect.poll(distanceFromEnd, { timeout: 2_000 }).toBeLessThanOrEqual(AT_END_PX);
    expect(await jumpToLatest().count()).toBe(0);
    await stopTheRun();
  });

  it('one press of the up arrow while a reply streams takes the reader off the end: "Jump to latest" is offered, and a second and a half of streaming later the end is more than a view below', async () => {
    turns.push(longReply('Stepping'));
    await sendMessage(page, 'Stream while I step up');
    await page.getByText('Stepping paragraph 5.').waitFor();
    // The keys go to the transcript once it was clicked (on a row's text, not a control; where it
    // is, so the click itself scrolls nothing).
    await transcript().click({ position: { x: 200, y: 200 } });
    // One step: the browser animates it over several frames, a line's height in all, less than a
    // frame's paragraphs grow the rows. Only that it was the reader's key tells it apart from the
    // list's own adjustments, and the list must not write the end again meanwhile (its scroll to
    // the end still re-aiming, the virtualizer holding a growing row at the end): a write cancels
    // the animation, and the step is undone before it moved the view.
    await page.keyboard.press('ArrowUp');
    await jumpToLatest().waitFor();
    const viewHeight = await transcript().evaluate((element) => element.clientHeight);
    // While more paragraphs stream in (one each 8 ms), the reader stays away from the end.
    await page.waitForTimeout(1_500);
    expect(await distanceFromEnd()).toBeGreaterThan(viewHeight);
    await stopTheRun();
  });

  it('a reader who holds the scrollbar’s track above its thumb while a reply streams stays where it paged them to, far from the end, and is offered "Jump to latest"', async () => {
    // Playwright's headless Chromium hides scrollbars: this reader's window shows them, as on Linux.
    const classic = await launchChromium({ scrollbars: true });
    try {
      const { page: reader } = await openDesktop(classic, world!.host);
      await reader.setViewportSize({ width: 1280, height: 800 });
      await reader.goto(page.url());
      turns.push(longReply('Dragging'));
      await sendMessage(reader, 'Stream while I drag the scrollbar');
      await reader.getByText('Dragging paragraph 5.').waitFor();
      const pane = reader.getByTestId('transcript');
      const view = await pane.boundingBox();
      if (!view) throw new Error('the transcript is not laid out');
      // The scrollbar's track: right of the content box (the pane has no border; at this width its
      // gutter is kept on both edges, the left one counted in clientLeft).
      const track = await pane.evaluate((element: HTMLElement) => ({
        left: element.clientLeft + element.clientWidth,
        width: element.offsetWidth - element.clientWidth - element.clientLeft,
      }));
      expect(track.width).toBeGreaterThan(0);
      // The thumb is at the bottom of the track while the view follows the end: held in the track
      // above it, the scrollbar pages the view up, again and again, until the press is let go.
      await reader.mouse.move(view.x + track.left + track.width / 2, view.y + view.height / 2);
      await reader.mouse.down();
      await reader.waitForTimeout(800);
      await reader.mouse.up();
      const away = () => pane.evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight);
      const viewHeight = await pane.evaluate((element) => element.clientHeight);
      await expect.poll(away, { timeout: 2_000 }).toBeGreaterThan(2 * viewHeight);
      await reader.getByRole('button', { name: 'Jump to latest' }).waitFor();
      // While more paragraphs stream in (one each 8 ms), the reader stays away from the end.
      await reader.waitForTimeout(1_500);
      expect(await away()).toBeGreaterThan(2 * viewHeight);
      await reader.getByRole('button', { name: 'Stop' }).click();
      await reader.getByTestId('activity').waitFor({ state: 'detached' });
    } finally {
      await classic.close();
    }
  });

  it('sending a message while scrolled up brings the view to the end, the sent prompt in view', async () => {
    turns.push({ kind: 'text', pieces: ['Reply to the prompt sent from above.'] });
    // From the end of the quiet session: what came before (a run's end) is seen.
    await transcript().evaluate((element) => element.scrollTo({ top: element.scrollHeight }));
    await expect.poll(distanceFromEnd, { timeout: 2_000 }).toBeLessThanOrEqual(AT_END_PX);
    await scrollUpAway();
    // Nothing new came while the session was quiet: no button.
    expect(await jumpToLatest().count()).toBe(0);
    await sendMessage(page, 'Sent while scrolled up');
    await page.getByText('Reply to the prompt sent from above.').waitFor();
    await page.getByTestId('activity').waitFor({ state: 'detached' });
    const sent = page.getByTestId('user-bubble').filter({ hasText: 'Sent while scrolled up' });
    await expect.poll(() => placementInTranscript(sent), { timeout: 2_000 }).toBe('in view');
    await expect.poll(distanceFromEnd, { timeout: 2_000 }).toBeLessThanOrEqual(AT_END_PX);
  });
});
