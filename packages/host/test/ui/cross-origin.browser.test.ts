/// <reference lib="dom" />
/**
 * SEC-004 perimeter against another loopback origin, in real Chromium. The attacker page runs on
 * 127.0.0.1 at another port — the same *site* as the UI (ports do not separate sites), so the
 * host-session cookie rides along wherever credentials are included. It tries CORS fetches with
 * and without credentials, a text/plain simple POST and a form POST, against the daemon and
 * against host IPC. Every one is refused by its guard (Origin), nothing is readable, the host
 * IPC handler never runs and the daemon's route never runs (no session gets created).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeAttack } from '../../../../test/support/attack.js';
import type { Browser, Response } from 'playwright-core';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { launchChromium, openDesktop } from './support/browser.js';
import { fixtureApp } from './support/desktop-files.js';
import { startPagesServer, type PagesServer } from './support/pages-server.js';

let browser: Browser;
let host: TempHost;
let attacker: PagesServer;
let ipcHandlerRuns = 0;

function attackPage(daemon: string, ui: string): string {
  return `<!doctype html><html><body>
<iframe name="daemon-sink"></iframe><iframe name="ipc-sink"></iframe>
<form id="daemon-form" method="POST" enctype="text/plain" target="daemon-sink" action="${daemon}/sessions">
  <input name='{"title":"attack","x":"' value='"}'></form>
<form id="ipc-form" method="POST" enctype="text/plain" target="ipc-sink" action="${ui}/_host/ipc/agent.server-info">
  <input name='{"x":"' value='"}'></form>
<script>
window.attack = async () => {
  const results = {};
  const attempt = async (name, run) => {
    try {
      const response = await run();
      results[name] = response.type === 'opaque' ? 'opaque' : 'readable ' + response.status + ' ' + (await response.text());
    } catch (error) {
      results[name] = error.name;
    }
  };
  const json = { 'content-type': 'application/json' };
  const body = JSON.stringify({ title: 'attack' });
  await attempt('daemon fetch', () => fetch('${daemon}/sessions', { method: 'POST', headers: json, body }));
  await attempt('daemon fetch with credentials', () => fetch('${daemon}/sessions', { method: 'POST', headers: json, body, credentials: 'include' }));
  await attempt('daemon fetch with a guessed password', () => fetch('${daemon}/sessions', { method: 'POST', headers: { ...json, authorization: 'Basic ' + btoa('bastion:guess') }, body, credentials: 'include' }));
  await attempt('daemon simple text/plain POST', () => fetch('${daemon}/sessions', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body, credentials: 'include' }));
  await attempt('ipc fetch', () => fetch('${ui}/_host/ipc/agent.server-info', { method: 'POST', headers: json, body: '{}' }));
  await attempt('ipc fetch with credentials', () => fetch('${ui}/_host/ipc/agent.server-info', { method: 'POST', headers: json, body: '{}', credentials: 'include' }));
  await attempt('ipc simple text/plain POST', () => fetch('${ui}/_host/ipc/agent.server-info', { method: 'POST', mode: 'no-cors', body: '{}', credentials: 'include' }));
  return results;
};
</script></body></html>`;
}

beforeAll(async () => {
  [browser, host] = await Promise.all([launchChromium(), startTempHost({ desktopFiles: fixtureApp('csp-probe') })]);
  const whenReady = host.supervisor.whenReady.bind(host.supervisor);
  host.supervisor.whenReady = () => {
    ipcHandlerRuns += 1;
    return whenReady();
  };
  attacker = await startPagesServer({
    '/attack': { type: 'text/html', body: attackPage(`http://127.0.0.1:${host.socketHost.port}`, host.uiOrigin) },
  });
});
afterAll(async () => {
  await Promise.all([browser?.close(), host?.stop(), attacker?.close()]);
});

describeAttack('cross-origin', 'another loopback origin against the daemon and host IPC (Chromium)', () => {
  it('is refused everywhere, reads nothing, and reaches no handler', async () => {
    // The victim has a live desktop session in this browser, so the cookie exists.
    const { context } = await openDesktop(browser, host);
    const page = await context.newPage();
    const seen: { url: string; method: string; status: number; body: string }[] = [];
    const record = async (response: Response) => {
      const url = response.url();
      if (!url.startsWith(`http://127.0.0.1:${host.socketHost.port}/`) && !url.startsWith(`${host.uiOrigin}/_host/`))
        return;
      const body = await response.text().catch(() => '');
      seen.push({ url, method: response.request().method(), status: response.status(), body });
    };
    page.on('response', (response) => void record(response));
    const runsBefore = ipcHandlerRuns;
    const recordsBefore = host.records.length;
    await page.goto(`${attacker.origin}/attack`);
    const results = await page.evaluate(() =>
      (window as unknown as { attack(): Promise<Record<string, string>> }).attack(),
    );

    expect(results).toEqual({
      'daemon fetch': 'TypeError',
      'daemon fetch with credentials': 'TypeError',
      'daemon fetch with a guessed password': 'TypeError',
      'daemon simple text/plain POST': 'opaque',
      'ipc fetch': 'TypeError',
      'ipc fetch with credentials': 'TypeError',
      // Not even opaque: the UI origin's Cross-Origin-Resource-Policy: same-origin blocks it.
      'ipc simple text/plain POST': 'TypeError',
    });

    const formResponses = Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/sessions') && r.request().resourceType() === 'document'),
      page.waitForResponse(
        (r) => r.url().endsWith('/_host/ipc/agent.server-info') && r.request().resourceType() === 'document',
      ),
    ]);
    await page.evaluate(() => {
      (document.getElementById('daemon-form') as HTMLFormElement).submit();
      (document.getElementById('ipc-form') as HTMLFormElement).submit();
    });
    await formResponses;
    await expect.poll(() => seen.filter((entry) => entry.body !== '').length).toBeGreaterThanOrEqual(2);

    // What the browser saw answered (the simple and form POSTs; CORS requests never got past their
    // preflight) was stopped by the Origin check, before any handler.
    for (const entry of seen) {
      const label = `${entry.method} ${entry.url}`;
      expect(entry.status, label).toBe(403);
      if (entry.body !== '') {
        const code = (JSON.parse(entry.body) as { code: string }).code;
        expect(code, label).toBe(entry.url.includes('/_host/') ? 'IPC_ORIGIN' : 'PERIMETER_ORIGIN');
      }
    }
    expect(seen.some((entry) => entry.url.includes('/_host/') && entry.body.includes('IPC_ORIGIN'))).toBe(true);
    expect(seen.some((entry) => !entry.url.includes('/_host/') && entry.body.includes('PERIMETER_ORIGIN'))).toBe(true);
    // Host side: every IPC request of the attack (two preflights, the simple POST, the form) was
    // refused — preflights because host IPC answers POST only and never CORS — and none was served.
    const ipcEvents = host.records.slice(recordsBefore).filter((record) => record.event.startsWith('ipc.'));
    expect(ipcEvents.map((record) => record.fields.code).sort()).toEqual([
      'IPC_METHOD',
      'IPC_METHOD',
      'IPC_ORIGIN',
      'IPC_ORIGIN',
    ]);
    const password = host.supervisor.current?.password ?? '-';
    expect(JSON.stringify(seen)).not.toContain(password);
    expect(ipcHandlerRuns).toBe(runsBefore);

    // The daemon's route never ran: no session was created by any attempt.
    const sessions = await host.client.request<{ sessions: unknown[] }>('GET', '/sessions');
    expect(sessions.status).toBe(200);
    expect(sessions.body.sessions).toEqual([]);
    await context.close();
  });
});
