/// <reference lib="dom" />
/**
 * The `explore` tool as the desktop app shows it, in real Chromium against the real host and a
 * loopback endpoint that plays both the agent's model and its explorer's (told apart by the
 * explorer's system prompt): one "Explore" card with the task, while the explorer works a progress
 * line over its calls one line each, then its answer as markdown with the calls folded; the
 * explorer's calls never cards of the transcript, live or after a reload; find reaching the answer;
 * a refusal, an early, cut answer and a run stopped mid-way in words; an explore call a policy
 * rule asks about, asked with its task. Screenshots (light and dark, 1280 and 420 px) go to
 * test-output/ui/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { EXPLORE_ANSWER_MAX_CHARS, EXPLORE_MAX_STEPS } from '@bastion/protocol';
import type { Script, ScriptedTurn } from '@bastion/test-support';
import type { TempHost } from '../support/temp-host.js';
import { openScriptedDesktopWorld, sendMessage, type ScriptedDesktopWorld } from './support/desktop-world.js';
import { expectInViewport, expectNoHorizontalOverflow, shotAllModes, SHOTS } from './support/layout.js';

const KEY = 'sk-ui-explore-test-key';
/** How the explorer's system prompt starts (buildExplorePrompt in the daemon); the agent's does not. */
const EXPLORER_PROMPT = 'You are an explorer';

/** The agent's own model: one turn a request, in order. */
const agentTurns: ScriptedTurn[] = [];
/** The explorer's model: the turn of each of its steps (a new explore call starts again at the first). */
let explorerTurns: ScriptedTurn[] = [];
const script: Script = (_index, request) => {
  if (request.system?.startsWith(EXPLORER_PROMPT) !== true) return agentTurns.shift();
  const step = (request.body.messages ?? []).filter((message) => message.role === 'assistant').length;
  return explorerTurns[step];
};

let world: ScriptedDesktopWorld | undefined;
let host: TempHost;
let page: Page;

const TASK =
  'Find where the parser turns source text into tokens.\nReport the file, the function and the line it starts on.';
const ANSWER = [
  '## Findings\n\n',
  'The parser tokenizes in **`src/parser.ts`**: `tokenizeSource()` starts on line 3.\n\n',
  '- `parse()` (line 7) calls it first\n- no other file reads source text\n',
];
/** The explorer's answer arrives once this is released: until then it is at work. */
let releaseAnswer: () => void = () => undefined;

const exploreCard = () => page.getByRole('article', { name: 'Tool explore' }).last();
const progress = (card: Locator) => card.getByTestId('explore-progress');
const callLines = (card: Locator) => card.getByRole('list', { name: 'Explorer’s calls' }).locator('.explore-call-line');
/** Cards of the transcript itself (an explorer's call opened inside its explore card is not one). */
const transcriptCards = (name: string) =>
  page.locator('.transcript-row > article.tool-card').and(page.getByRole('article', { name }));
const composer = () => page.getByLabel('Message');

/**
 * The first explore call's calls, one line each in its card (mark, tool, path or pattern), and
 * none of them a card of the transcript.
 */
async function expectFirstExplorerCalls(card: Locator): Promise<void> {
  expect(await callLines(card).allTextContents()).toEqual([
    '✓done: Listedsrc/',
    '✓done: Searchedfunction tokenize in src',
    '✓done: Readsrc/parser.ts',
    '✗failed: Readsrc/lexer.ts',
  ]);
  for (const name of ['Tool list_dir', 'Tool search', 'Tool read_file']) {
    expect(await transcriptCards(name).count(), name).toBe(0);
  }
}

