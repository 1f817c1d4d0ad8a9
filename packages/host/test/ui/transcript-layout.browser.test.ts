/// <reference lib="dom" />
/**
 * How readable the agent's work is in the transcript, in real Chromium against the real host and a
 * scripted endpoint, at the widths people use (400, 1280 and 1920 px): a markdown table keeps its
 * words whole on a narrow window; a run's tokens line sits level with Copy reply; a reply's headings are a step above its text and its code's
 * colours readable; a quote is set apart by a bar; a file edit's approval asks in words, in the
 * transcript's column; a run that stopped to ask labels its tokens so; a command that failed is
 * marked so in its folded title; the column holds still when the transcript first scrolls; the
 * host record's Close stays in view. The tests share one session, in order (the host record shows
 * the calls the tests before it made). Screenshots (light and dark) go to test-output/ui/.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import type { Session } from '@bastion/protocol';
import { SCRIPTED_MODEL, type ScriptedTurn } from '@bastion/test-support';
import { launchChromium, openDesktop } from './support/browser.js';
import { openScriptedDesktopWorld, sendMessage, type ScriptedDesktopWorld } from './support/desktop-world.js';
import {
  expectNoHorizontalOverflow,
  expectUncoveredInView,
  shotAllModes,
  SHOTS,
  textContrast,
} from './support/layout.js';

const KEY = 'sk-ui-transcript-layout-key';
const SETTLED = { timeout: 20_000 };
const NARROW = { width: 400, height: 560 };

const TABLE = [
  '| Column A | Column B | A rather long column header C | D |\n',
  '| --- | --- | --- | --- |\n',
  '| value | another value that is fairly long and wraps | 123 | x |\n',
  '| `code` | **bold** | 456 | y |\n',
].join('');

const turns: ScriptedTurn[] = [];
let world: ScriptedDesktopWorld | undefined;
let page: Page;

const lastRunEnd = () => page.getByTestId('run-end').last();

/** The words of `selector`'s cells in the last reply that the layout split over two lines or more. */
const wordsSplitIn = (selector: string): Promise<string[]> =>
  page
    .locator('.bubble.assistant .markdown')
    .last()
    .locator(selector)
    .evaluateAll((cells) =>
      cells.flatMap((cell) => {
        const split: string[] = [];
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const text = node.textContent ?? '';
          for (const match of text.matchAll(/\S+/g)) {
            const range = document.createRange();
            range.setStart(node, match.index);
            range.setEnd(node, match.index + match[0].length);
            const lines = new Set(Array.from(range.getClientRects(), (rect) => Math.round(rect.top)));
            if (lines.size > 1) split.push(match[0]);
          }
        }
        return split;
      }),
    );

/** Click `name` on the approval card once it takes answers (a guard ignores clicks for a moment after it shows). */
async function answer(name: 'Allow' | 'Deny'): Promise<void> {
  const button = page.getByRole('region', { name: 'Approval needed' }).getByRole('button', { name, exact: true });
  await expect.poll(() => button.getAttribute('aria-disabled')).toBeNull();
  await button.click();
}

/**
 * With Ask before file edits on, the model writes `path` and then says `reply`: the approval card
 * once it asks (the test answers it, and turns the switch off).
 */
async function askedToWrite(path: string, reply: string): Promise<Locator> {
  await page.getByLabel('Ask before file edits').check();
  turns.push(
    { kind: 'tool-call', name: 'write_file', input: { path, content: 'one\n' } },
    { kind: 'text', pieces: [reply] },
  );
  await sendMessage(page, `Write ${path}`);
  const approval = page.getByRole('region', { name: 'Approval needed' });
  await approval.waitFor(SETTLED);
  return approval;
}

beforeAll(async () => {
  world = await openScriptedDesktopWorld(turns, KEY);
  page = world.page;
}, 90_000);

afterAll(() => world?.close());

