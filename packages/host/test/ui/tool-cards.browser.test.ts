/// <reference lib="dom" />
/**
 * How the transcript shows the agent's tool calls, in real Chromium against the real host and a
 * scripted endpoint: each card titled by what the call did with its key argument (the raw tool
 * name in its tooltip and details), read-only calls folded; diffs under a file header with old
 * and new line numbers in a gutter, copied whole; a refused update_plan saying why; the project
 * instructions named once per turn though each run of it reads them. Screenshots (light and dark,
 * 1280 and 420 px) go to test-output/ui/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { MODEL_MAX_TOOL_INPUT_BYTES } from '@bastion/protocol';
import type { ScriptedTurn } from '@bastion/test-support';
import { openScriptedDesktopWorld, sendMessage, type ScriptedDesktopWorld } from './support/desktop-world.js';
import { shotAllModes, SHOTS } from './support/layout.js';

const KEY = 'sk-ui-tool-cards-key';
const SETTLED = { timeout: 20_000 };

const turns: ScriptedTurn[] = [];
let world: ScriptedDesktopWorld | undefined;
let page: Page;

const lastRunEnd = () => page.getByTestId('run-end').last();
const card = (tool: string) => page.getByRole('article', { name: `Tool ${tool}` }).last();

/** A card's title line as words: what it did, its subject, detail and diff stat (not its fold mark or status). */
const titleOf = (of: Locator): Promise<string> =>
  of.locator('.tool-toggle').evaluate((toggle) =>
    Array.from(toggle.children)
      .filter((child) => !child.matches('.fold-mark, .tool-status'))
      .map((child) => child.textContent)
      .join(' '),
  );

/** The instruction lines shown since the latest prompt (the list renders the rows in view, the turn's among them). */
const instructionsOfLastTurn = (): Promise<(string | null)[]> =>
  page.locator('.transcript-row').evaluateAll((rows) => {
    const prompt = rows.findLastIndex((row) => row.querySelector('[data-testid="user-bubble"]') !== null);
    return rows
      .slice(prompt)
      .flatMap((row) => Array.from(row.querySelectorAll('.instructions-read')).map((line) => line.textContent));
  });

beforeAll(async () => {
  world = await openScriptedDesktopWorld(turns, KEY);
  page = world.page;
  await world.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: world.host.uiOrigin });
  const workspace = world.host.workspace;
  writeFileSync(join(workspace, 'AGENTS.md'), 'Be brief.\n');
  writeFileSync(join(workspace, 'notes.txt'), 'alpha\nbeta\n');
  mkdirSync(join(workspace, 'src'), { recursive: true });
  writeFileSync(join(workspace, 'src', 'main.ts'), 'export const beta = 1;\n');
}, 90_000);

afterAll(() => world?.close());