/** At 1280 and 420 px: the card and the message box in view, nothing scrolling sideways. */
async function expectCardAndComposerInView(card: Locator): Promise<void> {
  for (const width of [1280, 420]) {
    await page.setViewportSize({ width, height: 800 });
    await expectInViewport(page, composer(), `the message box at ${width} px`);
    await card.scrollIntoViewIfNeeded();
    await expectNoHorizontalOverflow(page);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

beforeAll(async () => {
  world = await openScriptedDesktopWorld(script, KEY);
  ({ host, page } = world);
  mkdirSync(join(host.workspace, 'src'));
  writeFileSync(
    join(host.workspace, 'src', 'parser.ts'),
    [
      '// The parser.',
      '',
      'export function tokenizeSource(text: string): string[] {',
      '  return text.split(/\\s+/);',
      '}',
      '',
      'export function parse(text: string) {',
      '  return tokenizeSource(text);',
      '}',
      '',
    ].join('\n'),
  );
}, 90_000);

afterAll(() => world?.close());

describe('explore calls in the desktop app', () => {
  it('shows the explorer at work in one Explore card: the whole task, "Exploring… 4 tool calls" with the latest call in words, each call one line marked done, failed (a file not there) or refused, none of them a card of the transcript; the message box in view', async () => {
    const held = new Promise<void>((resolve) => (releaseAnswer = resolve));
    explorerTurns = [
      { kind: 'tool-call', name: 'list_dir', input: { path: 'src' } },
      { kind: 'tool-call', name: 'search', input: { pattern: 'function tokenize', path: 'src' } },
      { kind: 'tool-call', name: 'read_file', input: { path: 'src/parser.ts' } },
      { kind: 'tool-call', name: 'read_file', input: { path: 'src/lexer.ts' } },
      { kind: 'text', pieces: ANSWER, hold: held },
    ];
    agentTurns.push(
      { kind: 'tool-call', name: 'explore', input: { task: TASK } },
      { kind: 'text', pieces: ['The tokenizer is `tokenizeSource()` in src/parser.ts.'] },
    );
    await sendMessage(page, 'Where does the parser tokenize?');
    const card = exploreCard();
    // The explorer's last call before its answer (each step is a request to the endpoint: no timing assumed).
    await card.locator('.explore-call.call-refused').waitFor();
    expect(await progress(card).textContent()).toBe('Exploring… 4 tool calls · reading src/lexer.ts▾');
    expect(await card.locator('.tool-name').textContent()).toBe('Explore');
    expect(await card.locator('.explore-task').textContent()).toBe(TASK);
    expect(await card.getByTestId('tool-status').textContent()).toBe('running');
    expect(await progress(card).getAttribute('aria-expanded')).toBe('true');
    await expectFirstExplorerCalls(card);
    await expectCardAndComposerInView(card);
    await shotAllModes(page, SHOTS, '58-explore-running', card);
  });

  it('once the explorer answers, shows its answer as markdown under its calls folded to "4 tool calls", which open into their lines and a line into its own read_file card', async () => {
    releaseAnswer();
    await page.getByText('The tokenizer is').waitFor();
    const card = exploreCard();
    expect(await card.getByTestId('tool-status').textContent()).toBe('done');
    const answer = card.getByTestId('explore-answer');
    expect(await answer.getByRole('heading').textContent()).toBe('Findings');
    expect(await answer.locator('strong code').textContent()).toBe('src/parser.ts');
    expect(await answer.getByRole('listitem').count()).toBe(2);
    expect(await answer.locator('.flag').count()).toBe(0);
    expect(await progress(card).textContent()).toBe('4 tool calls▸');
    expect(await progress(card).getAttribute('aria-expanded')).toBe('false');
    expect(await callLines(card).count()).toBe(0);
    await expectCardAndComposerInView(card);
    await shotAllModes(page, SHOTS, '58-explore-done', card);

    await progress(card).click();
    expect(await callLines(card).count()).toBe(4);
    await callLines(card).nth(2).click();
    const read = card.getByRole('article', { name: 'Tool read_file' });
    expect(await read.getByTestId('numbered-file').textContent()).toContain('export function tokenizeSource');
    await shotAllModes(page, SHOTS, '58-explore-done-calls-open', card);
    // The run counts none of the explorer's calls as its own: no file changed, one card of its own.
    expect(await page.getByTestId('run-end').last().getByText('Files changed').count()).toBe(0);
    expect(await page.locator('.transcript-row > article.tool-card').count()).toBe(1);
  });

  it('finds text only the explorer’s answer holds with Ctrl+F, in the Explore card', async () => {
    await composer().click();
    await page.keyboard.press('Control+f');
    const box = page.getByRole('textbox', { name: 'Find in this session' });
    await box.fill('no other file reads');
    const found = page.getByRole('search', { name: 'Find in this session' }).getByRole('status');
    await expect.poll(() => found.textContent()).toBe('1 of 1');
    await page
      .locator('.transcript-row.find-current')
      .getByRole('article', { name: 'Tool explore' })
      .getByText('no other file reads source text')
      .waitFor();
    await box.press('Escape');
  });

  it('after a reload (its events replayed) shows the same Explore card: the answer, the calls folded, none of them a card of the transcript', async () => {
    await page.reload();
    const card = exploreCard();
    await card.getByTestId('explore-answer').getByRole('heading', { name: 'Findings' }).waitFor();
    expect(await card.getByTestId('tool-status').textContent()).toBe('done');
    expect(await progress(card).textContent()).toBe('4 tool calls▸');
    await progress(card).click();
    await expectFirstExplorerCalls(card);
  });

  it('shows an explorer that ended without an answer as a failed Explore card, saying so in words (EXPLORE_NO_ANSWER)', async () => {
    explorerTurns = [
      { kind: 'tool-call', name: 'list_dir', input: { path: '.' } },
      { kind: 'text', pieces: [] },
    ];
    agentTurns.push(
      { kind: 'tool-call', name: 'explore', input: { task: 'Find the config loader' } },
      { kind: 'text', pieces: ['The explorer found nothing.'] },
    );
    await sendMessage(page, 'Where is the config loaded?');
    await page.getByText('The explorer found nothing.').waitFor();
    const card = exploreCard();
    expect(await card.getAttribute('class')).toContain('tool-error');
    expect(await card.getByTestId('tool-status').textContent()).toBe('failed');
    expect(await card.locator('.refusal').textContent()).toBe('The explorer stopped without giving an answer.');
    expect(await progress(card).textContent()).toBe('1 tool call▸');
    expect(await card.getByTestId('explore-answer').count()).toBe(0);
    await shotAllModes(page, SHOTS, '58-explore-no-answer', card);
  });

  it('says an explorer whose steps ran out answered early, and that an answer longer than the agent takes was cut', async () => {
    const calls = EXPLORE_MAX_STEPS - 1;
    explorerTurns = [
      ...Array.from({ length: calls }, (_, index): ScriptedTurn => ({
        kind: 'tool-call',
        name: 'find_files',
        input: { pattern: `**/*.step${index}` },
      })),
      { kind: 'text', pieces: ['Found little. ', 'x'.repeat(EXPLORE_ANSWER_MAX_CHARS)] },
    ];
    agentTurns.push(
      { kind: 'tool-call', name: 'explore', input: { task: 'Find every step file' } },
      { kind: 'text', pieces: ['The explorer ran out of steps.'] },
    );
    await sendMessage(page, 'Find the step files');
    await page.getByText('The explorer ran out of steps.').waitFor();
    const card = exploreCard();
    expect(await progress(card).textContent()).toBe(`${calls} tool calls▸`);
    const answer = card.getByTestId('explore-answer');
    expect(await answer.locator('.flag').textContent()).toBe(
      '(cut) The answer was longer: this is its start, all the agent saw.',
    );
    await answer.getByText('The explorer answered early: its step or context budget was spent.').waitFor();
  });

  it('says the run was stopped before its explorer answered: the card stopped, the calls it made kept and folded, and still stopped while a later run goes', async () => {
    const held = new Promise<void>((resolve) => (releaseAnswer = resolve));
    explorerTurns = [
      { kind: 'tool-call', name: 'list_dir', input: { path: 'src' } },
      { kind: 'text', pieces: ['Too late.'], hold: held },
    ];
    agentTurns.push({ kind: 'tool-call', name: 'explore', input: { task: 'List the sources' } });
    await sendMessage(page, 'List the sources');
    const card = exploreCard();
    await card.locator('.explore-call.call-done').waitFor();
    expect(await progress(card).textContent()).toBe('Exploring… 1 tool call · listing src▾');
    await page.locator('.composer-actions button.danger').click();
    await card.getByText('The run ended before the explorer answered.').waitFor();
    expect(await card.getByTestId('tool-status').textContent()).toBe('stopped');
    expect(await progress(card).textContent()).toBe('1 tool call▸');
    releaseAnswer();

    // While a later run goes, the stopped card stays stopped: that run is not its own.
    let releaseNext: () => void = () => undefined;
    const next = new Promise<void>((resolve) => (releaseNext = resolve));
    agentTurns.push({ kind: 'text', pieces: ['Later.'], hold: next });
    await sendMessage(page, 'Something else');
    await page.locator('.composer-actions button.danger').waitFor();
    expect(await card.getByTestId('tool-status').textContent()).toBe('stopped');
    expect(await card.getByText('The run ended before the explorer answered.').count()).toBe(1);
    releaseNext();
    await page.locator('.composer-actions button.danger').waitFor({ state: 'detached' });
  });
  it('asks before an explore call a policy rule asks about, showing its task, the card waiting; once allowed, the explorer works and answers in that same card', async () => {
    host.policy.add({ kind: 'project', root: host.workspace }, { decision: 'ask', tools: ['explore'] });
    explorerTurns = [
      { kind: 'tool-call', name: 'search', input: { pattern: 'parse', path: 'src' } },
      { kind: 'text', pieces: ['`parse()` is in src/parser.ts, line 7.'] },
    ];
    agentTurns.push(
      { kind: 'tool-call', name: 'explore', input: { task: 'Find parse()' } },
      { kind: 'text', pieces: ['Allowed, and the explorer answered.'] },
    );
    await sendMessage(page, 'Where is parse()?');
    const approval = page.getByRole('region', { name: 'Approval needed' });
    await approval.getByRole('heading', { name: 'The agent wants to hand a question to an explorer' }).waitFor();
    expect(await approval.getByLabel('Task').textContent()).toBe('Find parse()');
    const card = exploreCard();
    expect(await card.getByTestId('tool-status').textContent()).toBe('waiting for approval');
    expect(await card.getByText('The run ended before the explorer answered.').count()).toBe(0);
    await expectInViewport(page, composer(), 'the message box under the approval');
    await shotAllModes(page, SHOTS, '58-explore-approval', approval);
    await approval.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.getByText('Allowed, and the explorer answered.').waitFor();
    expect(await card.getByTestId('tool-status').textContent()).toBe('done');
    expect(await progress(card).textContent()).toBe('1 tool call▸');
    await card.getByTestId('explore-answer').getByText('is in src/parser.ts, line 7.').waitFor();
    expect(await page.getByRole('article', { name: 'Tool explore' }).filter({ hasText: 'Find parse()' }).count()).toBe(
      1,
    );
    expect(await transcriptCards('Tool search').count()).toBe(0);
  });
});
