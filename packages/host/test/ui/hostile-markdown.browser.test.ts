/// <reference lib="dom" />
/**
 * `resource-exhaustion`: replies a model can write whose markdown would take the page down. Three
 * stored replies (a list nested 3 000 deep, a quote nested 10 000 deep: the parser overflowed its
 * stack and, with no boundary, blanked the whole app on every open of the session; `*a` repeated
 * to 100 KB: the parser held the tab about 24 s) open in real Chromium as their plain text, with
 * the session's header and the message box there.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openDatabase, SessionStore } from '@bastion/daemon/testing';
import { describeAttack } from '../../../../test/support/attack.js';
import type { TempHost } from '../support/temp-host.js';
import { openSeededDesktop, type SeededDesktop } from './support/desktop-world.js';

const REPLIES = ['- '.repeat(3_000) + 'deep list end', '>'.repeat(10_000) + ' deep quote end', '*a'.repeat(50_000)];

let host: TempHost;
let page: Page;
let sessionId: string;

/** One session holding a run for each reply, as the daemon records it. */
function seed(userData: string): void {
  const db = openDatabase(join(userData, 'sessions.db'));
  try {
    const store = new SessionStore(db);
    sessionId = store.sessions.create({ provider: 'demo', model: 'demo', workspace: null, title: 'Hostile' }).id;
    for (const reply of REPLIES) {
      const { runId } = store.runs.start(sessionId, {
        provider: 'demo',
        model: 'demo',
        userContent: [{ role: 'user', content: [{ type: 'text', text: 'reply' }] }],
      });
      store.runs.appendEvent(sessionId, { type: 'text-delta', run_id: runId, text: reply });
      store.transcript.append(sessionId, runId, [{ role: 'assistant', content: [{ type: 'text', text: reply }] }]);
      store.runs.finish(sessionId, runId, 'finished', { type: 'run-finished', run_id: runId, finish_reason: 'stop' });
    }
  } finally {
    db.close();
  }
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
    const shown = await bubbles.evaluateAll((elements) => elements.map((element) => element.textContent ?? ''));
    expect(shown.map((text) => text.trim())).toEqual(REPLIES.map((reply) => reply.trim()));
    await expect.poll(() => page.locator('.chat-head').count()).toBe(1);
    expect(await page.getByRole('combobox', { name: 'Message' }).isEditable()).toBe(true);
    expect(errors).toEqual([]);
  });
});
