import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, type LogRecord } from '@bastion/protocol';
import { DaemonSocketHost } from '../../src/supervisor/daemon-socket-host.js';
import { SidecarSupervisor } from '../../src/supervisor/sidecar-supervisor.js';
import { sidecarEnvironment, type SidecarLauncher } from '../../src/supervisor/sidecar-launcher.js';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { makeTempDir, waitFor } from '@bastion/test-support';

const FIXTURE = fileURLToPath(new URL('../fixtures/misbehaving-sidecar.mjs', import.meta.url));

function fixtureLauncher(mode: string, extra: Record<string, string> = {}): SidecarLauncher {
  return () =>
    Promise.resolve({
      command: process.execPath,
      args: [FIXTURE],
      env: { ...sidecarEnvironment(), FIXTURE_MODE: mode, ...extra },
    });
}

let host: TempHost | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

/** Connect and report whether the connection was closed without any response byte. */
function connectionClosedUnanswered(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write('POST /handshake HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n');
    });
    let answered = false;
    socket.on('data', () => {
      answered = true;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(!answered));
  });
}

describe('supervisor fault handling (real processes, a misbehaving stand-in sidecar)', () => {
  it('kills and replaces a sidecar that sends any IPC message besides its one readiness attestation', async () => {
    host = await startTempHost({ launcher: fixtureLauncher('rogue-ipc') });
    const first = host.supervisor.current;
    expect(first).toBeDefined();
    await waitFor(() => host?.records.some((r) => r.event === 'sidecar.ipc-violation') ?? false, 5_000, 'violation');
    await waitFor(
      () => {
        const current = host?.supervisor.current;
        return current !== undefined && current.pid !== first?.pid;
      },
      10_000,
      'replacement sidecar',
    );
  });

  it('closes connections that arrive before the sidecar attested readiness', async () => {
    host = await startTempHost({ launcher: fixtureLauncher('slow-ready', { FIXTURE_DELAY_MS: '2000' }) });
    // Kill the ready sidecar; its replacement takes 2 s to attest, and we probe in that window.
    const before = host.supervisor.current?.pid;
    expect(before).toBeDefined();
    process.kill(before as number, 'SIGKILL');
    await waitFor(() => host?.records.some((r) => r.event === 'sidecar.exited') ?? false, 5_000, 'exit');
    expect(host.supervisor.current).toBeUndefined();
    expect(await connectionClosedUnanswered(host.socketHost.port)).toBe(true);
    expect(host.records.some((r) => r.event === 'socket.refused' && r.fields.reason === 'sidecar-not-ready')).toBe(
      true,
    );
    await host.supervisor.whenReady();
    expect(host.supervisor.current?.pid).not.toBe(before);
  });

  it('treats a readiness attestation for the wrong port as a violation and never routes sockets to it', async () => {
    const records: LogRecord[] = [];
    const log = createLogger('test', (record) => records.push(record));
    const socketHost = new DaemonSocketHost(log);
    await socketHost.listen();
    const root = makeTempDir();
    const supervisor = new SidecarSupervisor({
      entry: FIXTURE,
      launcher: fixtureLauncher('wrong-port'),
      socketHost,
      log,
      sidecarLog: log,
      config: () => ({
        allowedOrigins: ['http://127.0.0.1:1'],
        userData: root,
        workspaces: [],
        capabilities: { sandbox: 'none', shell: false, platform: 'linux' },
      }),
    });
    // Settled into a value at once, so the rejection stop() causes is never unhandled.
    const starting = supervisor.start().then(
      () => undefined,
      (error: unknown) => error,
    );
    try {
      await waitFor(() => records.some((r) => r.event === 'sidecar.ipc-violation'), 5_000, 'violation');
      expect(supervisor.current).toBeUndefined();
      expect(await connectionClosedUnanswered(socketHost.port)).toBe(true);
    } finally {
      await supervisor.stop();
      await socketHost.close();
      rmSync(root, { recursive: true, force: true });
    }
    expect(await starting).toMatchObject({ code: 'SIDECAR_STOPPED' });
  });
});
