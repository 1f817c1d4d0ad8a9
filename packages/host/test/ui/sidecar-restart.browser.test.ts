/// <reference lib="dom" />
/**
 * The page while the sidecar is being replaced (a restart; a folder granted restarts it too), in
 * real Chromium against the real host and sidecar processes (demo model). The new sidecar's launch
 * waits until the test lets it go, so the gap between the old one's end and the new one's
 * readiness, where the host refuses every connection unread, lasts as long as the test needs; a
 * request of the page held by the test is let go into it. A read (a GET, the handshake) sent into
 * the gap is asked once more and answered by the new sidecar: the page does not say Bastion is not
 * running, and a message sent meanwhile goes through, once. The page's send carries a send id,
 * so sent into the gap, or stored with its answer lost, it is asked once more and stored once. A
 * send without an id is not sent again (it could have reached a sidecar that died with it): it
 * fails UNREACHABLE and nothing is stored. A sidecar that cannot be
 * started again (its launches fail) is said to be not running, a send then keeps its message, and
 * once a sidecar runs again the message goes, once. (Before, a read sent into
 * the gap failed UNREACHABLE and its alert stayed; a failed handshake had the page say Bastion is
 * not running, and ignore Enter, until its next check: the unsent message left in the box that
 * stream-resume.browser saw.)
 */
import { afterEach, expect, it } from 'vitest';
import type { Page, Route } from 'playwright-core';
import type { EventPageResponse, MessageListResponse, Session } from '@bastion/protocol';
import { plainLauncher, type SidecarLauncher } from '../../src/supervisor/sidecar-launcher.js';
import type { TempHost } from '../support/temp-host.js';
import { createDemoSession, openDesktopWorld, sendMessage, useDesktopWorld } from './support/desktop-world.js';
import { SHOTS } from './support/layout.js';

/** Lets the launch of the next sidecar go on; set by `intoTheGap`. */
let launchNext = () => {};
let launchHeld: Promise<void> | undefined;
/** While set, every launch fails (the sidecar cannot be started again). */
let launchFails = false;
const launcher: SidecarLauncher = async (entry) => {
  await launchHeld;
  if (launchFails) throw Object.assign(new Error('the test keeps the sidecar down'), { code: 'TEST_LAUNCHER_FAILED' });
  return plainLauncher(entry);
};
const capabilities = { sandbox: 'none', shell: false, platform: 'linux', reason: 'test launcher' } as const;

let host: TempHost;
let page: Page;
useDesktopWorld(
  () => openDesktopWorld({ launcher, capabilities }),
  (opened) => ({ host, page } = opened),
);

afterEach(async () => {
  launchFails = false;
  launchNext();
  await page.unrouteAll();
});

const count = (event: string, reason?: string) =>
  host.records.filter((record) => record.event === event && (reason === undefined || record.fields.reason === reason))
    .length;

/** The next page request `matches` picks, held until `go()` lets it go on to the network. */
async function holdNext(matches: (url: URL) => boolean): Promise<{ held: Promise<void>; go: () => Promise<void> }> {
  let reached = () => {};
  const held = new Promise<void>((resolve) => (reached = resolve));
  let route: Route | undefined;
  await page.route(matches, async (next) => {
    if (route !== undefined) return next.continue();
    route = next;
    reached();
  });
  return { held, go: async () => route?.continue() };
}

/**
 * Replaces the sidecar with the next launch held, lets `go` send a held request into the gap and
 * waits until the host refused its connection. `restarted` lets the launch go and waits for the
 * new sidecar.
 */
async function intoTheGap(go: () => Promise<void>): Promise<{ restarted: () => Promise<void> }> {
  launchHeld = new Promise((resolve) => (launchNext = resolve));
  const exited = count('sidecar.exited');
  const refused = count('socket.refused', 'sidecar-not-ready');
  const restarting = host.supervisor.restart('ui-test');
  await expect.poll(() => count('sidecar.exited')).toBe(exited + 1);
  await go();
  await expect.poll(() => count('socket.refused', 'sidecar-not-ready')).toBeGreaterThan(refused);
  return {
    restarted: async () => {
      launchNext();
      await restarting;
    },
  };
}

