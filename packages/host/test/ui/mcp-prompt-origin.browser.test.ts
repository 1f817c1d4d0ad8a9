/// <reference lib="dom" />
/**
 * An MCP server's prompt text keeps its origin through a reload of the page, in real Chromium
 * against the real host, its srt sandbox, two fixture MCP servers and a scripted model on
 * loopback: `lure`, whose prompt's text names `@other:notes://readme`, and `other`, which lists
 * that resource and notes each read in reads.log in its data folder. The prompt is run into the
 * box, the page reloaded, the text edited around and inside the word, and sent: `other` is never
 * asked for the resource (no reads.log), the model and the stored message hold none of its text,
 * and the transcript still names the prompt. A word the person types themselves after it is read.
 * The same text coming back to the box stays the server's: a queued message given back when its
 * run is stopped, the last prompt brought back by ArrowUp, the prompt /rewind puts back. There the
 * box says that its `@other:notes://readme` will not be attached, and why; a word the person types
 * into the recalled text is theirs. A message keeps which of its characters the prompt wrote: a
 * word the person had typed in it (`@mine:notes://readme`, of a third server) is read again when
 * ArrowUp or /rewind brings it back and it is sent, the prompt's word still not. Screenshots (light
 * and dark, 1280×800 and 400×560) of the note.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { lastUserText, SCRIPTED_MODEL, type ScriptedEndpoint, type ScriptedTurn } from '@bastion/test-support';
import type { Session } from '@bastion/protocol';
import { McpConfigStore } from '../../src/mcp/mcp-config-store.js';
import type { TempHost } from '../support/temp-host.js';
import { fixtureReads, mcpFixture } from '../support/mcp-fixture.js';
import { openScriptedDesktopWorld, useDesktopWorld } from './support/desktop-world.js';
import { shotAllModes, SHOTS } from './support/layout.js';

/** What the page shows after the host has done its part: a server's start takes seconds on a loaded machine. */
const SETTLED = { timeout: 45_000 };
/** The text of other's notes://readme. */
const README_TEXT = 'FIXTURE-README-7c1';
/** The text lure's prompt puts in the box. */
const LURE = 'Summarise @other:notes://readme for me.';
const fixture = mcpFixture('mcp-prompt-origin-browser-test');

const turns: ScriptedTurn[] = [];
let page: Page;
let endpoint: ScriptedEndpoint;
let host: TempHost;
let sessionId: string;
useDesktopWorld(
  async () => {
    const world = await openScriptedDesktopWorld(
      (index) => turns[index] ?? { kind: 'text', pieces: ['Done.'] },
      'sk-mcp-origin-key',
    );
    const store = new McpConfigStore(world.host.userData);
    store.add(fixture('lure', 'lure'));
    store.add(fixture('other'));
    store.add(fixture('mine'));
    return world;
  },
  (world) => ({ page, endpoint, host, sessionId } = world),
);

