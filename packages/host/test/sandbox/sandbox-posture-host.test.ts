/**
 * SEC-004 fail closed, with a real host and sidecar: on Windows (injected platform) and on Linux
 * with bubblewrap hidden from PATH the host starts the sidecar without the shell, says so in the
 * handshake capabilities and the log, and only `unsandboxedShell` (the CLI's
 * --unsandboxed-shell) gives the shell back unsandboxed.
 */
import { mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { HandshakeResponse } from '@bastion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveDaemonEntry, SIDECAR_NODE_OPTIONS } from '../../src/supervisor/sidecar-launcher.js';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { makeTempDir } from '@bastion/test-support';
import { netNamespace } from './process-tree.js';

let host: TempHost | undefined;
const savedPath = process.env.PATH;
const dirs: string[] = [];
afterEach(async () => {
  await host?.stop();
  host = undefined;
  process.env.PATH = savedPath;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A PATH holding everything srt looks up except bubblewrap. */
function pathWithoutBubblewrap(): string {
  const bin = makeTempDir('bastion-path-');
  dirs.push(bin);
  mkdirSync(join(bin, 'bin'));
  for (const tool of ['socat', 'rg', 'which', 'sh', 'node']) symlinkSync(`/usr/bin/${tool}`, join(bin, 'bin', tool));
  return join(bin, 'bin');
}

async function handshakeCapabilities(h: TempHost): Promise<HandshakeResponse['capabilities']> {
  const response = await h.client.request<HandshakeResponse>('POST', '/handshake');
  expect(response.status).toBe(200);
  return response.body.capabilities;
}

describe('fail-closed sandbox postures (real host and sidecar)', () => {
  it('Windows: the sidecar runs unwrapped with the shell withheld, and says why', async () => {
    host = await startTempHost({ platform: 'win32' });
    const capabilities = await handshakeCapabilities(host);
    expect(capabilities).toMatchObject({ sandbox: 'none', shell: false, platform: 'win32' });
    expect(capabilities.reason).toMatch(/run_command withheld/);
    expect(host.records.some((r) => r.event === 'host.sandbox-unavailable' && r.fields.platform === 'win32')).toBe(
      true,
    );
  });

  it('the unwrapped sidecar runs with the same Node options as the sandboxed one', async () => {
    host = await startTempHost({ platform: 'win32' });
    const pid = host.supervisor.current?.pid ?? 0;
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
    expect(argv).toEqual([process.execPath, ...SIDECAR_NODE_OPTIONS, resolveDaemonEntry()]);
  });

  it('Linux without bubblewrap: no shell, sandbox none, the missing package in handshake and log', async () => {
    process.env.PATH = pathWithoutBubblewrap();
    host = await startTempHost();
    const capabilities = await handshakeCapabilities(host);
    expect(capabilities).toMatchObject({ sandbox: 'none', shell: false, platform: 'linux' });
    expect(capabilities.reason).toContain('missing bubblewrap');
    expect(capabilities.reason).toContain('apt-get install -y bubblewrap');
    const logged = host.records.find((r) => r.event === 'host.sandbox-unavailable');
    expect(logged?.fields).toMatchObject({ missing: 'bubblewrap', shell: false });
    // Not wrapped: the sidecar shares the host's network namespace.
    expect(netNamespace(host.supervisor.current?.pid ?? 0)).toBe(netNamespace('self'));
  });

  it('Linux without bubblewrap and with --unsandboxed-shell: the shell, unsandboxed, flagged in the reason', async () => {
    process.env.PATH = pathWithoutBubblewrap();
    host = await startTempHost({ unsandboxedShell: true });
    const capabilities = await handshakeCapabilities(host);
    expect(capabilities).toMatchObject({ sandbox: 'none', shell: true });
    expect(capabilities.reason).toMatch(/^--unsandboxed-shell/);
    expect(host.posture?.warning).toMatch(/WARNING/);
  });
});