/** A new demo session, open in the page once all it reads is shown. */
async function openNewSession(title: string): Promise<string> {
  const sessionId = await createDemoSession(host, title);
  await page.goto(`${host.uiOrigin}/desktop/sessions/${sessionId}`);
  await page.locator('.chat-head').getByText('offline demo model').first().waitFor();
  await page
    .getByRole('complementary', { name: 'Sessions' })
    .locator('li.session')
    .filter({ hasText: title })
    .waitFor();
  await page.getByRole('status', { name: 'Security posture' }).filter({ hasText: 'Not sandboxed' }).waitFor();
  await expect.poll(() => box().getAttribute('placeholder')).toContain('/ for commands');
  return sessionId;
}

const box = () => page.getByRole('combobox', { name: 'Message' });

/** From now on, the text of every alert the page shows, even for a moment; `alertsShown()` reads them. */
async function recordAlerts(): Promise<void> {
  await page.evaluate(() => {
    const shown: string[] = [];
    Object.assign(window, { alertsShown: shown });
    new MutationObserver(() => {
      document.querySelectorAll('[role=alert]').forEach((alert) => shown.push(alert.textContent ?? ''));
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

const alertsShown = () => page.evaluate(() => (window as unknown as { alertsShown: string[] }).alertsShown);

async function userMessages(sessionId: string): Promise<number> {
  const messages = await host.client.request<MessageListResponse>('GET', `/sessions/${sessionId}/messages?limit=100`);
  return messages.body.messages.filter((message) => message.role === 'user').length;
}

async function runsStarted(sessionId: string): Promise<number> {
  const events = await host.client.request<EventPageResponse>('GET', `/sessions/${sessionId}/events?limit=100`);
  return events.body.events.filter(({ event }) => event.type === 'run-started').length;
}

it('a read sent as the sidecar was being replaced, refused by the host, is asked again and answered by the new sidecar', async () => {
  const sessionId = await createDemoSession(host, 'Read across the restart');
  const read = await holdNext((url) => url.pathname === `/sessions/${sessionId}`);
  const title = page.evaluate(
    (id) =>
      window.bastion!.sessions.get(id).then(
        (session: Session) => session.title,
        (failure: { code?: string }) => `failed: ${failure.code}`,
      ),
    sessionId,
  );
  await read.held;
  const gap = await intoTheGap(read.go);
  await gap.restarted();
  expect(await title).toBe('Read across the restart');
});

it('a handshake sent as the sidecar was being replaced is asked again: the page shows no alert at any moment (none saying Bastion is not running), and a message sent meanwhile goes through once', async () => {
  // The home page: no stream of a session, whose drop would have the page ask again anyway.
  await page.goto(`${host.uiOrigin}/desktop/`);
  await page.getByRole('status', { name: 'Security posture' }).filter({ hasText: 'Not sandboxed' }).waitFor();
  await recordAlerts();
  const handshake = await holdNext((url) => url.pathname === '/handshake');
  await handshake.held;
  const failed = page.waitForEvent('requestfailed', (request) => new URL(request.url()).pathname === '/handshake');
  const gap = await intoTheGap(handshake.go);
  await failed;
  await box().fill('ls');
  await box().press('Enter');
  await gap.restarted();
  await page.getByTestId('user-bubble').filter({ hasText: /^ls$/ }).waitFor();
  const sessionId = /\/desktop\/sessions\/([^/]+)$/.exec(new URL(page.url()).pathname)?.[1];
  expect(await runsStarted(sessionId ?? '')).toBe(1);
  expect(await alertsShown()).toEqual([]);
});

it('a send of the page sent as the sidecar was being replaced is asked again with its send id and stored once: one user message, one run, the box emptied, no alert', async () => {
  const sessionId = await openNewSession('Send across the restart');
  const run = await holdNext((url) => url.pathname === '/agent/run');
  await sendMessage(page, 'ls');
  await run.held;
  const gap = await intoTheGap(run.go);
  await gap.restarted();
  await page.getByTestId('user-bubble').filter({ hasText: /^ls$/ }).waitFor();
  expect(await box().inputValue()).toBe('');
  await expect.poll(() => runsStarted(sessionId)).toBe(1);
  expect(await userMessages(sessionId)).toBe(1);
  expect(await page.getByRole('alert').allTextContents()).toEqual([]);
});

it('a send of the page stored by the sidecar whose answer never reached the page is asked again and answered with the first run: one user message, one run', async () => {
  const sessionId = await openNewSession('Answer lost');
  const bodies: string[] = [];
  await page.route(
    (url) => url.pathname === '/agent/run',
    async (route) => {
      bodies.push(route.request().postData() ?? '');
      if (bodies.length > 1) return route.continue();
      // The daemon stores the send and answers; the page is told the connection was reset.
      await route.fetch();
      return route.abort('connectionreset');
    },
  );
  await sendMessage(page, 'ls');
  await page.getByTestId('user-bubble').filter({ hasText: /^ls$/ }).waitFor();
  expect(await box().inputValue()).toBe('');
  expect(bodies).toHaveLength(2);
  expect(bodies[1]).toBe(bodies[0]);
  expect(JSON.parse(bodies[0] ?? '{}')).toMatchObject({ client_id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) });
  await expect.poll(() => runsStarted(sessionId)).toBe(1);
  expect(await userMessages(sessionId)).toBe(1);
  expect(await page.getByRole('alert').allTextContents()).toEqual([]);
});

it('a send without a send id sent as the sidecar was being replaced is not sent again: it fails UNREACHABLE and nothing is stored', async () => {
  const sessionId = await openNewSession('Send without an id across the restart');
  const run = await holdNext((url) => url.pathname === '/agent/run');
  const outcome = page.evaluate(
    (id) =>
      window.bastion!.agent.run(id, 'ls').then(
        () => 'answered',
        (failure: { code?: string }) => `failed: ${failure.code}`,
      ),
    sessionId,
  );
  await run.held;
  const gap = await intoTheGap(run.go);
  await gap.restarted();
  expect(await outcome).toBe('failed: UNREACHABLE');
  expect(await runsStarted(sessionId)).toBe(0);
  expect(await userMessages(sessionId)).toBe(0);
});

it('a send while the sidecar cannot be started again says the agent is not running (the message box too: the agent, not Bastion, does not answer), keeps the message in the box and stores nothing; once it runs again the message goes, once', async () => {
  const sessionId = await openNewSession('Send while the agent is down');
  launchFails = true;
  const down = host.supervisor.restart('ui-test').catch((failure: { code?: string }) => failure.code);
  await sendMessage(page, 'ls');
  expect(await down).toBe('SIDECAR_RESPAWN_FAILED');
  const main = page.getByRole('main');
  await main.getByRole('alert').filter({ hasText: 'the agent is not running (SIDECAR_UNAVAILABLE)' }).waitFor();
  await page.getByRole('alert').filter({ hasText: 'Cannot reach the agent: the agent is not running' }).waitFor();
  // The box says the agent, not Bastion, is what does not answer.
  await page
    .getByText('The agent is not answering (it may be restarting): nothing can be sent now. Your message stays here.')
    .waitFor();
  expect(await page.getByText('Not connected to Bastion').count()).toBe(0);
  expect(await box().inputValue()).toBe('ls');
  await page.screenshot({ path: `${SHOTS}/sidecar-down-send-kept.png` });
  launchFails = false;
  await host.supervisor.restart('ui-test');
  expect(await runsStarted(sessionId)).toBe(0);
  await expect.poll(() => page.getByText('Cannot reach the agent').count(), { timeout: 15_000 }).toBe(0);
  await box().press('Enter');
  await page.getByTestId('user-bubble').filter({ hasText: /^ls$/ }).waitFor();
  expect(await box().inputValue()).toBe('');
  await expect.poll(() => runsStarted(sessionId)).toBe(1);
  expect(await page.getByRole('alert').allTextContents()).toEqual([]);
});
