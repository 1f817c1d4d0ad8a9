/**
 * The consent channels only ask: the host confirmer decides. With a confirmer that says no, a
 * renderer's request creates no grant and no workspace; with one that says yes, the endpoint's
 * exact origin is granted and the workspace is granted (the sidecar respawns with it).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConsentRequest } from '../../src/consent/host-confirmer.js';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { rawRequest } from '../support/raw-request.js';
import { launchDesktopSession, type DesktopSession } from '../support/desktop-session.js';
import { fixtureApp } from './support/desktop-files.js';

let host: TempHost | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

async function ipc(started: TempHost, session: DesktopSession, channel: string, body: unknown) {
  const response = await rawRequest({
    port: started.ui.port,
    path: `/_host/ipc/${channel}`,
    headers: {
      host: `127.0.0.1:${started.ui.port}`,
      ...session.headers,
      origin: started.uiOrigin,
      referer: `${started.uiOrigin}/desktop/settings`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: JSON.parse(response.body) as Record<string, unknown> };
}

async function workspaceRoots(started: TempHost): Promise<string[]> {
  const answer = await started.client.request<{ workspaces: { root: string }[] }>('POST', '/workspaces/list', {});
  return answer.body.workspaces.map((workspace) => workspace.root);
}

describe('consent channels', () => {
  it('a confirmer that says no: no grant, no workspace, and the confirmer was asked', async () => {
    const asked: ConsentRequest[] = [];
    host = await startTempHost({
      desktopFiles: fixtureApp('csp-probe'),
      confirmer: { confirm: (request) => (asked.push(request), Promise.resolve(false)) },
    });
    const session = await launchDesktopSession(host);
    const grantsBefore = host.network.snapshot.grants.length;
    const endpoint = await ipc(host, session, 'endpoints.request-consent', { url: 'http://localhost:11434/v1' });
    expect(endpoint).toEqual({
      status: 200,
      body: { outcome: 'denied', code: 'GRANT_DECLINED', subject: 'http://localhost:11434/v1' },
    });
    expect(host.network.snapshot.grants).toHaveLength(grantsBefore);

    const extra = join(host.root, 'extra');
    mkdirSync(extra);
    const pid = host.supervisor.current?.pid;
    const workspace = await ipc(host, session, 'workspaces.request-grant', { path: extra });
    expect(workspace.body).toMatchObject({ outcome: 'denied', code: 'WORKSPACE_DECLINED' });
    expect(await workspaceRoots(host)).not.toContain(extra);
    expect(host.supervisor.current?.pid).toBe(pid);
    expect(asked.map((request) => request.kind)).toEqual(['endpoint', 'workspace']);
  });

  it('a confirmer that says yes: the exact origin is granted and the workspace opens after a respawn', async () => {
    host = await startTempHost({
      desktopFiles: fixtureApp('csp-probe'),
      confirmer: { confirm: () => Promise.resolve(true) },
    });
    const session = await launchDesktopSession(host);
    const endpoint = await ipc(host, session, 'endpoints.request-consent', { url: 'http://localhost:11434/v1' });
    expect(endpoint).toEqual({ status: 200, body: { outcome: 'granted', subject: 'http://localhost:11434' } });
    expect(host.network.snapshot.grants.some((grant) => grant.origin === 'http://localhost:11434')).toBe(true);

    const extra = join(host.root, 'extra');
    mkdirSync(extra);
    const pid = host.supervisor.current?.pid;
    const workspace = await ipc(host, session, 'workspaces.request-grant', { path: extra });
    expect(workspace.body).toEqual({ outcome: 'granted', subject: extra });
    expect(host.supervisor.current?.pid).not.toBe(pid);
    expect(await workspaceRoots(host)).toContain(extra);
  });

  it('an ineligible endpoint or a missing folder is refused without asking', async () => {
    const asked: ConsentRequest[] = [];
    host = await startTempHost({
      desktopFiles: fixtureApp('csp-probe'),
      confirmer: { confirm: (request) => (asked.push(request), Promise.resolve(true)) },
    });
    const session = await launchDesktopSession(host);
    const remote = await ipc(host, session, 'endpoints.request-consent', { url: 'http://localhost.evil.test/v1' });
    expect(remote.body).toMatchObject({ outcome: 'denied' });
    const missing = await ipc(host, session, 'workspaces.request-grant', { path: join(host.root, 'nope') });
    expect(missing).toMatchObject({ status: 400, body: { code: 'WORKSPACE_PATH' } });
    expect(asked).toEqual([]);
  });
});
