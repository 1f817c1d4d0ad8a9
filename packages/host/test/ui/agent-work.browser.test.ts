/// <reference lib="dom" />
/**
 * The agent's work as the desktop app renders it, in real Chromium against the real host and a
 * loopback OpenAI-compatible endpoint that streams markdown and tool calls (granted with
 * allowEndpoints, as `--allow-endpoint` does): GFM markdown with highlighting, a copy button and
 * safe links, never raw HTML; write_file / edit_file as diffs, read_file with line numbers; the
 * files a run changed; Stop (button and Esc, also while an approval waits) reading "Stopped";
 * a 429 with its status and a Retry that works; the layout holding at 420 px; a reload keeping
 * the transcript. Screenshots (light and dark, 1280 and 420 px) go to test-output/ui/.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { TOOL_MAX_OUTPUT_CHARS, type Session } from '@bastion/protocol';
import { SCRIPTED_MODEL, type ScriptedEndpoint, type ScriptedTurn } from '@bastion/test-support';
import type { TempHost } from '../support/temp-host.js';
import { openScriptedDesktopWorld, sendMessage, type ScriptedDesktopWorld } from './support/desktop-world.js';
import {
  expectInViewport,
  expectListAndComposerInView,
  expectNoHorizontalOverflow,
  shotAllModes,
  SHOTS,
} from './support/layout.js';

const KEY = 'sk-ui-work-test-key';

const MARKDOWN = [
  '## Plan\n\nHere is **what** I found:\n\n',
  '| file | lines |\n| --- | ---: |\n| a.ts | 12 |\n| b.ts | 7 |\n\n',
  '```ts\nconst answer: number = 42;\nexport function double(x: number) {\n  return x * 2;\n}\n```\n\n',
  'See [the docs](https://example.test/docs) and `inline code`.\n\n',
  '<img src="x" onerror="window.__pwned = 1"> <b id="raw-html">raw</b> <script>window.__pwned = 2</script>\n\n',
  '- [x] done\n- [ ] todo\n',
];
const CODE = 'const answer: number = 42;\nexport function double(x: number) {\n  return x * 2;\n}';

/** One turn per provider request; tests append the turns they need before they send. */
const turns: ScriptedTurn[] = [];
let world: ScriptedDesktopWorld | undefined;
let endpoint: ScriptedEndpoint;
let host: TempHost;
let context: BrowserContext;
let page: Page;
let sessionId: string;

const lastRunEnd = () => page.getByTestId('run-end').last();

/** An update_plan call of the three steps these tests plan, with these statuses. */
const planCall = (statuses: string[]): ScriptedTurn => ({
  kind: 'tool-call',
  name: 'update_plan',
  input: {
    steps: ['Read the parser', 'Fix the off-by-one in tokenize()', 'Run the tests'].map((step, index) => ({
      step,
      status: statuses[index],
    })),
  },
});

beforeAll(async () => {
  world = await openScriptedDesktopWorld(turns, KEY);
  ({ endpoint, host, context, page, sessionId } = world);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: host.uiOrigin });
}, 90_000);

afterAll(() => world?.close());

