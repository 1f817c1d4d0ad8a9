/// <reference lib="dom" />
/**
 * `resource-exhaustion`: replies a model can write whose markdown would take the page down. Three
 * stored replies (a list nested 3 000 deep, a quote nested 10 000 deep: the parser overflowed its
 * stack and, with no boundary, blanked the whole app on every open of the session; `*a` repeated
 * to 100 KB: the parser held the tab about 24 s) open in real Chromium as their plain text, with
 * the session's header and the message box there. Replies of code: a 190 KB fenced block (its
 * highlighting held the tab 1.8 s) and a 2 MB one show as unhighlighted code, copyable whole;
 * a reply's code past UI_HIGHLIGHT_MAX_CHARS is not highlighted, the code before it is.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { UI_HIGHLIGHT_MAX_CHARS } from '@bastion/protocol';
import { openDatabase, SessionStore } from '@bastion/daemon/testing';
import { describeAttack } from '../../../../test/support/attack.js';
import type { TempHost } from '../support/temp-host.js';
import { openSeededDesktop, type SeededDesktop } from './support/desktop-world.js';

const REPLIES = ['- '.repeat(3_000) + 'deep list end', '>'.repeat(10_000) + ' deep quote end', '*a'.repeat(50_000)];

/** TypeScript-looking lines, about `chars` long in all. */
function codeLines(chars: number): string {
  const lines: string[] = [];
  for (let index = 0, length = 0; length < chars; index += 1) {
    const line = `export function step${index}(value: number): string { return 'item ' + value * ${index}; } // ${index}`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n');
}
const BIG_CODE = codeLines(190 * 1024);
const HUGE_CODE = codeLines(2 * 1024 * 1024);
const SMALL_CODE = 'const first = 1;';
/** Code at the start of a reply, within the highlighting bound, then a block past it, then code after a line of text. */
const MIXED = [
  '```ts\n' + SMALL_CODE + '\n```\n\n',
  '```ts\n' + codeLines(UI_HIGHLIGHT_MAX_CHARS) + '\n```\n\n',
  'Then, *still* formatted:\n```ts\nconst last = 2;\n```\n',
].join('');
/** Over UI_MARKDOWN_MAX_CHARS: not parsed at all. */
const LONG_REPLY = 'Intro, *as written*.\n\n```ts\n' + BIG_CODE + '\n```\n\n' + 'Outro. '.repeat(2_000);
/** Each in a session of its own: a tall reply pushes the one before it out of the transcript's rows. */
const CODE_REPLIES = {
  big: '```ts\n' + BIG_CODE + '\n```',
  huge: '```ts\n' + HUGE_CODE + '\n```',
  mixed: MIXED,
  long: LONG_REPLY,
};

let host: TempHost;
let page: Page;
let sessionId: string;
const codeSessions: Partial<Record<keyof typeof CODE_REPLIES, string>> = {};

/** A session holding a run for each reply, as the daemon records it. */
function seed(userData: string): void {
  const db = openDatabase(join(userData, 'sessions.db'));
  try {
    const store = new SessionStore(db);
    sessionId = seedReplies(store, 'Hostile', REPLIES);
    for (const [name, reply] of Object.entries(CODE_REPLIES)) {
      codeSessions[name as keyof typeof CODE_REPLIES] = seedReplies(store, name, [reply]);
    }
  } finally {
    db.close();
  }
}

function seedReplies(store: SessionStore, title: string, replies: readonly string[]): string {
  const sessionId = store.sessions.create({ provider: 'demo', model: 'demo', workspace: null, title }).id;
  for (const reply of replies) {
    const { runId } = store.runs.start(sessionId, {
      provider: 'demo',
      model: 'demo',
      userContent: [{ role: 'user', content: [{ type: 'text', text: 'reply' }] }],
    });
    store.runs.appendEvent(sessionId, { type: 'text-delta', run_id: runId, text: reply });
    store.transcript.append(sessionId, runId, [{ role: 'assistant', content: [{ type: 'text', text: reply }] }]);
    store.runs.finish(sessionId, runId, 'finished', { type: 'run-finished', run_id: runId, finish_reason: 'stop' });
  }
  return sessionId;
}

/** The session of one of CODE_REPLIES opened, and its reply once shown. */
async function openReply(name: keyof typeof CODE_REPLIES): Promise<Locator> {
  await page.goto(`${host.uiOrigin}/desktop/sessions/${codeSessions[name]}`);
  const reply = page.locator('.bubble.assistant');
  await reply.waitFor({ timeout: 60_000 });
  return reply;
}

let desktop: SeededDesktop | undefined;
beforeAll(async () => {
  desktop = await openSeededDesktop('bastion-hostile-md-', seed);
  ({ host, page } = desktop);
}, 120_000);

afterAll(() => desktop?.close());

describeAttack('resource-exhaustion', 'markdown a model writes to take the page down', () => {
  it('attack: a list nested 3 000 deep, a quote nested 10 000 deep and 100 KB of *a show as their text, and the session stays usable', async () => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${host.uiOrigin}/desktop/sessions/${sessionId}`);
    const bubbles = page.locator('.bubble.assistant');
    await bubbles.nth(REPLIES.length - 1).waitFor({ timeout: 60_000 });
    const shown = await bubbles.evaluateAll((elements) =>
      elements.map((element) => element.querySelector('.markdown-pending')?.textContent ?? ''),
    );
    expect(shown).toEqual(REPLIES.map((reply) => reply.trim()));
    expect(await bubbles.locator('.plain-note').allTextContents()).toEqual([
      'Shown as written: nested too deep to format.',
      'Shown as written: nested too deep to format.',
      'Shown as written: too long to format.',
    ]);
    await expect.poll(() => page.locator('.chat-head').count()).toBe(1);
    expect(await page.getByRole('combobox', { name: 'Message' }).isEditable()).toBe(true);
    expect(errors).toEqual([]);
  });

  it('attack: a 190 KB and a 2 MB fenced code block, and one in a reply too long to parse, show unhighlighted in a box that scrolls, say so, copy whole, and the page answers', async () => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: host.uiOrigin });
    for (const [name, code] of [
      ['big', BIG_CODE],
      ['huge', HUGE_CODE],
    ] as const) {
      const box = await openReply(name).then((reply) => reply.locator('.code-block'));
      // The page is free to run a script once the reply is in.
      expect(await page.evaluate(() => document.querySelectorAll('.bubble.assistant').length)).toBe(1);
      expect(await box.count()).toBe(1);
      expect(await box.locator('.code-head').textContent()).toBe(
        `tsNot highlighted: this reply has over ${UI_HIGHLIGHT_MAX_CHARS / 1024} KiB of codeCopy`,
      );
      expect(await box.locator('pre code').textContent()).toBe(code);
      expect(await box.locator('[class^="hljs"]').count()).toBe(0);
      const pre = box.locator('pre');
      expect(await pre.evaluate((element) => getComputedStyle(element).fontFamily)).toContain('monospace');
      expect(await pre.evaluate((element) => element.scrollHeight > element.clientHeight)).toBe(true);
    }
    const long = await openReply('long');
    expect(await long.locator('.code-block-plain pre code').textContent()).toBe(BIG_CODE);
    expect(await long.locator('.plain-text > div:not(.code-block)').allTextContents()).toEqual([
      'Intro, *as written*.',
      'Outro. '.repeat(2_000).trimEnd(),
    ]);
    expect(await long.locator('.plain-note').textContent()).toBe('Shown as written: this reply is too long to format.');
    const big = await openReply('big');
    await big.getByRole('button', { name: 'Copy', exact: true }).click();
    await big.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(BIG_CODE);
    expect(errors).toEqual([]);
  });

  it(`a reply's code is highlighted up to ${UI_HIGHLIGHT_MAX_CHARS / 1024} KiB: the block past that and the code after it show unhighlighted, the text around still formatted`, async () => {
    const mixed = await openReply('mixed');
    await mixed.locator('.code-block').nth(2).waitFor();
    const boxes = mixed.locator('.code-block');
    const highlightedIn = (box: Locator) => box.locator('[class^="hljs-"]').count();
    expect(await boxes.nth(0).locator('code').textContent()).toBe(`${SMALL_CODE}\n`);
    expect(await highlightedIn(boxes.nth(0))).toBeGreaterThan(0);
    for (const index of [1, 2]) {
      expect(await boxes.nth(index).evaluate((box) => box.classList.contains('code-block-plain'))).toBe(true);
      expect(await highlightedIn(boxes.nth(index))).toBe(0);
    }
    expect(await boxes.nth(2).locator('code').textContent()).toBe('const last = 2;\n');
    expect(await mixed.locator('em').textContent()).toBe('still');
  });
});