describe('tool cards in the transcript', () => {
  it('titles each call by what it did with its key argument, an edit with its diff stat; read-only calls open folded, the raw tool name in the title’s tooltip and the opened details', async () => {
    turns.push(
      { kind: 'tool-call', name: 'read_file', input: { path: 'notes.txt' } },
      { kind: 'tool-call', name: 'list_dir', input: { path: 'src' } },
      { kind: 'tool-call', name: 'search', input: { pattern: 'beta' } },
      {
        kind: 'tool-call',
        name: 'edit_file',
        input: { path: 'notes.txt', old_string: 'beta', new_string: 'beta\ngamma\ndelta' },
      },
      { kind: 'tool-call', name: 'write_file', input: { path: 'made.txt', content: 'one\ntwo\nthree\n' } },
      {
        kind: 'tool-call',
        name: 'update_plan',
        input: {
          steps: [
            { step: 'Edit the notes', status: 'completed' },
            { step: 'Write made.txt', status: 'in_progress' },
          ],
        },
      },
      { kind: 'text', pieces: ['Done.'] },
    );
    await sendMessage(page, 'Tidy the notes');
    await lastRunEnd().waitFor(SETTLED);
    const titles = [];
    for (const tool of ['read_file', 'list_dir', 'search', 'edit_file', 'write_file', 'update_plan']) {
      titles.push(await titleOf(card(tool)));
    }
    expect(titles).toEqual([
      'Read notes.txt',
      'Listed src/',
      'Searched beta',
      'Edited notes.txt +2 −0',
      'Wrote made.txt  (3 lines)',
      'Updated the plan 1 of 2 steps done',
    ]);
    for (const tool of ['read_file', 'list_dir', 'search']) {
      expect(await card(tool).locator('.tool-toggle').getAttribute('aria-expanded'), tool).toBe('false');
      expect(await card(tool).locator('.tool-body').count(), tool).toBe(0);
    }
    for (const tool of ['edit_file', 'write_file', 'update_plan']) {
      expect(await card(tool).locator('.tool-toggle').getAttribute('aria-expanded'), tool).toBe('true');
    }
    const read = card('read_file');
    expect(await read.locator('.tool-name').getAttribute('title')).toBe('Tool read_file');
    await shotAllModes(page, SHOTS, 'tool-cards-titles', read);
    await read.locator('.tool-toggle').click();
    expect(await read.getByTestId('numbered-file').textContent()).toBe('1alpha\n2beta\n');
    expect(await read.locator('.tool-raw-name').textContent()).toBe('Tool read_file');
  });

  it('at 400 px a plan card’s title keeps “Updated the plan” on one line and its progress whole, not cut short', async () => {
    await page.setViewportSize({ width: 400, height: 700 });
    try {
      const plan = card('update_plan');
      await plan.scrollIntoViewIfNeeded();
      const title = await plan.locator('.tool-toggle').evaluate((toggle) => {
        const part = (selector: string) => toggle.querySelector(selector) as HTMLElement;
        const lines = (element: HTMLElement) => {
          const range = document.createRange();
          range.selectNodeContents(element);
          return new Set(Array.from(range.getClientRects(), (rect) => Math.round(rect.top))).size;
        };
        const subject = part('.tool-subject');
        return { nameLines: lines(part('.tool-name')), subjectCut: subject.scrollWidth > subject.clientWidth };
      });
      expect(title).toEqual({ nameLines: 1, subjectCut: false });
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('shows an edit’s diff under a file header (modified, path, +2 −0) with old and new line numbers in a gutter screen readers skip, no raw ---/+++ lines; Copy diff copies the patch whole', async () => {
    const diff = card('edit_file').getByTestId('diff');
    expect(await diff.getByTestId('diff-file').textContent()).toBe('modified notes.txt +2 −0');
    expect(await card('write_file').getByTestId('diff-file').textContent()).toBe('added made.txt +3 −0');
    expect(await diff.locator('.diff-file').count()).toBe(0);
    const rows = await diff
      .locator('.diff-row')
      .evaluateAll((list) =>
        list.map((row) => Array.from(row.querySelectorAll('.diff-number, .diff-line')).map((cell) => cell.textContent)),
      );
    expect(rows).toEqual([
      ['', '', '@@ -1,2 +1,4 @@\n'],
      ['1', '1', ' alpha\n'],
      ['2', '2', ' beta\n'],
      ['', '3', '+gamma\n'],
      ['', '4', '+delta\n'],
    ]);
    expect(await diff.locator('.diff-number[aria-hidden="true"]').count()).toBe(10);
    await diff.getByRole('button', { name: 'Copy diff' }).click();
    await diff.getByRole('button', { name: 'Copy diff' }).filter({ hasText: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      '--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,4 @@\n alpha\n beta\n+gamma\n+delta\n',
    );
    await shotAllModes(page, SHOTS, 'tool-cards-diff', card('edit_file'));
  });

  it('shows a refused update_plan (its input over the bound a call may carry) as the plan it could not update, with the refusal in words', async () => {
    const step = 'x'.repeat(MODEL_MAX_TOOL_INPUT_BYTES);
    turns.push(
      { kind: 'tool-call', name: 'update_plan', input: { steps: [{ step, status: 'pending' }] } },
      { kind: 'text', pieces: ['I will send a smaller plan.'] },
    );
    await sendMessage(page, 'Plan it all');
    await lastRunEnd().waitFor(SETTLED);
    const refused = card('update_plan');
    await refused.getByTestId('tool-status').filter({ hasText: 'refused' }).waitFor(SETTLED);
    expect(await refused.locator('.refusal').textContent()).toMatch(
      /^The model sent this call with more input than a call may carry, so it was not run; the agent was told to send it in smaller parts\. \(not run: /,
    );
    // Its input is Bastion's marker, not a plan: no "0 of 0 steps done".
    expect(await titleOf(refused)).toBe('Update the plan');
    await shotAllModes(page, SHOTS, 'tool-cards-refused-plan', refused);
  });

  it('shows a read_file of a name over 255 bytes failed as a name too long, in words, not as a file system failure (FS_IO)', async () => {
    turns.push(
      { kind: 'tool-call', name: 'read_file', input: { path: `${'n'.repeat(296)}.txt` } },
      { kind: 'text', pieces: ['That name is too long.'] },
    );
    await sendMessage(page, 'Read the long one');
    await lastRunEnd().waitFor(SETTLED);
    const refused = card('read_file');
    await refused.getByTestId('tool-status').filter({ hasText: 'failed' }).waitFor(SETTLED);
    expect(await refused.locator('.refusal').textContent()).toBe(
      'The file name is too long: a name in the path is longer than the file system allows (255 bytes on most), or the whole path is.',
    );
    await shotAllModes(page, SHOTS, 'tool-cards-name-too-long', refused);
  });

  it('says failed, not refused, for a read of a file that is not there and an edit whose text is not in the file; a path outside the workspace still says refused', async () => {
    turns.push(
      { kind: 'tool-call', name: 'read_file', input: { path: 'missing.txt' } },
      { kind: 'tool-call', name: 'edit_file', input: { path: 'notes.txt', old_string: 'omega', new_string: 'psi' } },
      { kind: 'tool-call', name: 'list_dir', input: { path: '../..' } },
      { kind: 'text', pieces: ['None of that worked.'] },
    );
    await sendMessage(page, 'Try three things that cannot work');
    await page.getByText('None of that worked.').waitFor(SETTLED);
    const statusOf = (tool: string) => card(tool).getByTestId('tool-status').textContent();
    expect([await statusOf('read_file'), await statusOf('edit_file'), await statusOf('list_dir')]).toEqual([
      'failed',
      'failed',
      'refused',
    ]);
    expect(await card('read_file').locator('.refusal').textContent()).toMatch(/^The file or folder does not exist\./);
    expect(await card('list_dir').locator('.refusal').textContent()).toMatch(/^The path is outside the workspace/);
  });

  it('names the project instructions once in a turn whose approval answer starts a second run that reads them again', async () => {
    turns.push(
      { kind: 'tool-call', name: 'run_command', input: { command: 'touch', args: ['approved.txt'] } },
      { kind: 'text', pieces: ['Touched it.'] },
    );
    await sendMessage(page, 'Touch approved.txt');
    const approval = page.getByRole('region', { name: 'Approval needed' });
    await approval.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.getByText('Touched it.').waitFor(SETTLED);
    await lastRunEnd().waitFor(SETTLED);
    expect(await instructionsOfLastTurn()).toEqual(['Project instructions: AGENTS.md']);
    expect(await titleOf(card('run_command'))).toBe('Ran touch approved.txt');
    await shotAllModes(page, SHOTS, 'tool-cards-command', card('run_command'));
  });
});