describe('the agent’s work in the desktop app', () => {
  it('focuses the composer on an opened session and names the session after its first message', async () => {
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('composer-input');
    turns.push({ kind: 'text', pieces: MARKDOWN });
    await sendMessage(page, 'Summarise the repository\nwith a table');
    await lastRunEnd().waitFor();
    await page.getByRole('heading', { name: 'Summarise the repository' }).waitFor();
    await page.locator('li.session').filter({ hasText: 'Summarise the repository' }).waitFor();
  });

  it('renders GFM markdown: a table, a highlighted code block, a task list marked by its checkboxes alone, inline code', async () => {
    const markdown = page.locator('.bubble.assistant .markdown').last();
    await markdown.locator('table').waitFor();
    expect(await markdown.locator('th').allTextContents()).toEqual(['file', 'lines']);
    expect(await markdown.locator('td').allTextContents()).toEqual(['a.ts', '12', 'b.ts', '7']);
    expect(await markdown.locator('pre code.hljs .hljs-keyword').count()).toBeGreaterThan(0);
    expect(await markdown.locator('input[type="checkbox"]').count()).toBe(2);
    expect(
      await markdown.locator('ul.contains-task-list').evaluate((list) => getComputedStyle(list).listStyleType),
    ).toBe('none');
    expect(await markdown.locator(':not(pre) > code').first().textContent()).toBe('inline code');
  });

  it('never renders raw HTML from model output: no <img>, no <b>, no script ran', async () => {
    const markdown = page.locator('.bubble.assistant .markdown').last();
    expect(await markdown.locator('img').count()).toBe(0);
    expect(await page.locator('#raw-html').count()).toBe(0);
    expect(await markdown.locator('script').count()).toBe(0);
    await page.waitForTimeout(200);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  });

  it('opens links in a new browsing context with noopener', async () => {
    const link = page.locator('.markdown a', { hasText: 'the docs' });
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toContain('noopener');
    expect(await link.getAttribute('href')).toBe('https://example.test/docs');
  });

  it('copies a code block with its copy button, and the whole reply with Copy reply', async () => {
    const block = page.locator('.code-block').last();
    await block.getByRole('button', { name: 'Copy' }).click();
    await block.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(CODE);
    // The run's end copies the whole reply as the markdown the model wrote.
    await lastRunEnd().getByRole('button', { name: 'Copy reply' }).click();
    await lastRunEnd().getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(MARKDOWN.join('').trim());
    await shotAllModes(page, SHOTS, '10-markdown');
  });

  it('runs multi-step tool use: write_file and edit_file as diffs, read_file numbered, the files changed listed', async () => {
    turns.push(
      { kind: 'tool-call', name: 'write_file', input: { path: 'notes.md', content: 'alpha\nbeta\n' } },
      { kind: 'tool-call', name: 'edit_file', input: { path: 'notes.md', old_string: 'beta', new_string: 'gamma' } },
      { kind: 'tool-call', name: 'read_file', input: { path: 'notes.md' } },
      { kind: 'text', pieces: ['Done: notes.md now ends with gamma.'] },
    );
    await sendMessage(page, 'Write notes.md, then fix it');
    await page.getByText('Done: notes.md now ends with gamma.').waitFor();
    expect(readFileSync(join(host.workspace, 'notes.md'), 'utf8')).toBe('alpha\ngamma\n');
    const write = page.getByRole('article', { name: 'Tool write_file' }).last();
    expect(await write.locator('.diff-add').allTextContents()).toEqual(['+alpha\n', '+beta\n']);
    const edit = page.getByRole('article', { name: 'Tool edit_file' }).last();
    expect(await edit.locator('.diff-del').allTextContents()).toEqual(['-beta\n']);
    expect(await edit.locator('.diff-add').allTextContents()).toEqual(['+gamma\n']);
    const read = page.getByRole('article', { name: 'Tool read_file' }).last();
    // A read opens folded: its title says what it read.
    await read.getByRole('button', { name: 'Read notes.md' }).click();
    expect(await read.locator('.line-number').allTextContents()).toEqual(['1', '2']);
    expect(await read.getByTestId('numbered-file').textContent()).toContain('gamma');
    // The run's summary lists notes.md once; its diff is a click away.
    const end = lastRunEnd();
    await end.getByText('Files changed (1)').waitFor();
    await end.getByRole('button', { name: 'notes.md' }).click();
    await end.getByTestId('diff').waitFor();
    await shotAllModes(page, SHOTS, '11-tool-diffs');
  });

  it('an edit_file with replace_all changes every occurrence; its card says how many, its diff shows each line', async () => {
    writeFileSync(join(host.workspace, 'rename.ts'), 'let oldName = 1;\nconst keep = 2;\noldName += oldName;\n');
    turns.push(
      {
        kind: 'tool-call',
        name: 'edit_file',
        input: { path: 'rename.ts', old_string: 'oldName', new_string: 'newName', replace_all: true },
      },
      { kind: 'text', pieces: ['Renamed oldName.'] },
    );
    await sendMessage(page, 'Rename oldName to newName');
    await page.getByText('Renamed oldName.').waitFor();
    expect(readFileSync(join(host.workspace, 'rename.ts'), 'utf8')).toBe(
      'let newName = 1;\nconst keep = 2;\nnewName += newName;\n',
    );
    const edit = page.getByRole('article', { name: 'Tool edit_file' }).last();
    await edit.getByText('Every occurrence replaced (3).').waitFor();
    expect(await edit.locator('.diff-add').allTextContents()).toEqual([
      '+let newName = 1;\n',
      '+newName += newName;\n',
    ]);
    await shotAllModes(page, SHOTS, '11b-replace-all', edit);
    rmSync(join(host.workspace, 'rename.ts'));
  });

  it('shows an update_plan call as a checklist: each step with its status in words, the count done in its header', async () => {
    turns.push(planCall(['completed', 'in_progress', 'pending']), {
      kind: 'text',
      pieces: ['Working through the plan.'],
    });
    await sendMessage(page, 'Fix the parser');
    await page.getByText('Working through the plan.').waitFor();
    const card = page.getByRole('article', { name: 'Tool update_plan' }).last();
    expect(await card.locator('.tool-subject').textContent()).toBe('1 of 3 steps done');
    expect(await card.getByRole('list', { name: 'Plan' }).getByRole('listitem').allTextContents()).toEqual([
      '✓done: Read the parser',
      '▸in progress: Fix the off-by-one in tokenize()',
      '○to do: Run the tests',
    ]);
    await shotAllModes(page, SHOTS, '11c-plan', card);
  });

  it('keeps the unfinished plan in a bar above the message box that opens into its checklist, and drops it once every step is done', async () => {
    const bar = page.getByRole('region', { name: 'The agent’s plan' });
    const toggle = bar.getByRole('button');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await toggle.textContent()).toBe('Plan · 1 of 3 steps done▸ in progress: Fix the off-by-one in tokenize()▴');
    await expectInViewport(page, page.getByLabel('Message'), 'the message box under the plan bar');
    await shotAllModes(page, SHOTS, '11d-plan-bar');
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    expect(await bar.getByRole('list', { name: 'Plan' }).getByRole('listitem').allTextContents()).toEqual([
      '✓done: Read the parser',
      '▸in progress: Fix the off-by-one in tokenize()',
      '○to do: Run the tests',
    ]);
    await expectListAndComposerInView(page, bar.getByRole('list', { name: 'Plan' }), page.getByLabel('Message'));
    await shotAllModes(page, SHOTS, '11e-plan-bar-open');
    turns.push(planCall(['completed', 'completed', 'completed']), { kind: 'text', pieces: ['All three done.'] });
    await sendMessage(page, 'Finish the plan');
    await page.getByText('All three done.').waitFor();
    await bar.waitFor({ state: 'detached' });
    expect(await page.getByRole('article', { name: 'Tool update_plan' }).count()).toBe(2);
  });

  it('numbers a read_file of a line range with the file’s own line numbers and names the range', async () => {
    writeFileSync(join(host.workspace, 'ranged.txt'), 'one\ntwo\nthree\nfour\nfive\n');
    turns.push(
      { kind: 'tool-call', name: 'read_file', input: { path: 'ranged.txt', start_line: 3, end_line: 4 } },
      { kind: 'text', pieces: ['Read lines 3 and 4.'] },
    );
    await sendMessage(page, 'Read lines 3 to 4 of ranged.txt');
    await page.getByText('Read lines 3 and 4.').waitFor();
    const read = page.getByRole('article', { name: 'Tool read_file' }).last();
    await read.locator('.tool-toggle').click();
    expect(await read.locator('.line-number').allTextContents()).toEqual(['3', '4']);
    expect(await read.getByTestId('numbered-file').textContent()).toBe('3three\n4four\n');
    await read.getByText('ranged.txt, lines 3–4 of 5').waitFor();
  });

  it('reads a range far into a 2 MB file: named with the file’s line count; a range longer than a tool result, and the file read whole, flagged as cut', async () => {
    const line = (index: number) => `${String(index).padStart(6, '0')}${'.'.repeat(993)}\n`;
    writeFileSync(
      join(host.workspace, 'large.log'),
      Array.from({ length: 2000 }, (_, index) => line(index + 1)).join(''),
    );
    turns.push(
      { kind: 'tool-call', name: 'read_file', input: { path: 'large.log', start_line: 1999, end_line: 2000 } },
      { kind: 'tool-call', name: 'read_file', input: { path: 'large.log', start_line: 1500 } },
      { kind: 'tool-call', name: 'read_file', input: { path: 'large.log' } },
      { kind: 'text', pieces: ['Read the end of large.log.'] },
    );
    await sendMessage(page, 'Read the end of large.log');
    await page.getByText('Read the end of large.log.').waitFor();
    const [whole, cut, start] = (await page.getByRole('article', { name: 'Tool read_file' }).all()).slice(-3);
    for (const read of [whole, cut, start]) await read?.locator('.tool-toggle').click();
    await whole?.getByText('large.log, lines 1999–2000 of 2000').waitFor();
    expect(await whole?.locator('.line-number').allTextContents()).toEqual(['1999', '2000']);
    expect(await whole?.locator('.flag').count()).toBe(0);
    const lastLine = 1499 + Math.floor(TOOL_MAX_OUTPUT_CHARS / 1000);
    await cut?.getByText(`large.log, lines 1500–${lastLine} of 2000`).waitFor();
    expect(await cut?.locator('.flag').textContent()).toBe('The range was cut; the agent saw only these lines.');
    // Read whole, the file comes as its first lines, numbered and counted the same way.
    await start?.getByText(`large.log, lines 1–${lastLine - 1499} of 2000`).waitFor();
    expect(await start?.locator('.flag').textContent()).toBe('The file was cut; the agent saw only its start.');
    await shotAllModes(page, SHOTS, '06b-read-range-cut');
  });

  it('shows list_dir as a listing with folders marked "/", search as path:line: text and find_files as paths, never as raw JSON', async () => {
    mkdirSync(join(host.workspace, 'src'));
    writeFileSync(join(host.workspace, 'src', 'app.ts'), 'export const needle = 1;\n');
    turns.push(
      { kind: 'tool-call', name: 'list_dir', input: {} },
      { kind: 'tool-call', name: 'search', input: { pattern: 'needle', glob: '*.ts' } },
      { kind: 'tool-call', name: 'find_files', input: { pattern: 'src/*.ts' } },
      { kind: 'text', pieces: ['Found the needle.'] },
    );
    await sendMessage(page, 'Where is the needle?');
    await page.getByText('Found the needle.').waitFor();
    const list = page.getByRole('article', { name: 'Tool list_dir' }).last();
    const search = page.getByRole('article', { name: 'Tool search' }).last();
    const find = page.getByRole('article', { name: 'Tool find_files' }).last();
    // They open folded, each titled by what it looked at.
    await list.getByRole('button', { name: 'Listed the workspace folder' }).click();
    await search.getByRole('button', { name: 'Searched needle (*.ts)' }).click();
    await find.getByRole('button', { name: 'Found files src/*.ts' }).click();
    const listed = readdirSync(host.workspace, { withFileTypes: true })
      .map((entry) => `${entry.name}${entry.isDirectory() ? '/' : ''}`)
      .sort();
    expect(listed).toContain('src/');
    await list.getByText(listed.length === 1 ? '1 entry' : `${listed.length} entries`, { exact: true }).waitFor();
    expect(await list.locator('pre').textContent()).toBe(listed.join('\n'));
    await search.getByText('1 match').waitFor();
    expect(await search.locator('pre').textContent()).toBe('src/app.ts:1: export const needle = 1;');
    expect(await search.locator('.tool-subject').textContent()).toBe('needle');
    await find.getByText('1 file', { exact: true }).waitFor();
    expect(await find.locator('pre').textContent()).toBe('src/app.ts');
    expect(await find.locator('.tool-subject').textContent()).toBe('src/*.ts');
    expect(await page.locator('.tool-card').filter({ hasText: '"kind"' }).count()).toBe(0);
    await shotAllModes(page, SHOTS, '18-list-and-search');
    rmSync(join(host.workspace, 'src'), { recursive: true });
  });

  it('asks before each file edit once the session’s switch is on (kept across a reload), showing the lines the write replaces, the session listed as needing approval; Deny leaves the file as it was', async () => {
    writeFileSync(join(host.workspace, 'keep.txt'), 'original\n');
    const ask = page.getByLabel('Ask before file edits');
    expect(await ask.isChecked()).toBe(false);
    await ask.check();
    await expect
      .poll(async () => (await host.client.request<Session>('GET', `/sessions/${sessionId}`)).body)
      .toMatchObject({
        ask_before_writes: true,
      });
    await page.reload();
    await page.getByLabel('Ask before file edits').waitFor();
    expect(await page.getByLabel('Ask before file edits').isChecked()).toBe(true);

    turns.push(
      { kind: 'tool-call', name: 'write_file', input: { path: 'keep.txt', content: 'overwritten\n' } },
      { kind: 'text', pieces: ['The write was denied.'] },
    );
    await sendMessage(page, 'Overwrite keep.txt');
    const approval = page.getByRole('region', { name: 'Approval needed' });
    await approval.getByText('keep.txt').first().waitFor();
    await expectInViewport(page, approval, 'the approval prompt for write_file');
    // The card above it shows what the write would replace in the file as it is, not a new file.
    const pending = page.getByRole('article', { name: 'Tool write_file' }).last();
    expect(await pending.locator('.diff-del').allTextContents()).toEqual(['-original\n']);
    expect(await pending.locator('.diff-add').allTextContents()).toEqual(['+overwritten\n']);
    // The session list says the session waits for an answer, until it has one.
    const waiting = page
      .locator('li.session')
      .filter({ hasText: 'Summarise the repository' })
      .getByText('needs approval');
    await waiting.waitFor();
    await shotAllModes(page, SHOTS, '17-approval-file-edit');
    // The run's end reads the session again; that read is held until the switch has been turned
    // off, so its answer (still on) comes after the click, as it can when the page is slow.
    const sessionUrl = `**/sessions/${sessionId}`;
    let releaseRead!: () => void;
    const readReleased = new Promise<void>((resolve) => (releaseRead = resolve));
    const readHeld = new Promise<void>((resolveHeld) => {
      void page.route(sessionUrl, async (route) => {
        if (route.request().method() !== 'GET') return route.fallback();
        const response = await route.fetch();
        resolveHeld();
        await readReleased;
        await route.fulfill({ response });
      });
    });
    await approval.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('The write was denied.').waitFor();
    expect(readFileSync(join(host.workspace, 'keep.txt'), 'utf8')).toBe('original\n');
    await waiting.waitFor({ state: 'detached' });
    await readHeld;

    await page.getByLabel('Ask before file edits').uncheck();
    await expect
      .poll(async () => (await host.client.request<Session>('GET', `/sessions/${sessionId}`)).body)
      .toMatchObject({
        ask_before_writes: false,
      });
    const staleRead = page.waitForResponse(
      (response) => response.url().endsWith(`/sessions/${sessionId}`) && response.request().method() === 'GET',
    );
    releaseRead();
    await staleRead;
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    expect(await page.getByLabel('Ask before file edits').isChecked()).toBe(false);
    await page.unroute(sessionUrl);
  });

  it('an edit waiting for approval that the daemon cannot diff (its text not in the file), changing more lines than the edit bound, shows as a whole replacement its hunk header names', async () => {
    const lines = (word: string) => Array.from({ length: 1_000 }, (_, i) => `${word} ${i}`).join('\n') + '\n';
    writeFileSync(join(host.workspace, 'big.txt'), 'unrelated\n');
    await page.getByLabel('Ask before file edits').check();
    await expect
      .poll(async () => (await host.client.request<Session>('GET', `/sessions/${sessionId}`)).body)
      .toMatchObject({ ask_before_writes: true });
    turns.push(
      {
        kind: 'tool-call',
        name: 'edit_file',
        input: { path: 'big.txt', old_string: lines('old'), new_string: lines('new') },
      },
      { kind: 'text', pieces: ['Left big.txt alone.'] },
    );
    await sendMessage(page, 'Rewrite big.txt');
    const approval = page.getByRole('region', { name: 'Approval needed' });
    await approval.getByText('big.txt').first().waitFor();
    const card = page.getByRole('article', { name: 'Tool edit_file' }).last();
    expect(await card.locator('.diff-hunk').first().textContent()).toBe(
      '@@ -1,1000 +1,1000 @@ every line shown replaced: too many changed to match them up\n',
    );
    await shotAllModes(page, SHOTS, '17b-approval-whole-replacement', card);
    await approval.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('Left big.txt alone.').waitFor();
    expect(readFileSync(join(host.workspace, 'big.txt'), 'utf8')).toBe('unrelated\n');
    await page.getByLabel('Ask before file edits').uncheck();
    await expect
      .poll(async () => (await host.client.request<Session>('GET', `/sessions/${sessionId}`)).body)
      .toMatchObject({ ask_before_writes: false });
    rmSync(join(host.workspace, 'big.txt'));
  });

  it('shows a running command’s output as it comes (stderr marked), then its result in place of it, whose stdout Copy stdout copies', async () => {
    // The command goes on only once the file `go` exists, which the test makes on seeing its first line.
    const script = 'echo first line; echo a warning >&2; while [ ! -e go ]; do sleep 0.05; done; echo last line';
    turns.push(
      { kind: 'tool-call', name: 'run_command', input: { command: 'sh', args: ['-c', script] } },
      { kind: 'text', pieces: ['The command finished.'] },
    );
    await sendMessage(page, 'Run the slow script');
    const approval = page.getByRole('region', { name: 'Approval needed' });
    await approval.getByRole('button', { name: 'Allow', exact: true }).click();
    const card = page.getByRole('article', { name: 'Tool run_command' }).last();
    const live = card.getByTestId('live-output');
    await live.getByText('a warning').waitFor();
    expect(await live.locator('pre').textContent()).toBe('first line\na warning\n');
    expect(await live.locator('.live-stderr').textContent()).toBe('a warning\n');
    expect(await card.getByTestId('tool-status').textContent()).toBe('running');
    await shotAllModes(page, SHOTS, '19-command-live-output');
    writeFileSync(join(host.workspace, 'go'), '');
    await page.getByText('The command finished.').waitFor();
    expect(await card.getByTestId('tool-status').textContent()).toBe('exit 0');
    expect(await live.count()).toBe(0);
    expect(await card.locator('.tool-output.terminal pre').allTextContents()).toEqual([
      'first line\nlast line',
      'a warning',
    ]);
    await card.getByRole('button', { name: 'Copy stdout' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('first line\nlast line\n');
  });

  it('Stop ends a streaming run, which reads "Stopped" and not as a failure (the session list marks it running until then; the @ list works meanwhile), and leaves the focus in the message box; Esc stops too', async () => {
    const slow = Array.from({ length: 400 }, (_, index) => `word${index} `);
    turns.push({ kind: 'text', pieces: slow, delayMs: 40 });
    await sendMessage(page, 'Talk for a long time');
    await page.getByTestId('activity').filter({ hasText: 'Working…' }).waitFor();
    const stop = page.getByRole('button', { name: 'Stop' });
    await expectInViewport(page, stop, 'Stop');
    await expectInViewport(page, page.getByLabel('Message'), 'the composer');
    // The session list marks the session as running, and the mark clears once the run has stopped.
    const listed = page.locator('li.session').filter({ hasText: 'Summarise the repository' });
    await listed.locator('.session-running').waitFor();
    expect(await listed.locator('.session-title').textContent()).toBe('Running: Summarise the repository');
    await shotAllModes(page, SHOTS, '12-running');
    // The message box's @ list works while the reply streams in, and its Esc closes only the list.
    const composer = page.getByLabel('Message');
    await composer.pressSequentially('@not');
    await page.getByRole('listbox').getByRole('option', { name: 'notes.md' }).waitFor();
    await composer.press('Escape');
    await page.getByRole('listbox').waitFor({ state: 'detached' });
    expect(await stop.isVisible()).toBe(true);
    await composer.fill('');
    await stop.click();
    await lastRunEnd().getByText('Stopped').waitFor();
    await page.getByTestId('activity').waitFor({ state: 'detached' });
    expect(await page.locator('.run-error').count()).toBe(0);
    await stop.waitFor({ state: 'detached' });
    expect(await composer.evaluate((element) => element === document.activeElement)).toBe(true);
    await listed.locator('.session-running').waitFor({ state: 'detached' });

    turns.push({ kind: 'text', pieces: slow, delayMs: 40 });
    await sendMessage(page, 'Talk again');
    await page.getByTestId('activity').filter({ hasText: 'Working…' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('activity').waitFor({ state: 'detached' });
    expect(await page.getByTestId('run-end').filter({ hasText: 'Stopped' }).count()).toBe(2);
  });

  it('a message sent while a run streams is queued (Queue, shown above the box) and goes once the run finishes; one queued before Stop stays through a reload and comes back to the box unsent', async () => {
    turns.length = endpoint.seen.length;
    const slow = Array.from({ length: 200 }, (_, index) => `part${index} `);
    turns.push({ kind: 'text', pieces: slow, delayMs: 40 }, { kind: 'text', pieces: ['Queued one answered.'] });
    await sendMessage(page, 'Stream a while');
    await page.getByTestId('activity').filter({ hasText: 'Working…' }).waitFor();
    const composer = page.getByLabel('Message');
    await composer.fill('Then say hello');
    expect(await page.getByRole('button', { name: 'Queue' }).isEnabled()).toBe(true);
    await composer.press('Enter');
    const queued = page.getByRole('status', { name: 'Queued', exact: true });
    expect(await queued.textContent()).toBe('Queued, sent when this run finishes:Then say helloEditCancel');
    expect(await composer.inputValue()).toBe('');
    await expectInViewport(page, composer, 'the message box under the queued message');
    await shotAllModes(page, SHOTS, '12b-queued');
    await page.getByText('Queued one answered.').waitFor();
    await queued.waitFor({ state: 'detached' });
    expect(await page.getByTestId('user-bubble').filter({ hasText: 'Then say hello' }).count()).toBe(1);
    expect(JSON.stringify(endpoint.seen.at(-1)?.body)).toContain('Then say hello');

    turns.push({ kind: 'text', pieces: [...slow, ...slow], delayMs: 40 });
    await sendMessage(page, 'Stream once more');
    await page.getByTestId('activity').filter({ hasText: 'Working…' }).waitFor();
    await composer.fill('Not now');
    await composer.press('Enter');
    await queued.waitFor();
    await composer.fill('half typed');
    // A reload keeps the queued message beside the draft, while the run goes on.
    await page.reload();
    await page.getByTestId('activity').filter({ hasText: 'Working…' }).waitFor();
    expect(await queued.locator('.queued-text').textContent()).toBe('Not now');
    expect(await composer.inputValue()).toBe('half typed');
    const seen = endpoint.seen.length;
    await page.getByRole('button', { name: 'Stop' }).click();
    await lastRunEnd().getByText('Stopped').waitFor();
    await queued.waitFor({ state: 'detached' });
    expect(await composer.inputValue()).toBe('Not now\n\nhalf typed');
    expect(await page.getByTestId('user-bubble').filter({ hasText: 'Not now' }).count()).toBe(0);
    expect(endpoint.seen.length).toBe(seen);
    await composer.fill('');
  });

  it('shows a 429 with its status, the provider’s message and Retry-After; Retry sends the prompt again, leaving the focus in the message box, and the failed run then offers no Retry', async () => {
    // The endpoint plays turns[n] for its n-th request: a turn queued for a run that was stopped
    // before its request went out would answer this prompt instead, so such turns are dropped.
    turns.length = endpoint.seen.length;
    turns.push(
      { kind: 'status', status: 429, message: 'Rate limit reached for scripted-model', retryAfterSeconds: 120 },
      { kind: 'text', pieces: ['Recovered after the retry.'] },
    );
    const before = endpoint.seen.length;
    await sendMessage(page, 'Try the busy provider');
    const failure = page.locator('.run-error').last();
    await failure.getByText('The run failed').waitFor();
    // The provider's status, its own message and its Retry-After, in words.
    expect(await failure.textContent()).toMatch(/HTTP 429.*Rate limit reached for scripted-model.*Retry-After/s);
    await shotAllModes(page, SHOTS, '13-provider-error');
    await failure.getByRole('button', { name: 'Retry' }).click();
    await page.getByText('Recovered after the retry.').waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('composer-input');
    expect(endpoint.seen.length).toBe(before + 2);
    expect(JSON.stringify(endpoint.seen.at(-1)?.body)).toContain('Try the busy provider');
    // Its task is no longer the last: a Retry there would send an older prompt after a newer one.
    expect(await failure.getByRole('button', { name: 'Retry' }).count()).toBe(0);
  });

  it('a 503 then a reply: the reply follows, and the notice says which attempt failed, its status, and that it was tried again after 1s', async () => {
    turns.length = endpoint.seen.length;
    turns.push(
      { kind: 'status', status: 503, message: 'Overloaded' },
      { kind: 'text', pieces: ['Answered on the second attempt.'] },
    );
    await sendMessage(page, 'Try the overloaded provider');
    await page.getByText('Answered on the second attempt.').waitFor();
    const notice = page.locator('.notice').filter({ hasText: 'Attempt 1 of 3' }).last();
    expect(await notice.textContent()).toBe('Attempt 1 of 3 failed (HTTP 503); tried again after 1s. Overloaded');
  });

  it('a 401 says the provider did not accept its key and where to set it', async () => {
    turns.length = endpoint.seen.length;
    turns.push({ kind: 'status', status: 401, message: 'Incorrect API key provided' });
    await sendMessage(page, 'Try a bad key');
    const failure = page.locator('.run-error').last();
    await failure.getByText('HTTP 401', { exact: false }).waitFor();
    expect(await failure.textContent()).toMatch(
      /Incorrect API key provided.*The endpoint did not accept its key, or needs one: set it in Settings → Custom endpoints, or run: bastion secrets set local/s,
    );
    await shotAllModes(page, SHOTS, '13b-unauthorized');
  });

  it('at 420 px the top bar is one row, the approval prompt is in view while focus stays in the message box (Alt+Shift+A takes it to the prompt, Tab on to its answers), Stop is reachable, and Stop cancels the call', async () => {
    await page.setViewportSize({ width: 420, height: 860 });
    turns.push({ kind: 'tool-call', name: 'run_command', input: { command: 'touch', args: ['never.txt'] } });
    await sendMessage(page, 'Create never.txt');
    const approval = page.getByRole('region', { name: 'Approval needed' });
    await approval.getByText('touch never.txt').waitFor();
    await expectInViewport(page, approval, 'the approval prompt');
    // The question does not take the keys of someone typing on: focus stays where it was.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('composer-input');
    await page.keyboard.press('Alt+Shift+KeyA');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Approval needed');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('deny-reason');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Allow');
    const stop = page.getByRole('button', { name: 'Stop' });
    await expectInViewport(page, stop, 'Stop during the approval');
    await expectInViewport(page, page.getByLabel('Message'), 'the composer');
    await expectNoHorizontalOverflow(page);
    // The top bar is one row: the brand, the posture (its details in the title) and the navigation.
    const top = page.locator('header.topbar');
    const rows = await Promise.all(
      [
        top.getByRole('link', { name: 'Bastion' }),
        top.getByRole('status'),
        top.getByRole('button', { name: 'Settings' }),
      ].map(async (part) => (await part.boundingBox())?.y),
    );
    const topRow = rows[0] as number;
    for (const y of rows) expect(Math.abs((y as number) - topRow)).toBeLessThan(12);
    expect(await top.getByRole('status').getAttribute('title')).toMatch(/^Sandboxed \(srt\) · Shell available/);
    await shotAllModes(page, SHOTS, '14-approval');
    await stop.click();
    await approval.waitFor({ state: 'detached' });
    await lastRunEnd().getByText('Stopped').waitFor();
    expect(existsSync(join(host.workspace, 'never.txt'))).toBe(false);
    const card = page.getByRole('article', { name: 'Tool run_command' }).last();
    expect(await card.getByTestId('tool-status').textContent()).toBe('stopped');
    // The run ended waiting, then stopped: one end row for it, after its card.
    const endsAfterCard = await card.evaluate(
      (article) =>
        Array.from(document.querySelectorAll('[data-testid="run-end"]')).filter(
          (end) => article.compareDocumentPosition(end) & Node.DOCUMENT_POSITION_FOLLOWING,
        ).length,
    );
    expect(endsAfterCard).toBe(1);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('at 420 px the session’s controls fold under Options, which names the mode: Options unfolds them, and /model unfolds them with the Model list focused', async () => {
    await page.setViewportSize({ width: 420, height: 860 });
    const head = page.locator('.chat-head');
    const options = head.getByRole('button', { name: 'Options: accept-edits' });
    const model = page.getByLabel('Model', { exact: true });
    expect(await options.getAttribute('aria-expanded')).toBe('false');
    expect(await model.isVisible()).toBe(false);
    const folded = (await head.boundingBox())?.height ?? 0;
    await shotAllModes(page, SHOTS, '14b-options-folded');
    await options.click();
    expect(await options.getAttribute('aria-expanded')).toBe('true');
    for (const control of [model, page.getByLabel('Mode', { exact: true }), page.getByLabel('Ask before file edits')])
      await expectInViewport(page, control, 'an unfolded control');
    await expectInViewport(page, head.getByRole('button', { name: 'Host record' }), 'Host record');
    expect((await head.boundingBox())?.height ?? 0).toBeGreaterThan(folded);
    await expectNoHorizontalOverflow(page);
    await shotAllModes(page, SHOTS, '14c-options-unfolded');
    await options.click();
    expect(await model.isVisible()).toBe(false);
    await page.getByLabel('Message').fill('/model');
    await page.getByLabel('Message').press('Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('session-model');
    expect(await options.getAttribute('aria-expanded')).toBe('true');
    await expectInViewport(page, model, 'the Model list after /model');
    await options.click();
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await model.isVisible()).toBe(true);
    expect(await options.isVisible()).toBe(false);
  });

  it('switches a demo session to the endpoint model in the picker; the next run goes there', async () => {
    await page.getByRole('button', { name: 'New session' }).click();
    await page.waitForURL((url) => url.pathname !== `/desktop/sessions/${sessionId}`);
    await page.locator('.chat-meta').getByText('offline demo model').waitFor();
    await sendMessage(page, 'ls');
    await page.locator('.bubble.assistant').filter({ hasText: 'demo:' }).last().waitFor();
    const before = endpoint.seen.length;
    const picker = page.getByLabel('Model', { exact: true });
    // The picker renders once the new session's model list has loaded; both groups are in it then.
    await picker.locator('optgroup').nth(1).waitFor({ state: 'attached' });
    expect(
      await picker.locator('optgroup').evaluateAll((groups) => groups.map((g) => g.getAttribute('label'))),
    ).toEqual(['Built in', expect.stringContaining('local (http://127.0.0.1:')]);
    await picker.selectOption({ label: SCRIPTED_MODEL });
    await page.locator('.chat-head').getByText(`local · ${SCRIPTED_MODEL}`).waitFor();
    await shotAllModes(page, SHOTS, '15-model-picker');
    turns.push({ kind: 'text', pieces: ['Hello from the endpoint model.'] });
    await sendMessage(page, 'Which model is this?');
    await page.getByText('Hello from the endpoint model.').waitFor();
    expect(endpoint.seen.length).toBe(before + 1);
    expect(endpoint.seen.at(-1)?.body.model).toBe(SCRIPTED_MODEL);
  });

  it('sets the default model in Settings; the empty page names it, a new session starts on it, and it survives a reload', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click();
    const picker = page.getByLabel('Model for new sessions');
    await picker.selectOption({ label: SCRIPTED_MODEL });
    await page.getByText(`New sessions use local · ${SCRIPTED_MODEL}.`).waitFor();
    await shotAllModes(page, SHOTS, '16-settings-default-model');
    await page.reload();
    await page.getByLabel('Model for new sessions').waitFor();
    expect(await page.getByLabel('Model for new sessions').inputValue()).toBe(`local:${SCRIPTED_MODEL}`);
    // The page with no session open names it too.
    await page.goto(`${host.uiOrigin}/desktop/`);
    await page.locator('section.empty').getByText(`local · ${SCRIPTED_MODEL}`).waitFor();
    await page.getByRole('button', { name: 'New session' }).click();
    await page.waitForURL(/\/desktop\/sessions\/ses_/);
    await page.locator('.chat-head').getByText(`local · ${SCRIPTED_MODEL}`).waitFor();
    await page.goto(`${host.uiOrigin}/desktop/sessions/${sessionId}`);
  });

  it('the home page’s Model picker sets the default for new sessions: the message typed there starts a session on the model picked', async () => {
    await page.goto(`${host.uiOrigin}/desktop/`);
    const picker = page.locator('#home-model');
    // The default the previous test set in Settings.
    await expect.poll(() => picker.inputValue(), { timeout: 30_000 }).toBe(`local:${SCRIPTED_MODEL}`);
    await picker.selectOption({ label: 'offline demo model' });
    await page.locator('section.empty').getByText('New sessions use the offline demo model').waitFor();
    const models = await host.client.request<{ default: { provider: string; model: string } }>('GET', '/models');
    expect(models.body.default).toEqual({ provider: 'demo', model: 'demo' });
    await shotAllModes(page, SHOTS, '01b-home-model');
    const before = endpoint.seen.length;
    const box = page.getByRole('combobox', { name: 'Message' });
    await box.fill('ls');
    await box.press('Enter');
    await page.waitForURL(/\/desktop\/sessions\/ses_/);
    await page.locator('.chat-meta').getByText('offline demo model').waitFor();
    await page.locator('.bubble.assistant').filter({ hasText: 'demo:' }).waitFor();
    expect(endpoint.seen.length).toBe(before);
    // Back to the endpoint model, from the home page again, for the tests after this one.
    await page.goto(`${host.uiOrigin}/desktop/`);
    await picker.selectOption({ label: SCRIPTED_MODEL });
    await page.locator('section.empty').getByText(`local · ${SCRIPTED_MODEL}`).waitFor();
    await page.goto(`${host.uiOrigin}/desktop/sessions/${sessionId}`);
  });

  it('a default model whose endpoint is gone: the home page says so, Send stays off, New session is refused in words and no session is made; picking another model clears it', async () => {
    const defined = await host.client.request('POST', '/providers/endpoints/set', {
      id: 'gone',
      base_url: 'http://127.0.0.1:9/v1',
      models: ['old-model'],
    });
    expect(defined.status).toBe(200);
    expect(
      (await host.client.request('POST', '/models/default', { provider: 'gone', model: 'old-model' })).status,
    ).toBe(200);
    expect((await host.client.request('POST', '/providers/endpoints/delete', { id: 'gone' })).status).toBe(200);
    const sessionsNow = async () =>
      (await host.client.request<{ sessions: { id: string }[] }>('GET', '/sessions?limit=100')).body.sessions.length;
    const before = await sessionsNow();
    await page.goto(`${host.uiOrigin}/desktop/`);
    const alert = page.locator('section.empty [role=alert]');
    await alert.getByText('is not available now').waitFor();
    expect(await alert.textContent()).toBe(
      'The default model, gone · old-model, is not available now: its key was removed or its endpoint deleted. Pick another model, or set it up again in Settings.',
    );
    const box = page.getByRole('combobox', { name: 'Message' });
    await box.fill('hello');
    await box.press('Enter');
    expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
    await shotAllModes(page, SHOTS, '01c-home-default-gone');
    expect(new URL(page.url()).pathname).toBe('/desktop/');
    // New session is refused by the daemon in the same words, and makes nothing either.
    await page.getByRole('button', { name: 'New session' }).click();
    await page
      .getByRole('complementary', { name: 'Sessions' })
      .getByText('the default model for new sessions is not available now')
      .waitFor();
    await shotAllModes(page, SHOTS, '01e-new-session-default-gone');
    expect(await sessionsNow()).toBe(before);
    // Settings says the same above its picker.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click();
    const settingsAlert = page.locator('section[aria-labelledby="default-model-title"] [role=alert]');
    expect(await settingsAlert.textContent()).toBe(
      'The default model, gone · old-model, is not available now: its key was removed or its endpoint deleted. Pick another model, or set up its key or endpoint again below.',
    );
    await shotAllModes(page, SHOTS, '01d-settings-default-gone');
    await page.goto(`${host.uiOrigin}/desktop/`);
    await page.locator('#home-model').selectOption({ label: SCRIPTED_MODEL });
    await page.locator('section.empty').getByText(`local · ${SCRIPTED_MODEL}`).waitFor();
    expect(await alert.count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(false);
    await box.fill('');
    await page.goto(`${host.uiOrigin}/desktop/sessions/${sessionId}`);
  });

  it('keeps an unsent draft per session across opening another session and a reload; sending clears it; ArrowUp recalls the last prompt', async () => {
    const composer = page.getByLabel('Message');
    await composer.fill('half-written\nsecond line');
    await page.locator('li.session').filter({ hasNotText: 'Summarise the repository' }).first().click();
    await page.waitForURL((url) => url.pathname !== `/desktop/sessions/${sessionId}`);
    await page.locator('.chat-head').waitFor();
    expect(await composer.inputValue()).toBe('');
    await page.locator('li.session').filter({ hasText: 'Summarise the repository' }).click();
    await page.waitForURL((url) => url.pathname === `/desktop/sessions/${sessionId}`);
    await page.getByRole('heading', { name: 'Summarise the repository' }).waitFor();
    expect(await composer.inputValue()).toBe('half-written\nsecond line');
    await page.reload();
    await page.getByRole('heading', { name: 'Summarise the repository' }).waitFor();
    expect(await composer.inputValue()).toBe('half-written\nsecond line');
    turns.push({ kind: 'text', pieces: ['Got the draft.'] });
    await composer.press('Enter');
    await page.getByText('Got the draft.').waitFor();
    expect(await composer.inputValue()).toBe('');
    await page.reload();
    await page.getByRole('heading', { name: 'Summarise the repository' }).waitFor();
    expect(await composer.inputValue()).toBe('');
    // ArrowUp in the empty box brings back the last prompt; in a box with text it moves the caret only.
    await page.getByTestId('user-bubble').filter({ hasText: 'second line' }).waitFor();
    await composer.press('ArrowUp');
    expect(await composer.inputValue()).toBe('half-written\nsecond line');
    await composer.fill('typed');
    await composer.press('ArrowUp');
    expect(await composer.inputValue()).toBe('typed');
    await composer.fill('');
  });

  it('Export downloads the session as markdown: its prompts, replies and tool calls; Export keeps the focus', async () => {
    await page.getByRole('heading', { name: 'Summarise the repository' }).waitFor();
    const exportButton = page.getByRole('button', { name: 'Export' });
    const [download] = await Promise.all([page.waitForEvent('download'), exportButton.click()]);
    await expect.poll(() => exportButton.getAttribute('aria-disabled')).toBe(null);
    expect(await exportButton.evaluate((element) => element === document.activeElement)).toBe(true);
    expect(download.suggestedFilename()).toBe('Summarise the repository.md');
    const markdown = readFileSync(await download.path(), 'utf8');
    expect(markdown.startsWith(`# Summarise the repository\n\nlocal/${SCRIPTED_MODEL} · `)).toBe(true);
    expect(markdown).toContain('## You\n\nSummarise the repository\nwith a table');
    expect(markdown).toContain('## Bastion\n\n## Plan');
    expect(markdown).toContain('- write_file `{"path":"notes.md","content":"alpha\\nbeta\\n"}`');
  });

  it('keeps the whole transcript across a reload: newest first in view, the first prompt after scrolling up', async () => {
    const newest = page.getByTestId('user-bubble').filter({ hasText: 'second line' });
    await newest.waitFor();
    await page.reload();
    await newest.waitFor();
    await expectInViewport(page, newest, 'the newest prompt after a reload');
    await page.getByTestId('transcript').evaluate((element) => {
      element.scrollTop = 0;
    });
    await page.getByTestId('user-bubble').filter({ hasText: 'Summarise the repository' }).waitFor();
    expect(await page.getByText('Loading message').count()).toBe(0);
  });

  it('a prompt of a run started through the HTTP API while the session is open shows its text, not "Loading message…"', async () => {
    turns.push({ kind: 'text', pieces: ['Answered for the API.'] });
    // The transcript keeps only the rows in view: it is read at its end, where the new run comes.
    await page.getByTestId('transcript').evaluate((element) => {
      element.scrollTop = element.scrollHeight;
    });
    await host.client.request('POST', '/agent/run', { session_id: sessionId, message: 'Sent through the API' });
    await page.getByTestId('user-bubble').filter({ hasText: 'Sent through the API' }).waitFor();
    await lastRunEnd().waitFor();
    expect(await page.getByText('Loading message').count()).toBe(0);
  });

  it('a prompt sent in a second tab shows its text in the first', async () => {
    const second = await context.newPage();
    try {
      await second.goto(page.url());
      turns.push({ kind: 'text', pieces: ['Answered for the second tab.'] });
      await sendMessage(second, 'Sent from the second tab');
      await page.getByTestId('user-bubble').filter({ hasText: 'Sent from the second tab' }).waitFor();
      expect(await page.getByText('Loading message').count()).toBe(0);
    } finally {
      await second.close();
    }
  });
});
