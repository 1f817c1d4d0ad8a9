/// <reference lib="dom" />
/**
 * The change a file tool would make, shown on its approval card, in real Chromium with the real
 * host and sidecar (scripted model) on an accept-edits session with "Ask before file edits" on:
 * an edit_file's and a write_file's card holds the daemon's diff against the file as it is, its
 * removed and added lines; at 400×560 the card's heading, the file's path, the diff's first lines,
 * Allow and Deny are in view, and the message box too; a long diff is folded past
 * UI_APPROVAL_DIFF_FOLD_LINES behind "Show all" and scrolls in its own box, the answers still in view;
 * a file the daemon cannot diff (binary) says so in one line. Deny leaves each file as it was.
 * Screenshots go to test-output/ui/.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { UI_APPROVAL_DIFF_FOLD_LINES, type Session } from '@bastion/protocol';
import type { ScriptedTurn } from '@bastion/test-support';
import type { TempHost } from '../support/temp-host.js';
import { openScriptedDesktopWorld, useDesktopWorld, sendMessage } from './support/desktop-world.js';
import { expectInViewport, expectUncoveredInView, shotAllModes, SHOTS } from './support/layout.js';

const NARROW = { width: 400, height: 560 };

const turns: ScriptedTurn[] = [];
let host: TempHost;
let page: Page;
let sessionId: string;

useDesktopWorld(
  () => openScriptedDesktopWorld(turns, 'sk-approval-diff-test-key'),
  (opened) => ({ host, page, sessionId } = opened),
);

/** The session in accept-edits with "Ask before file edits" on, the page showing it so. */
async function askBeforeEdits(): Promise<void> {
  await host.client.request('PATCH', `/sessions/${sessionId}`, { mode: 'accept-edits', ask_before_writes: true });
  await expect
    .poll(async () => (await host.client.request<Session>('GET', `/sessions/${sessionId}`)).body)
    .toMatchObject({ mode: 'accept-edits', ask_before_writes: true });
  await page.reload();
  await page.getByLabel('Ask before file edits').waitFor();
  expect(await page.getByLabel('Ask before file edits').isChecked()).toBe(true);
}

/** Asks the scripted agent for `call`, then waits for its approval card; the card. */
async function askFor(call: { name: string; input: Record<string, unknown> }, reply: string): Promise<Locator> {
  turns.push({ kind: 'tool-call', ...call }, { kind: 'text', pieces: [reply] });
  await sendMessage(page, `Please ${call.name}`);
  const region = page.getByRole('region', { name: 'Approval needed' });
  await region.getByRole('heading').waitFor();
  return region;
}

/** Denies the card's call and waits for the run's reply. */
async function deny(region: Locator, reply: string): Promise<void> {
  await region.getByRole('button', { name: 'Deny' }).click();
  await region.waitFor({ state: 'detached' });
  await page.getByText(reply).waitFor();
  await page.locator('.composer-actions button.danger').waitFor({ state: 'detached' });
}

/**
 * Fails unless the card's heading, the file's path, its diff's hunk header and first removed line,
 * Allow and Deny are each wholly in view and uncovered, and the message box wholly in view.
 */
async function expectAnswerableInView(region: Locator): Promise<void> {
  const diff = region.getByTestId('diff');
  for (const [what, part] of [
    ['the heading', region.getByRole('heading')],
    ['the path', region.locator('.approval-command')],
    ['the diff’s hunk header', diff.locator('.diff-hunk').first()],
    ['the diff’s first removed line', diff.locator('.diff-del').first()],
    ['Allow', region.getByRole('button', { name: 'Allow', exact: true })],
    ['Deny', region.getByRole('button', { name: 'Deny' })],
  ] as const) {
    await expectUncoveredInView(page, part, `${what} at 400×560`);
  }
  await expectInViewport(page, page.getByLabel('Message'), 'the message box at 400×560');
}

/** Screenshots of the page as it is at 400×560, light and dark. */
async function shotNarrow(name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: `${SHOTS}${name}-400x560-${scheme}.png` });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

