/// <reference lib="dom" />
/**
 * A tab reads the session's log, then follows its live stream from the last event it read
 * (Last-Event-ID); the daemon replays what came after that event, then goes on live. In real
 * Chromium with the real host and sidecar (scripted model), a second tab's stream requests are
 * held (support/held-stream.ts) while the first tab works (after the sidecar restarted, the
 * daemon's HTTP API), so events are published exactly in the gaps in question: between the tab's
 * read of the log and the start of its stream, and while its stream is away after the sidecar
 * restarted. When the held request goes on, the tab shows every event of those gaps (approval
 * questions and answers, runs started and finished, tool results) and each once. A stream cut
 * inside a reply, back only after the run's deltas were folded into one stored event (the delta
 * its cursor names gone), gets only the rest of the reply's text.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { UI_APPROVAL_ANSWER_GUARD_MS, type EventPageResponse } from '@bastion/protocol';
import type { ScriptedTurn } from '@bastion/test-support';
import type { TempHost } from '../support/temp-host.js';
import { openScriptedDesktopWorld, sendMessage, type ScriptedDesktopWorld } from './support/desktop-world.js';
import { holdStreams, type HeldStreams } from './support/held-stream.js';
import { twoCallTurns } from './support/touch-turns.js';

const turns: ScriptedTurn[] = [{ kind: 'text', pieces: ['Hello back.'] }];
let world: ScriptedDesktopWorld | undefined;
let host: TempHost;
let first: Page;
let second: Page | undefined;
let held: HeldStreams | undefined;
/** Lets the model's paused reply go on (a failed test leaves it for afterAll). */
let goOn = () => {};

beforeAll(async () => {
  world = await openScriptedDesktopWorld(turns, 'sk-stream-resume-key');
  ({ host, page: first } = world);
  await sendMessage(first, 'Hello');
  await first.getByText('Hello back.').waitFor();
}, 90_000);

afterAll(async () => {
  goOn();
  await held?.abort();
  await second?.close();
  await world?.close();
});

const question = (page: Page) => page.getByRole('region', { name: 'Approval needed' });

/** Allow on the question `page` shows now, once it is the one about `marker`'s command and its first moments are past. */
async function allow(page: Page, marker: string): Promise<void> {
  await question(page).locator('.approval-command').filter({ hasText: marker }).waitFor();
  await page.waitForTimeout(UI_APPROVAL_ANSWER_GUARD_MS + 100);
  await question(page).getByRole('button', { name: 'Allow', exact: true }).click();
}

/** The tool cards of `marker`'s command in `page`. */
const cards = (page: Page, marker: string) =>
  page.getByRole('article', { name: 'Tool run_command' }).filter({ hasText: marker });

/** How the session's newest stored event stands: a run-finished's finish reason, else its type. */
async function newestEvent(): Promise<string | undefined> {
  const page = await host.client.request<EventPageResponse>('GET', `/sessions/${world?.sessionId}/events?limit=1`);
  const event = page.body.events.at(-1)?.event;
  return event?.type === 'run-finished' ? event.finish_reason : event?.type;
}

/**
 * `message` run through the daemon's HTTP API (as the CLI or another tab would), each approval it
 * asks for allowed, to the run's end.
 */
async function runAllowingEach(message: string): Promise<void> {
  const sessionId = world?.sessionId;
  expect((await host.client.request('POST', '/agent/run', { session_id: sessionId, message })).status).toBe(202);
  await expect.poll(newestEvent).toBe('approval-pending');
  const page = await host.client.request<EventPageResponse>('GET', `/sessions/${sessionId}/events?limit=10`);
  const runStarted = page.body.events.findLastIndex(({ event }) => event.type === 'run-started');
  for (const { event } of page.body.events.slice(runStarted)) {
    if (event.type !== 'tool-approval-request') continue;
    const answer = { approval_id: event.approval_id, tool_call_id: event.tool_call_id, approved: true };
    const answered = await host.client.request('POST', '/agent/run', {
      session_id: sessionId,
      approval_answer: answer,
    });
    expect(answered.status).toBe(202);
  }
  await expect.poll(newestEvent).toBe('stop');
}

/** `page` shows the prompt `prompt`, the reply `reply` and each marker's command card exactly once, with no question. */
async function shownOnce(page: Page, prompt: string, markers: readonly string[], reply: string): Promise<void> {
  await page.getByText(reply).waitFor();
  const bubble = page.getByTestId('user-bubble').filter({ hasText: new RegExp(`^${prompt}$`) });
  // the prompt's text is read once its run-started is heard
  await bubble.waitFor();
  expect(await bubble.count()).toBe(1);
  expect(await page.getByText(reply).count()).toBe(1);
  for (const marker of markers) expect(await cards(page, marker).count()).toBe(1);
  expect(await question(page).count()).toBe(0);
  expect(await page.getByRole('alert').allTextContents()).toEqual([]);
}

