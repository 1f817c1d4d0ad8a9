/// <reference lib="dom" />
/**
 * A session's Changes in the desktop app, in real Chromium against the real host and sidecar and
 * the scripted loopback endpoint: the header counts the files the session's file tools changed;
 * the Changes panel lists each with its status, path, line counts and diff (folded on a click),
 * Copy patch copies every diff as one patch, `/changes` opens it, a run that ends while it is open
 * refreshes it (one read per run), a file turned binary on disk is said in words instead of a
 * diff, the commands a run ran are noted, and a daemon's refusal is said in words with Try again.
 * Screenshots (light and dark, 1280 and 420 px) go to test-output/ui/.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import type { SessionChangesResponse } from '@bastion/protocol';
import type { ScriptedTurn } from '@bastion/test-support';
import type { TempHost } from '../support/temp-host.js';
import { openScriptedDesktopWorld, sendMessage, type ScriptedDesktopWorld } from './support/desktop-world.js';
import { expectListAndComposerInView, expectNoHorizontalOverflow, shotAllModes, SHOTS } from './support/layout.js';

/** What the page shows after the host has done its part: under a loaded CI machine a run takes seconds. */
const SETTLED = { timeout: 30_000 };
/** A path long enough to wrap in the panel at 420 px. */
const LONG_PATH = 'src/components/settings/advanced/network/egress/allowed-endpoints-for-the-workspace-model.ts';
const BINARY = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0xff, 0x0d, 0x0a, 0x1a, 0, 0x80]);

const turns: ScriptedTurn[] = [];
let world: ScriptedDesktopWorld | undefined;
let host: TempHost;
let page: Page;
let sessionId: string;
/** The page's reads of the session's changes, counted as they go out. */
let changesReads = 0;

const header = () => page.locator('.chat-head');
const panel = () => page.getByRole('complementary', { name: 'Changes' });
const composer = () => page.getByRole('combobox', { name: 'Message' });
const row = (path: string): Locator => panel().getByTestId('changed-file').filter({ hasText: path });
/** The lines of a file's diff of one kind ('diff-add', 'diff-del'), without their newlines. */
const diffLines = (path: string, kind: string) =>
  row(path)
    .locator(`.diff-line.${kind}`)
    .allTextContents()
    .then((lines) => lines.map((line) => line.trimEnd()));
const daemonChanges = async () =>
  (await host.client.request<SessionChangesResponse>('GET', `/sessions/${sessionId}/changes`)).body;

beforeAll(async () => {
  world = await openScriptedDesktopWorld(turns, 'sk-ui-changes-test-key');
  ({ host, page, sessionId } = world);
  await world.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: host.uiOrigin });
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === `/sessions/${sessionId}/changes`) changesReads += 1;
  });
}, 90_000);

afterAll(() => world?.close());