describe('the transcript’s layout', () => {
  it('at 400 px a markdown table keeps each word of its cells on one line (a table too wide scrolls in its own box), and the page does not scroll sideways', async () => {
    turns.push({ kind: 'text', pieces: [TABLE] });
    await sendMessage(page, 'Tabulate it');
    await lastRunEnd().waitFor(SETTLED);
    await page.setViewportSize(NARROW);
    try {
      const wrap = page.locator('.bubble.assistant .table-wrap').last();
      await wrap.scrollIntoViewIfNeeded();
      expect(await wordsSplitIn('th, td')).toEqual([]);
      await expectNoHorizontalOverflow(page);
      await shotAllModes(page, SHOTS, 'transcript-table-narrow', wrap, [NARROW, { width: 1280, height: 800 }]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('a run’s end sets the words of its tokens line level with those of Copy reply: their middles within 1 px at 400 and 1280 px (screenshots light and dark)', async () => {
    const end = lastRunEnd();
    await end.getByRole('button', { name: 'Copy reply' }).waitFor(SETTLED);
    /** The vertical middle of the first line of `locator`'s text, as laid out. */
    const textMiddle = (locator: Locator) =>
      locator.evaluate((element) => {
        const range = document.createRange();
        range.selectNodeContents(element);
        const line = range.getClientRects()[0]!;
        return line.top + line.height / 2;
      });
    try {
      for (const size of [NARROW, { width: 1280, height: 800 }]) {
        await page.setViewportSize(size);
        const [usage, copy] = await Promise.all([
          textMiddle(end.getByTestId('usage')),
          textMiddle(end.getByRole('button', { name: 'Copy reply' })),
        ]);
        expect(Math.abs(usage - copy), `at ${size.width} px`).toBeLessThanOrEqual(1);
      }
      await shotAllModes(page, SHOTS, 'transcript-run-end', end, [NARROW, { width: 1280, height: 800 }]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('sets a markdown quote apart from the reply’s text: a bar at its left, its text indented past the bar and in a readable contrast', async () => {
    turns.push({ kind: 'text', pieces: ['Before the quote.\n\n> What the docs say.\n\nAfter it.'] });
    await sendMessage(page, 'Quote the docs');
    await lastRunEnd().waitFor(SETTLED);
    const markdown = page.locator('.bubble.assistant .markdown').last();
    const quote = markdown.locator('blockquote');
    const bar = await quote.evaluate((element) => {
      const style = getComputedStyle(element);
      return { width: parseFloat(style.borderLeftWidth), style: style.borderLeftStyle };
    });
    expect(bar.width).toBeGreaterThanOrEqual(2);
    expect(bar.style).toBe('solid');
    const [quoteText, plainText] = await Promise.all([
      quote.locator('p').boundingBox(),
      markdown.locator('p', { hasText: 'Before the quote.' }).boundingBox(),
    ]);
    const quoteBox = await quote.boundingBox();
    expect(quoteText && quoteBox && quoteText.x - quoteBox.x).toBeGreaterThanOrEqual(bar.width + 4);
    expect(quoteBox && plainText && quoteBox.x - plainText.x).toBeLessThan(4);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await textContrast(quote.locator('p')), scheme).toBeGreaterThanOrEqual(4.5);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await shotAllModes(page, SHOTS, 'transcript-quote', quote);
  });

  it('every highlighted token of a code block (keyword, string, number, comment, title) reads at 4.5:1 or more in light and dark', async () => {
    const code = 'function greet(name: string) {\n  // says hello\n  return `hi ${name}` + 42;\n}';
    turns.push({ kind: 'text', pieces: ['```ts\n' + code + '\n```\n'] });
    await sendMessage(page, 'Show code');
    const block = page.locator('.bubble.assistant .code-block').last();
    await block.locator('.hljs-comment').waitFor(SETTLED);
    const tokens = ['.hljs-keyword', '.hljs-string', '.hljs-number', '.hljs-comment', '.hljs-title'];
    const ratios: Record<string, number> = {};
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const token of tokens) ratios[`${scheme} ${token}`] = await textContrast(block.locator(token).first());
    }
    await page.emulateMedia({ colorScheme: 'light' });
    const low = Object.entries(ratios).filter(([, ratio]) => ratio < 4.5);
    expect(low).toEqual([]);
  });

  it('a reply’s headings are a step above its text, largest first, the largest under 1.4 times the text (the browser’s is 2)', async () => {
    turns.push({ kind: 'text', pieces: ['# One\n\nText.\n\n## Two\n\n### Three\n\n#### Four\n'] });
    await sendMessage(page, 'Use headings');
    const markdown = page.locator('.bubble.assistant .markdown').last();
    await markdown.locator('h4').waitFor(SETTLED);
    const sizeOf = (selector: string) =>
      page
        .locator(selector)
        .last()
        .evaluate((element) => parseFloat(getComputedStyle(element).fontSize));
    const [h1, h2, h3, h4, text] = await Promise.all(
      ['h1', 'h2', 'h3', 'h4', 'p'].map((tag) => sizeOf(`.bubble.assistant .markdown ${tag}`)),
    );
    expect([h1! > h2!, h2! > h3!, h3! > text!, h4! >= text!]).toEqual([true, true, true, true]);
    expect(h1! / text!).toBeLessThan(1.4);
    await shotAllModes(page, SHOTS, 'transcript-headings', markdown);
  });

  it('an approval of a file edit says in words what it asks, “write a file” or “edit a file”, the file under it, not the tool’s raw name', async () => {
    writeFileSync(join(world!.host.workspace, 'notes.txt'), 'alpha\n');
    await page.getByLabel('Ask before file edits').check();
    const approval = page.getByRole('region', { name: 'Approval needed' });
    const asks: { heading: string | null; file: string | null }[] = [];
    for (const call of [
      { name: 'write_file', input: { path: 'made.txt', content: 'one\n' } },
      { name: 'edit_file', input: { path: 'notes.txt', old_string: 'alpha', new_string: 'beta' } },
    ]) {
      turns.push({ kind: 'tool-call', ...call }, { kind: 'text', pieces: ['Denied.'] });
      await sendMessage(page, `Change ${call.input.path}`);
      await approval.waitFor(SETTLED);
      asks.push({
        heading: await approval.getByRole('heading').textContent(),
        file: await approval.locator('.approval-command').textContent(),
      });
      if (call.name === 'write_file') await shotAllModes(page, SHOTS, 'transcript-approval-write', approval);
      await answer('Deny');
      await lastRunEnd().waitFor(SETTLED);
      await approval.waitFor({ state: 'detached' });
    }
    await page.getByLabel('Ask before file edits').uncheck();
    expect(asks).toEqual([
      { heading: 'The agent wants to write a file', file: 'made.txt' },
      { heading: 'The agent wants to edit a file', file: 'notes.txt' },
    ]);
  });

  it('the tokens of a run that stopped to ask read “Up to the approval”, and the run that carries out the answer “This run”', async () => {
    await askedToWrite('asked.txt', 'Written.');
    const usageLines = page.getByTestId('usage');
    await expect.poll(() => usageLines.last().textContent()).toMatch(/^Up to the approval: [\d,]+ in · /);
    await answer('Allow');
    await page.locator('.bubble.assistant', { hasText: 'Written.' }).waitFor(SETTLED);
    await page.getByLabel('Ask before file edits').uncheck();
    expect(await usageLines.last().textContent()).toMatch(/^This run: [\d,]+ in · /);
  });

  it('on a 1920 px window an approval and the line saying it waits line up with the transcript’s column, not the whole pane', async () => {
    const approval = await askedToWrite('aligned.txt', 'Not written.');
    await page.setViewportSize({ width: 1920, height: 1000 });
    try {
      const edges = await page.evaluate(() => {
        const box = (selector: string) => document.querySelector(selector)?.getBoundingClientRect();
        const [column, card, activity] = [box('.transcript'), box('.approval'), box('[data-testid="activity"]')];
        const waiting = document.querySelector('[data-testid="activity"]');
        const padding = waiting ? parseFloat(getComputedStyle(waiting).paddingLeft) : 0;
        return {
          column: [column?.left, column?.right],
          card: [card?.left, card?.right],
          activity: [activity && activity.left + padding, activity && activity.right - padding],
        };
      });
      expect(edges.card).toEqual(edges.column);
      expect(edges.activity).toEqual(edges.column);
      await shotAllModes(page, SHOTS, 'transcript-approval-1920', approval, [{ width: 1920, height: 1000 }]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
      await answer('Deny');
      await page.locator('.bubble.assistant', { hasText: 'Not written.' }).waitFor(SETTLED);
      await page.getByLabel('Ask before file edits').uncheck();
    }
  });

  it('a command that exited non-zero says so in its title’s status in the danger colour, as its exit line does, readable in light and dark; one that exited 0 stays muted', async () => {
    turns.push(
      {
        kind: 'tool-calls',
        calls: [
          { name: 'run_command', input: { command: 'ls', args: ['no-such-folder'] } },
          { name: 'run_command', input: { command: 'ls', args: ['.'] } },
        ],
      },
      { kind: 'text', pieces: ['One failed.'] },
    );
    await sendMessage(page, 'List two folders');
    await page.locator('.bubble.assistant', { hasText: 'One failed.' }).waitFor(SETTLED);
    const cards = page.getByRole('article', { name: 'Tool run_command' });
    const [failed, passed] = [cards.nth(-2), cards.last()];
    expect(await failed.getByTestId('tool-status').textContent()).toBe('exit 2');
    expect(await passed.getByTestId('tool-status').textContent()).toBe('exit 0');
    const colourOf = (of: ReturnType<Page['locator']>) => of.evaluate((element) => getComputedStyle(element).color);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const exitLine = await colourOf(failed.locator('dd.exit-fail'));
      expect(await colourOf(failed.getByTestId('tool-status')), scheme).toBe(exitLine);
      expect(await colourOf(passed.getByTestId('tool-status')), scheme).not.toBe(exitLine);
      expect(await textContrast(failed.getByTestId('tool-status')), scheme).toBeGreaterThanOrEqual(4.5);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await shotAllModes(page, SHOTS, 'transcript-command-failed', failed);
  });

  it('the host’s record of a session taller than the window keeps its Close button in view and uncovered at the dialog’s foot; Close closes it', async () => {
    await page.getByRole('button', { name: 'Host record' }).click();
    const dialog = page.getByRole('dialog', { name: 'The host’s record of this session' });
    await dialog.locator('tbody tr').first().waitFor(SETTLED);
    await page.setViewportSize({ width: 1280, height: 560 });
    try {
      expect(await dialog.evaluate((element) => element.scrollHeight > element.clientHeight)).toBe(true);
      const close = dialog.getByRole('button', { name: 'Close' });
      await expectUncoveredInView(page, close, 'Close in the host record');
      // Nothing of the table shows below it: its bar reaches the dialog's bottom edge.
      const [bar, box] = await Promise.all([close.locator('..').boundingBox(), dialog.boundingBox()]);
      expect(bar && box && box.y + box.height - (bar.y + bar.height)).toBeLessThanOrEqual(1.5);
      await shotAllModes(page, SHOTS, 'transcript-host-record', undefined, [{ width: 1280, height: 560 }, NARROW]);
      await close.click();
      await dialog.waitFor({ state: 'detached' });
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('the reply that first makes the transcript scroll does not move or narrow its column, with scrollbars that take room', async () => {
    const classic = await launchChromium({ scrollbars: true });
    try {
      const { page: shown } = await openDesktop(classic, world!.host);
      await shown.setViewportSize({ width: 1280, height: 800 });
      const created = await world!.host.client.request<Session>('POST', '/sessions', {
        provider: 'local',
        model: SCRIPTED_MODEL,
      });
      await shown.goto(`${world!.host.uiOrigin}/desktop/sessions/${created.body.id}`);
      const column = () =>
        shown.locator('.transcript-scroll').evaluate((pane) => {
          const list = pane.querySelector('.transcript')?.getBoundingClientRect();
          return { scrolls: pane.scrollHeight > pane.clientHeight, left: list?.left, width: list?.width };
        });
      turns.push({ kind: 'text', pieces: ['Short.'] });
      await sendMessage(shown, 'Say little');
      await shown.locator('.bubble.assistant', { hasText: 'Short.' }).waitFor(SETTLED);
      const before = await column();
      const paragraphs = Array.from({ length: 40 }, (_, index) => `Paragraph ${index + 1}.`).join('\n\n');
      turns.push({ kind: 'text', pieces: [paragraphs] });
      await sendMessage(shown, 'Say a lot');
      await shown.locator('.bubble.assistant', { hasText: 'Paragraph 40.' }).waitFor(SETTLED);
      const after = await column();
      expect([before.scrolls, after.scrolls]).toEqual([false, true]);
      expect({ left: after.left, width: after.width }).toEqual({ left: before.left, width: before.width });
    } finally {
      await classic.close();
    }
  });
});
