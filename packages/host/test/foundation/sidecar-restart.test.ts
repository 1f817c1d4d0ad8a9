/**
 * A sidecar being replaced (restart(): a granted folder, a new policy) with a real host, real
 * sidecar processes and real sockets. From the moment restart() kills the old sidecar, the
 * supervisor names no sidecar current and the socket host routes nothing to the old one: a daemon
 * request begun in that moment (before the old process's exit is seen) waits for the new sidecar
 * and is answered by it, with its new password, rather than being handed the dying one's. (Handed
 * the dying one's, such a request hung: the host keeps a transferred socket open until the
 * receiving process acknowledges it, which a killed sidecar never does; the page's failed
 * UNREACHABLE when the old process's channel had closed first.)
 */
import { afterEach, expect, it } from 'vitest';
import type { SessionListResponse } from '@bastion/protocol';
import { startTempHost, type TempHost } from '../support/temp-host.js';

let host: TempHost | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

it('a daemon request begun as restart() kills the old sidecar waits for the new one and is answered by it', async () => {
  host = await startTempHost();
  const old = host.supervisor.current;
  expect(old).toBeDefined();
  const restarting = host.supervisor.restart('test');
  // restart() has sent the old sidecar SIGKILL; its exit cannot have been seen yet (same turn).
  expect(host.supervisor.current).toBeUndefined();
  const listed = host.client.request<SessionListResponse>('GET', '/sessions');
  await restarting;
  const answer = await listed;
  expect(answer.status).toBe(200);
  expect(answer.body.sessions).toEqual([]);
  const current = host.supervisor.current;
  expect(current?.pid).not.toBe(old?.pid);
  expect(current?.password).not.toBe(old?.password);
});
