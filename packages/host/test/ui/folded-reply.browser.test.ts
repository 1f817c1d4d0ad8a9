/// <reference lib="dom" />
/**
 * A reply stored once (issue 16 §5) still shows whole in real Chromium: a 1 MiB reply streamed as
 * 4 096 deltas and folded into its message after the run (storage/delta-fold.ts: the stored events
 * point at the message's text) opens in a fresh page with every character, in order.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openDatabase, SessionStore } from '@bastion/daemon/testing';
import type { TempHost } from '../support/temp-host.js';
import { openSeededDesktop, type SeededDesktop } from './support/desktop-world.js';

const PIECES = 4_096;
const piece = (i: number) => `${String(i).padStart(6, '0')}:${'x'.repeat(248)}\n`;
const REPLY = Array.from({ length: PIECES }, (_, i) => piece(i)).join('');

let host: TempHost;
let page: Page;
let sessionId: string;
let foldedEvents: number;

/** The run as the daemon records it: its deltas, then its assistant message, then its end (the fold). */
function seedFoldedReply(userData: string): void {
  const db = openDatabase(join(userData, 'sessions.db'));
  try {
    const store = new SessionStore(db);
    const session = store.sessions.create({ provider: 'demo', model: 'demo', workspace: null, title: 'Folded' });
    sessionId = session.id;
    const { runId } = store.runs.start(session.id, {
      provider: 'demo',
      model: 'demo',
      userContent: [{ role: 'user', content: [{ type: 'text', text: 'write a lot' }] }],
    });
    for (let i = 0; i < PIECES; i++)
      store.runs.appendEvent(session.id, { type: 'text-delta', run_id: runId, text: piece(i) });
    store.transcript.append(session.id, runId, [{ role: 'assistant', content: [{ type: 'text', text: REPLY }] }]);
    store.runs.finish(session.id, runId, 'finished', { type: 'run-finished', run_id: runId, finish_reason: 'stop' });
    foldedEvents = db
      .prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM message_parts WHERE ref_message IS NOT NULL')
      .get()?.n as number;
  } finally {
    db.close();
  }
}

let desktop: SeededDesktop | undefined;
beforeAll(async () => {
  desktop = await openSeededDesktop('bastion-folded-', seedFoldedReply);
  ({ host, page } = desktop);
}, 120_000);

afterAll(() => desktop?.close());

it('a 1 MiB reply folded into its message after the run shows whole, in order, in a fresh page', async () => {
  // the reply is stored as a few folded events, not 4 096 deltas
  expect(foldedEvents).toBeGreaterThan(1);
  expect(foldedEvents).toBeLessThan(PIECES / 100);
  await page.goto(`${host.uiOrigin}/desktop/sessions/${sessionId}`);
  const bubble = page.locator('.bubble.assistant');
  await bubble.waitFor({ timeout: 60_000 });
  // The reply's text, without the note saying it is shown as written (too long to format).
  const shown = await bubble.evaluate((element) => {
    const copy = element.cloneNode(true) as Element;
    copy.querySelectorAll('.plain-note').forEach((note) => note.remove());
    return copy.textContent ?? '';
  });
  expect(await bubble.locator('.plain-note').textContent()).toBe('Shown as written: this reply is too long to format.');
  // Every character in order; the reply's closing newline is not drawn (a text run ends trimmed).
  expect(shown.length).toBe(REPLY.trimEnd().length);
  expect(shown === REPLY.trimEnd()).toBe(true);
});