it("a tab whose stream starts only after the step's two questions and the first answer were published since its read of the log asks the second, then shows the run that carries both out, each event once", async () => {
  const markers = ['gap-first', 'gap-second'] as const;
  turns.push(...twoCallTurns(markers, 'Both ran.'));
  second = await first.context().newPage();
  // Tall enough that the transcript's list renders every item: a repeat could not hide off screen.
  await second.setViewportSize({ width: 1280, height: 4000 });
  held = await holdStreams(second, { relayFirst: false });
  await second.goto(`${host.uiOrigin}/desktop/sessions/${world?.sessionId}`);
  await second.getByText('Hello back.').waitFor();
  // The tab asks for the events after the last one it read: the daemon is to replay what follows.
  await expect.poll(() => held?.heldCursors.length).toBe(1);
  expect(Number(held.heldCursors[0])).toBeGreaterThan(0);
  await sendMessage(first, 'Run both');
  await question(first).getByText('1 more after this').waitFor();
  await allow(first, markers[0]);
  await question(first).locator('.approval-command').filter({ hasText: markers[1] }).waitFor();
  expect(await question(second).count()).toBe(0);
  await held.release();
  // Heard now, from the replay: the second question, the first answered.
  await question(second).locator('.approval-command').filter({ hasText: markers[1] }).waitFor();
  expect(await question(second).getByText('more after this').count()).toBe(0);
  await expect
    .poll(() => cards(second!, markers[0]).getByTestId('tool-status').textContent())
    .toBe('allowed, not run yet');
  await allow(first, markers[1]);
  await shownOnce(second, 'Run both', markers, 'Both ran.');
  // What the tab read from the log is not repeated by the stream.
  expect(await second.getByText('Hello back.').count()).toBe(1);
  for (const marker of markers) expect(readFileSync(join(host.workspace, marker), 'utf8')).toBe('ran\n');
});

it('a tab whose stream dropped inside a reply, and reconnects only after the run ended and its deltas were folded, shows the reply once', async () => {
  const pieces = ['Alpha ', 'Beta ', 'Gamma ', 'Delta ', 'Omega.'];
  turns.push({
    kind: 'text',
    pieces,
    pauseAfter: { pieces: 2, until: new Promise<void>((resolve) => (goOn = resolve)) },
  });
  const tab = second!;
  await tab.unrouteAll();
  held = await holdStreams(tab, { relayFirst: true });
  await tab.reload();
  await tab.getByText('Both ran.').waitFor();
  await sendMessage(first, 'Say the letters');
  // The model sent two pieces and waits: the tab's stream ends after the second.
  let cut = 0;
  await expect
    .poll(async () => {
      const page = await host.client.request<EventPageResponse>('GET', `/sessions/${world?.sessionId}/events?limit=5`);
      cut = page.body.events.filter(({ event }) => event.type === 'text-delta')[1]?.id ?? 0;
      return cut;
    })
    .toBeGreaterThan(0);
  await held.cutAfter(cut);
  const reply = tab.locator('.bubble.assistant').last();
  await expect.poll(() => reply.textContent()).toBe('Alpha Beta');
  await expect.poll(() => held?.heldCursors).toEqual([String(cut)]);
  goOn();
  await first.getByText(pieces.join('')).waitFor();
  // The run's deltas are folded now: the event the tab's cursor names is stored no more.
  const stored = await host.client.request<EventPageResponse>('GET', `/sessions/${world?.sessionId}/events?limit=20`);
  expect(stored.body.events.some(({ id }) => id === cut)).toBe(false);
  await held.release();
  await tab.getByText('Omega.').waitFor();
  expect(await reply.textContent()).toBe(pieces.join(''));
});

it('a tab whose stream dropped when the sidecar restarted, and reconnects only after a whole run with two approvals, shows that run once: its prompt, its tool cards, its reply', async () => {
  const markers = ['restart-first', 'restart-second'] as const;
  turns.push(...twoCallTurns(markers, 'Ran after the restart.'));
  const tab = second!;
  await tab.unrouteAll();
  held = await holdStreams(tab, { relayFirst: false });
  await host.supervisor.restart('ui-test');
  // The tab's reconnect, with the last id it has, waits while the run goes on.
  await expect.poll(() => held?.heldCursors.length, { timeout: 30_000 }).toBe(1);
  expect(Number(held.heldCursors[0])).toBeGreaterThan(0);
  await runAllowingEach('Run both after the restart');
  expect(await tab.getByText('Ran after the restart.').count()).toBe(0);
  await held.release();
  await shownOnce(tab, 'Run both after the restart', markers, 'Ran after the restart.');
  await shownOnce(tab, 'Run both', ['gap-first', 'gap-second'], 'Both ran.');
  for (const marker of markers) expect(readFileSync(join(host.workspace, marker), 'utf8')).toBe('ran\n');
});
