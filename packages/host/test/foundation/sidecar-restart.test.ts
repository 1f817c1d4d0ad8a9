/**
 * A sidecar being replaced (restart(): a granted folder, a new policy) with a real host, real
 * sidecar processes and real sockets. From the moment restart() kills the old sidecar, the
 * supervisor names no sidecar current and the socket host routes nothing to the old one: a daemon
 * request begun in that moment (before the old process's exit is seen) waits for the new sidecar
 * and is answered by it, with its new password, rather than being handed the dying one's. (Handed
 * the dying one's, such a request hung: the host keeps a transferred socket open until the
 * receiving process acknowledges it, which a killed sidecar never does; the page's failed
 * UNREACHABLE when the old process's channel had closed first.) A sidecar that dies on its own
 * cannot be retired before its death: a connection transferred to it in that moment ends with it,
 * and one still queued for it is closed when the host sees the death (before, the host kept both
 * open awaiting the dead process's acknowledgement, and their requests hung).
 */
import { afterEach, expect, it } from 'vitest';
import type { SessionListResponse } from '@bastion/protocol';
import { waitFor } from '@bastion/test-support';
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

it('three requests made as the sidecar dies on its own are each refused or answered, never left open, five times in a row', async () => {
  host = await startTempHost();
  const client = host.client;
  for (let death = 0; death < 5; death += 1) {
    const dying = host.supervisor.current;
    if (dying === undefined) throw new Error('no ready sidecar');
    process.kill(dying.pid, 'SIGKILL');
    // Begun in the same turn: the host has not seen the death yet and routes the connections to it
    // (the second and third wait in Node's queue behind the first's acknowledgement).
    const outcomes = await Promise.all(
      [0, 1, 2].map(() =>
        client.request('GET', '/sessions').then(
          (answer) => `answered ${answer.status}`,
          (failure: { code?: string }) => failure.code,
        ),
      ),
    );
    for (const outcome of outcomes) expect(['answered 200', 'DAEMON_UNREACHABLE']).toContain(outcome);
    await waitFor(() => (host?.supervisor.current?.pid ?? dying.pid) !== dying.pid, 10_000, 'replacement sidecar');
  }
});