describe('a session’s Changes in the desktop app', () => {
  it('after a run edits one file and creates another, the header reads Changes (2) and the panel lists both with their status, line counts and diff lines', async () => {
    writeFileSync(join(host.workspace, 'notes.md'), 'alpha\nbeta\n');
    await header().getByRole('button', { name: 'Changes (0)' }).waitFor(SETTLED);
    turns.push(
      { kind: 'tool-call', name: 'edit_file', input: { path: 'notes.md', old_string: 'beta', new_string: 'gamma' } },
      { kind: 'tool-call', name: 'write_file', input: { path: 'made.txt', content: 'made by the run\n' } },
      { kind: 'text', pieces: ['Changed two files.'] },
    );
    await sendMessage(page, 'Change two files');
    await page.getByTestId('run-end').last().getByText('Files changed (2)').waitFor(SETTLED);
    const button = header().getByRole('button', { name: 'Changes (2)' });
    await button.waitFor(SETTLED);

    await button.click();
    await panel().getByTestId('changes-summary').getByText('2 files changed, +2 −1').waitFor(SETTLED);
    expect(await button.getAttribute('aria-expanded')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Close');
    expect(await panel().getByTestId('changed-file').locator('.changed-path').allTextContents()).toEqual([
      'notes.md',
      'made.txt',
    ]);
    expect(await row('notes.md').locator('.badge').textContent()).toBe('modified');
    expect(await row('notes.md').locator('.changed-lines').textContent()).toBe('+1 −1');
    expect(await row('made.txt').locator('.badge').textContent()).toBe('added');
    expect(await row('made.txt').locator('.changed-lines').textContent()).toBe('+1 −0');
    expect(await diffLines('notes.md', 'diff-del')).toEqual(['-beta']);
    expect(await diffLines('notes.md', 'diff-add')).toEqual(['+gamma']);
    expect(await diffLines('made.txt', 'diff-add')).toEqual(['+made by the run']);
    // The row names the file: its diff shows no raw --- / +++ header.
    expect(await diffLines('made.txt', 'diff-file')).toEqual([]);
    expect(await panel().locator('.changes-note').count()).toBe(0);

    await shotAllModes(page, SHOTS, '59-changes-view');
    await expectListAndComposerInView(page, panel(), composer());
  });

  it('folds a file’s diff away on a click on its row and opens it again on a second', async () => {
    const head = row('notes.md').getByRole('button', { expanded: true });
    await head.click();
    await row('notes.md').getByTestId('diff').waitFor({ state: 'detached' });
    expect(await row('notes.md').getByRole('button').getAttribute('aria-expanded')).toBe('false');
    expect(await row('made.txt').getByTestId('diff').count()).toBe(1);
    await row('notes.md').getByRole('button').click();
    await row('notes.md').getByTestId('diff').waitFor();
  });

  it('Copy patch puts every diff on the clipboard as one patch, the daemon’s diffs one after the other', async () => {
    const { files } = await daemonChanges();
    const patch = files.map((file) => file.diff).join('');
    expect(patch).toContain('+++ b/made.txt\n');
    await panel().getByRole('button', { name: 'Copy patch' }).click();
    await panel().getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(patch);
  });

  it('the divider between the transcript and the panel: a drag of 150px right narrows the panel and widens the transcript by 150px, ArrowLeft widens the panel by 32px, the width holds after a reload and is held so the transcript keeps 320px when the window narrows, a double-click puts the default back, at 420px there is no divider, and Esc on it closes the panel', async () => {
    const divider = page.getByRole('separator', { name: 'Changes panel width' });
    const transcript = page.locator('.transcript-pane');
    const widthOf = (locator: Locator) => locator.evaluate((element) => (element as HTMLElement).offsetWidth);
    const kept = () => page.evaluate(() => window.localStorage.getItem('bastion.changes-width'));
    const opened = await widthOf(panel());
    const transcriptOpened = await widthOf(transcript);
    expect(await kept()).toBeNull();

    const grip = await divider.boundingBox();
    if (!grip) throw new Error('the divider is not laid out');
    await page.mouse.move(grip.x, grip.y + 200);
    await page.mouse.down();
    await page.mouse.move(grip.x + 150, grip.y + 200, { steps: 5 });
    await page.mouse.up();
    expect(await widthOf(panel())).toBe(opened - 150);
    expect(await widthOf(transcript)).toBe(transcriptOpened + 150);
    expect(await kept()).toBe(String(opened - 150));

    await divider.focus();
    await page.keyboard.press('ArrowLeft');
    expect(await widthOf(panel())).toBe(opened - 118);
    await expect.poll(() => divider.getAttribute('aria-valuenow')).toBe(String(opened - 118));

    await page.reload();
    await header().getByRole('button', { name: 'Changes (2)' }).click(SETTLED);
    await panel().getByTestId('changes-summary').waitFor(SETTLED);
    expect(await widthOf(panel())).toBe(opened - 118);

    // The chat's body is 1 000px at 1280 (the session list takes 280px) and 720px at 1000: the
    // panel at its widest, and a window narrowed with it so, leave the transcript its 320px.
    await divider.focus();
    await page.keyboard.press('Home');
    expect(await widthOf(transcript)).toBe(320);
    await page.setViewportSize({ width: 1000, height: 800 });
    expect(await widthOf(transcript)).toBe(320);
    await page.setViewportSize({ width: 1280, height: 800 });

    const reset = await divider.boundingBox();
    if (!reset) throw new Error('the divider is not laid out');
    await page.mouse.dblclick(reset.x, reset.y + 200);
    expect(await widthOf(panel())).toBe(opened);
    expect(await kept()).toBeNull();

    await page.setViewportSize({ width: 420, height: 860 });
    expect(await divider.isVisible()).toBe(false);
    await page.setViewportSize({ width: 1280, height: 800 });

    // Esc on the divider closes the panel, as from within it, and the focus goes back to Changes.
    await divider.focus();
    await page.keyboard.press('Escape');
    await panel().waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Changes (2)');
    await header().getByRole('button', { name: 'Changes (2)' }).click();
    await panel().getByTestId('changes-summary').waitFor(SETTLED);
  });

  it('Esc closes the panel and gives focus back to the header’s Changes button', async () => {
    await panel().getByRole('button', { name: 'Close' }).focus();
    await page.keyboard.press('Escape');
    await panel().waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Changes (2)');
  });

  it('/changes opens the panel; a run that ends while it is open refreshes it and the header to 3 files, with one read of the changes for that run', async () => {
    await composer().fill('/changes');
    await composer().press('Enter');
    await panel().getByTestId('changes-summary').getByText('2 files changed, +2 −1').waitFor(SETTLED);
    expect(await composer().inputValue()).toBe('');
    // The read the panel made as it opened has answered before the run's is counted.
    await panel().locator('.changes-summary .muted').waitFor({ state: 'detached' });

    turns.push(
      { kind: 'tool-call', name: 'write_file', input: { path: LONG_PATH, content: 'export const allowed = [];\n' } },
      { kind: 'text', pieces: ['Wrote a third file.'] },
    );
    const readsBefore = changesReads;
    await sendMessage(page, 'Write a third file');
    await panel().getByTestId('changes-summary').getByText('3 files changed, +3 −1').waitFor(SETTLED);
    await header().getByRole('button', { name: 'Changes (3)' }).waitFor(SETTLED);
    expect(changesReads - readsBefore).toBe(1);
    expect(await diffLines(LONG_PATH, 'diff-add')).toEqual(['+export const allowed = [];']);
    await page.setViewportSize({ width: 420, height: 860 });
    await expectNoHorizontalOverflow(page);
    const path = await row(LONG_PATH).locator('.changed-path').boundingBox();
    const panelBox = await panel().boundingBox();
    expect(path && panelBox && path.x + path.width <= panelBox.x + panelBox.width).toBe(true);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('says in words that a file the user turned binary on disk has no diff, and that the patch leaves it out', async () => {
    writeFileSync(join(host.workspace, 'made.txt'), BINARY);
    await header().getByRole('button', { name: 'Changes (3)' }).click();
    await panel().waitFor({ state: 'detached' });
    await header().getByRole('button', { name: 'Changes (3)' }).click();
    await row('made.txt').getByText('No diff: it is a binary file, or was one before the session.').waitFor(SETTLED);
    expect(await row('made.txt').getByTestId('diff').count()).toBe(0);
    expect(await row('made.txt').locator('.changed-lines').count()).toBe(0);
    expect(await row('made.txt').locator('.badge').textContent()).toBe('added');
    expect(await panel().getByTestId('changes-summary').textContent()).toBe('3 files changed, +2 −1');
    await panel().getByText('The patch leaves out 1 file shown without a diff.').waitFor();
    await shotAllModes(page, SHOTS, '59-changes-no-diff');
  });

  it('notes that the session ran a command whose changes it does not show, and lists no file the command made', async () => {
    await host.client.request('PATCH', `/sessions/${sessionId}`, { mode: 'auto', consent_by: 'ui' });
    turns.push(
      { kind: 'tool-call', name: 'run_command', input: { command: 'touch', args: ['by-command.txt'] } },
      { kind: 'text', pieces: ['Ran a command.'] },
    );
    await sendMessage(page, 'Run a command');
    await page.getByText('Ran a command.').waitFor(SETTLED);
    await panel()
      .getByText('This session also ran a command; what it changed is not shown here — check git status.')
      .waitFor(SETTLED);
    expect(await panel().getByTestId('changed-file').count()).toBe(3);
    expect(await row('by-command.txt').count()).toBe(0);
    await header().getByRole('button', { name: 'Changes (3)' }).waitFor();
    await shotAllModes(page, SHOTS, '59-changes-commands');
    await expectListAndComposerInView(page, panel(), composer());
  });

  it('says in words why the changes could not be read when the daemon refuses with a code, and Try again reads them again', async () => {
    const changesUrl = `**/sessions/${sessionId}/changes`;
    await page.route(changesUrl, async (route) => {
      // The daemon's own answer (its CORS headers kept), turned into its refusal of a folder not open.
      const response = await route.fetch();
      await route.fulfill({
        response,
        status: 403,
        contentType: 'application/json',
        body: JSON.stringify({
          code: 'WORKSPACE_NOT_GRANTED',
          message: "the session's folder is not open in this Bastion",
        }),
      });
    });
    await panel().getByRole('button', { name: 'Close' }).click();
    await header().getByRole('button', { name: 'Changes (3)' }).click();
    const alert = panel().getByRole('alert');
    await alert
      .getByText('This session’s folder is not open in this Bastion, so its files cannot be read.')
      .waitFor(SETTLED);
    await page.unroute(changesUrl);
    await alert.getByRole('button', { name: 'Try again' }).click();
    await alert.waitFor({ state: 'detached' });
    expect(await panel().getByTestId('changes-summary').textContent()).toBe('3 files changed, +2 −1');
  });
});