const composer = (): Locator => page.getByRole('combobox', { name: 'Message' });
/** Reload the page, and wait until its box knows the session's workspace (until then it reads no `@SERVER:URI`). */
async function reload(): Promise<void> {
  await page.reload();
  await expect.poll(() => composer().getAttribute('placeholder'), SETTLED).toContain('@ for files');
}
/** Runs lure's prompt from the box (/mcp__lure__lure), and waits until its text is in the box. */
async function runLurePrompt(): Promise<void> {
  await composer().fill('/mcp__lure__lure');
  await composer().press('Enter');
  await expect.poll(() => composer().inputValue(), SETTLED).toBe(LURE);
}
/** Once the last run ended: a new session's page, its box knowing the workspace; the session's id. */
async function openNewSession(): Promise<string> {
  await page.locator('.composer-actions button.danger').waitFor({ state: 'detached', ...SETTLED });
  const created = await host.client.request<Session>('POST', '/sessions', { provider: 'local', model: SCRIPTED_MODEL });
  await page.goto(`${host.uiOrigin}/desktop/sessions/${created.body.id}`);
  await expect.poll(() => composer().getAttribute('placeholder'), SETTLED).toContain('@ for files');
  return created.body.id;
}
/** /rewind run from the box and confirmed: the last prompt goes back to the box. */
async function rewindLastPrompt(): Promise<void> {
  await composer().fill('/rewind');
  await composer().press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Rewind to before this prompt?' });
  await dialog.getByRole('button', { name: 'Rewind', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
}
/** The URIs the server `other` was asked to read, in order. */
function readsOfOther(): string[] {
  return fixtureReads(host.userData, 'other');
}
/** The URIs the server `mine` (whose word the person types) was asked to read, in order. */
function readsOfMine(): string[] {
  return fixtureReads(host.userData, 'mine');
}
/**
 * Sends the box's text, `text`, and waits for the model to be asked: it is asked with `text` as
 * it stands, and `other` is asked for no resource meanwhile.
 */
async function sendExpectingNoRead(text: string): Promise<void> {
  const reads = readsOfOther().length;
  const sent = endpoint.seen.length;
  await composer().press('Enter');
  await expect.poll(() => endpoint.seen.length, SETTLED).toBeGreaterThan(sent);
  expect(lastUserText(endpoint.seen)).toBe(text);
  expect(readsOfOther().length).toBe(reads);
}
/** Every message content and part the session (`session`, else the page's first) has stored, as one text. */
function storedText(session = sessionId): string {
  const db = new Database(join(host.userData, 'sessions.db'), { readonly: true });
  try {
    const rows = db
      .prepare(
        `SELECT content AS text FROM messages WHERE session_id = ?
         UNION ALL SELECT data AS text FROM message_parts WHERE session_id = ?`,
      )
      .all(session, session) as { text: string | null }[];
    return rows.map((row) => row.text ?? '').join('\n');
  } finally {
    db.close();
  }
}

/**
 * Sends "Wait a moment" once the last run ended, its answer held: a run goes until the returned
 * release; the model's requests before it are `before`.
 */
async function startHeldRun(): Promise<{ release: () => void; before: number }> {
  await page.locator('.composer-actions button.danger').waitFor({ state: 'detached', ...SETTLED });
  turns.length = endpoint.seen.length;
  let release = (): void => undefined;
  turns.push({ kind: 'text', pieces: ['Held.'], hold: new Promise<void>((resolve) => (release = resolve)) });
  const before = endpoint.seen.length;
  await composer().fill('Wait a moment');
  await composer().press('Enter');
  await expect.poll(() => endpoint.seen.length, SETTLED).toBe(before + 1);
  return { release, before };
}

describe('an MCP prompt’s text after a reload', () => {
  it('a prompt’s text naming @other:notes://readme, edited after a reload and sent, never reaches other’s resources/read, and neither the model nor the stored message holds the resource', async () => {
    await runLurePrompt();
    await reload();
    await expect.poll(() => composer().inputValue(), SETTLED).toBe(LURE);
    // The person edits: the word's end ("readme" made "readme," then back, a sentence's comma
    // after it) and a word of their own before the rest.
    await composer().focus();
    await composer().press('End');
    for (let step = 0; step < ' for me.'.length; step += 1) await composer().press('ArrowLeft');
    await composer().pressSequentially(', quickly');
    const edited = 'Summarise @other:notes://readme, quickly for me.';
    await expect.poll(() => composer().inputValue()).toBe(edited);
    await reload();
    await expect.poll(() => composer().inputValue(), SETTLED).toBe(edited);
    const before = endpoint.seen.length;
    await composer().press('Enter');
    await expect.poll(() => endpoint.seen.length, SETTLED).toBeGreaterThan(before);
    await page.getByText('Done.').waitFor(SETTLED);
    expect(lastUserText(endpoint.seen)).toBe(edited);
    expect(readsOfOther()).toEqual([]);
    expect(storedText()).toContain(edited);
    expect(storedText()).not.toContain(README_TEXT);
    await page.locator('.mcp-prompt-origin').getByText('From the prompt lure of the MCP server lure').waitFor();
  });

  it('after a reload the box still names the prompt its text came from', async () => {
    await page.locator('.composer-actions button.danger').waitFor({ state: 'detached', ...SETTLED });
    await runLurePrompt();
    await reload();
    await expect
      .poll(() => page.locator('#composer-prompt-note').textContent(), SETTLED)
      .toBe('From the prompt lure of the MCP server lure: not sent yet, Enter sends it.');
    await composer().fill('');
  });

  it('the same word typed by the person after a reload is theirs: other’s readme is read and goes with the message', async () => {
    await page.locator('.composer-actions button.danger').waitFor({ state: 'detached', ...SETTLED });
    await runLurePrompt();
    await reload();
    await composer().focus();
    await composer().press('End');
    await composer().pressSequentially(' Also @other:notes://readme please');
    const before = endpoint.seen.length;
    const reads = readsOfOther().length;
    await composer().press('Enter');
    await expect.poll(() => endpoint.seen.length, SETTLED).toBeGreaterThan(before);
    expect(readsOfOther().slice(reads)).toEqual(['notes://readme']);
    expect(lastUserText(endpoint.seen)).toContain(README_TEXT);
  });

  /**
   * Behind a run held until it is stopped, `fill` puts lure's text in the box and it is queued;
   * the run is stopped, and the queued text comes back to the box.
   */
  async function queueLureAndStop(fill: () => Promise<void>): Promise<void> {
    const { release } = await startHeldRun();
    await fill();
    await composer().press('Enter');
    const queued = page.getByRole('status', { name: 'Queued', exact: true });
    await expect.poll(() => queued.locator('.queued-text').textContent(), SETTLED).toBe(LURE);
    await page.locator('.composer-actions button.danger').click();
    // Released once the run has stopped: released before, its answer could finish the run first, which sends the queue.
    await page.locator('.composer-actions button.danger').waitFor({ state: 'detached', ...SETTLED });
    release();
    await expect.poll(() => composer().inputValue(), SETTLED).toBe(LURE);
  }

  it('a prompt’s text queued while a run goes and given back to the box when the run is stopped attaches nothing when sent, after a reload too', async () => {
    await queueLureAndStop(runLurePrompt);
    await reload();
    await expect.poll(() => composer().inputValue(), SETTLED).toBe(LURE);
    await sendExpectingNoRead(LURE);
  });

  it('a prompt’s text queued with spaces typed before and after it, given back to the box when the run is stopped, attaches nothing when sent', async () => {
    await queueLureAndStop(async () => {
      await runLurePrompt();
      // Trimmed at both ends when queued: the prompt's characters must move with the text, not be lost.
      await composer().press('Home');
      await composer().pressSequentially('  ');
      await composer().press('End');
      await composer().pressSequentially('  ');
    });
    await sendExpectingNoRead(LURE);
  });

  it('the last prompt, from the lure prompt, brought back by ArrowUp is the server’s: sent after a reload, other is not read', async () => {
    await page.locator('.composer-actions button.danger').waitFor({ state: 'detached', ...SETTLED });
    await composer().fill('');
    await composer().press('ArrowUp');
    await expect.poll(() => composer().inputValue()).toBe(LURE);
    await reload();
    await expect.poll(() => composer().inputValue(), SETTLED).toBe(LURE);
    await sendExpectingNoRead(LURE);
  });

  it('the prompt /rewind puts back in the box, from the lure prompt, is the server’s: sent, other is not read', async () => {
    await page.locator('.composer-actions button.danger').waitFor({ state: 'detached', ...SETTLED });
    await rewindLastPrompt();
    await expect.poll(() => composer().inputValue(), SETTLED).toBe(LURE);
    await sendExpectingNoRead(LURE);
  });
});

describe('an MCP prompt’s text brought back by ArrowUp, in a session of its own', () => {
  const note = (): Locator => page.locator('#composer-unattached-note');
  /** A new session's page, with lure's prompt sent there once (other not read); its id and the model's requests before it. */
  async function sessionWithLureSent(): Promise<{ id: string; firstRequest: number }> {
    const id = await openNewSession();
    const firstRequest = endpoint.seen.length;
    await runLurePrompt();
    await sendExpectingNoRead(LURE);
    await page.locator('.composer-actions button.danger').waitFor({ state: 'detached', ...SETTLED });
    return { id, firstRequest };
  }

  it('the box says the recalled @other:notes://readme will not be attached, and why; sent again, other is not read and neither the model’s requests nor the session’s stored rows hold the readme', async () => {
    const { id, firstRequest } = await sessionWithLureSent();
    const reads = readsOfOther().length;
    await composer().press('ArrowUp');
    await expect.poll(() => composer().inputValue()).toBe(LURE);
    await expect
      .poll(() => note().textContent(), SETTLED)
      .toBe(
        'Not attached: @other:notes://readme — the MCP server lure’s prompt wrote it. Type it yourself or choose it in the @ menu.',
      );
    expect(await composer().getAttribute('aria-describedby')).toContain('composer-unattached-note');
    await shotAllModes(page, SHOTS, '97-mcp-recalled-unattached-note', composer(), [
      { width: 1280, height: 800 },
      { width: 400, height: 560 },
    ]);
    await sendExpectingNoRead(LURE);
    await page.locator('.composer-actions button.danger').waitFor({ state: 'detached', ...SETTLED });
    expect(readsOfOther().length).toBe(reads);
    expect(JSON.stringify(endpoint.seen.slice(firstRequest))).not.toContain(README_TEXT);
    expect(storedText(id)).toContain(LURE);
    expect(storedText(id)).not.toContain(README_TEXT);
  });

  it('a prompt’s text queued and joined by a message the person queued after it, sent as one when the run ends, is still the server’s when ArrowUp brings it back: sent again, other is not read', async () => {
    await openNewSession();
    const { release, before } = await startHeldRun();
    await runLurePrompt();
    await composer().press('Enter');
    await composer().fill('And list the files.');
    await composer().press('Enter');
    const joined = `${LURE}\n\nAnd list the files.`;
    const queued = page.getByRole('status', { name: 'Queued', exact: true });
    await expect.poll(() => queued.locator('.queued-text').textContent(), SETTLED).toBe(joined);
    const reads = readsOfOther().length;
    release();
    await expect.poll(() => endpoint.seen.length, SETTLED).toBe(before + 2);
    expect(lastUserText(endpoint.seen)).toBe(joined);
    expect(readsOfOther().length).toBe(reads);
    await page.locator('.composer-actions button.danger').waitFor({ state: 'detached', ...SETTLED });
    await composer().press('ArrowUp');
    await expect.poll(() => composer().inputValue()).toBe(joined);
    await sendExpectingNoRead(joined);
  });

  it('a word the person types into the text ArrowUp brought back is theirs: other’s readme is read and goes with the message, and the note names only the server’s word', async () => {
    await sessionWithLureSent();
    await composer().press('ArrowUp');
    await expect.poll(() => composer().inputValue()).toBe(LURE);
    await composer().press('End');
    await composer().pressSequentially(' And @other:notes://readme too');
    await expect
      .poll(() => note().locator('code').allTextContents(), SETTLED)
      .toEqual(['@other:notes://readme', 'lure']);
    const reads = readsOfOther().length;
    const before = endpoint.seen.length;
    await composer().press('Enter');
    await expect.poll(() => endpoint.seen.length, SETTLED).toBeGreaterThan(before);
    expect(readsOfOther().slice(reads)).toEqual(['notes://readme']);
    expect(lastUserText(endpoint.seen)).toContain(README_TEXT);
  });
});

describe('a message with a word the person typed after the prompt’s text, brought back', () => {
  const OWN = ' And @mine:notes://readme too';
  const SENT = `${LURE}${OWN}`;
  /** What a request of the model carries when `server`'s readme was attached to its message. */
  const attachedBy = (server: string) => `of the MCP server ${server}; its text follows.`;
  /** In a new session: lure's prompt run, the person's word typed after it, sent (mine read, other not). */
  async function sessionWithOwnWordSent(): Promise<string> {
    const id = await openNewSession();
    await runLurePrompt();
    await composer().press('End');
    await composer().pressSequentially(OWN);
    const [mine, other] = [readsOfMine().length, readsOfOther().length];
    const before = endpoint.seen.length;
    await composer().press('Enter');
    await expect.poll(() => endpoint.seen.length, SETTLED).toBeGreaterThan(before);
    expect([readsOfMine().slice(mine), readsOfOther().length]).toEqual([['notes://readme'], other]);
    await page.locator('.composer-actions button.danger').waitFor({ state: 'detached', ...SETTLED });
    return id;
  }
  /**
   * Sends the box's text, SENT, brought back: mine's readme is read and goes with it, other is not
   * asked, and neither the model's requests nor the session's stored rows hold other's readme.
   */
  async function sendBroughtBack(sessionId: string): Promise<void> {
    const [mine, other] = [readsOfMine().length, readsOfOther().length];
    const before = endpoint.seen.length;
    const stored = storedText(sessionId).split('"kind":"resource","server":"mine"').length;
    await composer().press('Enter');
    await expect.poll(() => endpoint.seen.length, SETTLED).toBeGreaterThan(before);
    await page.locator('.composer-actions button.danger').waitFor({ state: 'detached', ...SETTLED });
    expect(readsOfMine().slice(mine)).toEqual(['notes://readme']);
    expect(readsOfOther().length).toBe(other);
    const requests = JSON.stringify(endpoint.seen.slice(before));
    expect(requests).toContain(attachedBy('mine'));
    expect(requests).not.toContain(attachedBy('other'));
    expect(storedText(sessionId).split('"kind":"resource","server":"mine"').length).toBe(stored + 1);
    expect(storedText(sessionId)).not.toContain('"kind":"resource","server":"other"');
  }

  it('brought back by ArrowUp, the word the person typed is theirs again: sent, mine’s readme is read and goes with it, and other’s is not read, sent to the model or stored', async () => {
    const id = await sessionWithOwnWordSent();
    await composer().press('ArrowUp');
    await expect.poll(() => composer().inputValue()).toBe(SENT);
    await expect
      .poll(() => page.locator('#composer-unattached-note code').allTextContents(), SETTLED)
      .toEqual(['@other:notes://readme', 'lure']);
    await sendBroughtBack(id);
  });

  it('put back by /rewind, the word the person typed is theirs again: sent, mine’s readme is read and goes with it, and other’s is not read, sent to the model or stored', async () => {
    const id = await sessionWithOwnWordSent();
    await rewindLastPrompt();
    await expect.poll(() => composer().inputValue(), SETTLED).toBe(SENT);
    await expect
      .poll(() => page.locator('#composer-unattached-note code').allTextContents(), SETTLED)
      .toEqual(['@other:notes://readme', 'lure']);
    await sendBroughtBack(id);
  });
});