describe('a file change’s diff on its approval card', () => {
  // A test that failed with its question still waiting denies it, so the next one's run can start.
  afterEach(async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    const region = page.getByRole('region', { name: 'Approval needed' });
    if ((await region.count()) === 0) return;
    await region.getByRole('button', { name: 'Deny' }).click();
    await page.locator('.composer-actions button.danger').waitFor({ state: 'detached' });
  });

  it('edit_file: the card shows the removed and added lines of the daemon’s diff; at 400×560 its heading, path, the diff’s first lines, Allow, Deny and the message box are each wholly in view and uncovered; Deny leaves the file', async () => {
    await askBeforeEdits();
    writeFileSync(join(host.workspace, 'greet.txt'), 'hello world\nsecond line\n');
    const region = await askFor(
      { name: 'edit_file', input: { path: 'greet.txt', old_string: 'hello world', new_string: 'hello there' } },
      'Left greet.txt alone.',
    );
    const diff = region.getByTestId('diff');
    expect(await diff.locator('.diff-del').allTextContents()).toEqual(['-hello world\n']);
    expect(await diff.locator('.diff-add').allTextContents()).toEqual(['+hello there\n']);
    // The daemon's diff against the file as it is: the unchanged line after it is context.
    expect(await diff.locator('.diff-ctx').allTextContents()).toEqual([' second line\n']);
    expect(await region.getByTestId('approval-no-diff').count()).toBe(0);
    await shotAllModes(page, SHOTS, 'approval-diff-edit', region);

    await page.setViewportSize(NARROW);
    try {
      await expectAnswerableInView(region);
      await shotNarrow('approval-diff-edit');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    await deny(region, 'Left greet.txt alone.');
    expect(readFileSync(join(host.workspace, 'greet.txt'), 'utf8')).toBe('hello world\nsecond line\n');
    rmSync(join(host.workspace, 'greet.txt'));
  });

  it(`write_file over a long file: the card shows its removed and added lines, folded past ${UI_APPROVAL_DIFF_FOLD_LINES} behind "Show all", and the diff scrolls inside its own box (the card no taller) while at 400×560 the heading, path, diff’s first line, Allow, Deny and the message box stay in view; Deny leaves the file`, async () => {
    const lines = (word: string) => Array.from({ length: 120 }, (_, i) => `${word} ${i}`).join('\n') + '\n';
    writeFileSync(join(host.workspace, 'long.txt'), lines('old'));
    const region = await askFor(
      { name: 'write_file', input: { path: 'long.txt', content: lines('new') } },
      'Left long.txt alone.',
    );
    const diff = region.getByTestId('diff');
    // Every old line removed, then every new one added: folded, only the first removals show (the
    // diff's ---/+++ header among its first lines, not shown as rows).
    expect(await diff.locator('.diff-del').first().textContent()).toBe('-old 0\n');
    expect(await diff.locator('.diff-row').count()).toBe(UI_APPROVAL_DIFF_FOLD_LINES - 2);
    expect(await diff.locator('.diff-add').count()).toBe(0);
    const showAll = diff.getByRole('button', { name: /^Show all \d+ lines$/ });
    expect(await showAll.getAttribute('aria-expanded')).toBe('false');

    await page.setViewportSize(NARROW);
    try {
      const cardHeight = async () => (await region.boundingBox())?.height ?? 0;
      const folded = await cardHeight();
      await showAll.click();
      expect(await diff.locator('.diff-del').count()).toBe(120);
      expect(await diff.locator('.diff-add').count()).toBe(120);
      expect(await diff.locator('.diff-add').first().textContent()).toBe('+new 0\n');
      // All of it inside the card's own bound: the diff's box scrolls, the card grew no taller.
      expect(await cardHeight()).toBe(folded);
      const box = diff.locator('.diff-body');
      const scroll = await box.evaluate((element) => ({ height: element.clientHeight, content: element.scrollHeight }));
      expect(scroll.content).toBeGreaterThan(scroll.height * 4);
      await expectAnswerableInView(region);
      // Scrolled in its box, the diff's last line comes into view; the answers have not moved.
      const denyBefore = await region.getByRole('button', { name: 'Deny' }).boundingBox();
      await box.evaluate((element) => element.scrollTo({ top: element.scrollHeight }));
      await expectUncoveredInView(page, diff.locator('.diff-add').last(), 'the diff’s last line, scrolled to');
      expect(await region.getByRole('button', { name: 'Deny' }).boundingBox()).toEqual(denyBefore);
      await shotNarrow('approval-diff-long');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    await shotAllModes(page, SHOTS, 'approval-diff-long', region);
    await deny(region, 'Left long.txt alone.');
    expect(readFileSync(join(host.workspace, 'long.txt'), 'utf8')).toBe(lines('old'));
    rmSync(join(host.workspace, 'long.txt'));
  });

  it('write_file over a binary file (no diff from the daemon): the card says in one line that there is no preview, and shows no diff', async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]);
    writeFileSync(join(host.workspace, 'logo.png'), bytes);
    const region = await askFor(
      { name: 'write_file', input: { path: 'logo.png', content: 'not a picture\n' } },
      'Left logo.png alone.',
    );
    const note = region.getByTestId('approval-no-diff');
    expect(await note.textContent()).toBe(
      'No preview: the file is binary or too large to compare, or the edit does not match it.',
    );
    expect(await region.getByTestId('diff').count()).toBe(0);
    await shotAllModes(page, SHOTS, 'approval-diff-none', region);
    await deny(region, 'Left logo.png alone.');
    expect(readFileSync(join(host.workspace, 'logo.png'))).toEqual(bytes);
    rmSync(join(host.workspace, 'logo.png'));
  });
});
