/**
 * SEC-004 outer sandbox, with the real sidecar: by default the host runs it inside srt, the
 * socket handoff and handshake work through bwrap, the sidecar sits in its own network namespace,
 * a run-time workspace grant respawns it under the new policy, and the host ends the whole
 * sandboxed tree (bwrap and the sidecar; no proxy relay is started inside) and the host-side socat
 * bridges on restart and stop, with no orphan left.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HandshakeResponse } from '@bastion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { makeTempDir, waitFor } from '@bastion/test-support';
import { descendantPids } from '../../src/process-tree.js';
import { SIDECAR_NODE_OPTIONS } from '../../src/supervisor/sidecar-launcher.js';
import { commandLine, isRunning, netNamespace } from './process-tree.js';

let host: TempHost | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await host?.stop();
  host = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempHome(): string {
  const home = makeTempDir('bastion-home-');
  dirs.push(home);
  mkdirSync(join(home, '.ssh'));
  return home;
}

/** The sandboxed tree of the current sidecar: bwrap (the supervisor's child) and everything under it. */
function sidecarTree(h: TempHost): number[] {
  const pid = h.supervisor.current?.pid;
  if (pid === undefined) throw new Error('no sidecar');
  return [pid, ...descendantPids(pid)];
}

/** The socat bridges srt started for this process (host side of the proxy). */
function hostSocatBridges(): number[] {
  return descendantPids(process.pid).filter((pid) => commandLine(pid).startsWith('socat ') && isRunning(pid));
}

function daemonPid(tree: number[]): number {
  const pid = tree.find(
    (p) => /daemon\/dist\/main\.js$/.test(commandLine(p)) && commandLine(p).startsWith(process.execPath),
  );
  if (pid === undefined) throw new Error(`no daemon process in ${tree.map(commandLine).join(' | ')}`);
  return pid;
}

function sidecarEnv(pid: number): Record<string, string> {
  const pairs = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return Object.fromEntries(pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
}

describe('the sidecar under srt (real bubblewrap)', () => {
  it('runs sandboxed by default: handshake over a transferred socket says srt, its network namespace is not the host one, and its Node runs with the sidecar options', async () => {
    host = await startTempHost({ home: tempHome() });
    expect(host.capabilities).toEqual({ sandbox: 'srt', shell: true, platform: 'linux' });

    const response = await host.client.request<HandshakeResponse>('POST', '/handshake');
    expect(response.status).toBe(200);
    expect(response.body.capabilities).toEqual({ sandbox: 'srt', shell: true, platform: 'linux' });

    const tree = sidecarTree(host);
    expect(tree.map(commandLine).some((line) => line.startsWith('bwrap '))).toBe(true);
    const daemon = daemonPid(tree);
    expect(netNamespace(daemon)).not.toBe(netNamespace('self'));
    // Through srt's wrap, the daemon's argv is still Node, the sidecar options, the entry.
    expect(commandLine(daemon).split(' ').slice(1, -1)).toEqual([...SIDECAR_NODE_OPTIONS]);
  });

  it('a workspace granted at run time respawns the sidecar with it in its policy; the old tree is gone', async () => {
    host = await startTempHost({ home: tempHome() });
    const first = host.supervisor.current;
    const oldTree = sidecarTree(host);
    const extra = makeTempDir('bastion-granted-');
    dirs.push(extra);

    await host.grantWorkspace(extra);
    const second = host.supervisor.current;
    expect(second?.generation).toBeGreaterThan(first?.generation ?? Infinity);
    expect(second?.password).not.toBe(first?.password);
    expect(second?.config.workspaces).toContain(extra);
    await waitFor(() => oldTree.every((pid) => !isRunning(pid)), 10_000, 'old sandbox tree to end');
    const response = await host.client.request<HandshakeResponse>('POST', '/handshake');
    expect(response.status).toBe(200);
  });

  it('a file created in HOME after the start, a secret or an atomic save of ~/.bashrc, is never visible inside, and costs no respawn', async () => {
    const home = tempHome();
    host = await startTempHost({ home });
    const first = host.supervisor.current?.generation ?? 0;
    const canary = `aws_secret_access_key = canary-${process.pid}-${Date.now()}`;
    // Seen through the sidecar's own mount namespace (/proc/<pid>/root), as the sidecar sees it.
    const asSidecarSees = (path: string): string => {
      try {
        return readFileSync(`/proc/${daemonPid(sidecarTree(host as TempHost))}/root${path}`, 'utf8');
      } catch (error) {
        return (error as NodeJS.ErrnoException).code ?? 'error';
      }
    };
    // Control: a file created late in the workspace is visible inside, so this view can show a leak.
    writeFileSync(join(host.workspace, 'notes.txt'), 'visible');
    await waitFor(() => asSidecarSees(join(host?.workspace ?? '', 'notes.txt')) === 'visible', 5_000, 'the late file');

    writeFileSync(join(home, 'notes.txt'), 'in HOME');
    mkdirSync(join(home, '.aws'));
    writeFileSync(join(home, '.aws', 'credentials'), canary);
    // An editor's atomic save replaces ~/.bashrc by rename.
    writeFileSync(join(home, '.bashrc.tmp'), `export TOKEN=${canary}`);
    renameSync(join(home, '.bashrc.tmp'), join(home, '.bashrc'));
    for (const path of ['notes.txt', '.aws/credentials', '.bashrc'])
      expect(asSidecarSees(join(home, path))).toBe('ENOENT');
    expect(host.supervisor.current?.generation).toBe(first);
  });

  it('refuses to grant HOME, /tmp or a folder holding a HOME secret (~/.config) as a workspace, and keeps the running sidecar', async () => {
    const home = tempHome();
    mkdirSync(join(home, '.config'));
    host = await startTempHost({ home });
    const before = host.supervisor.current?.generation;
    await expect(host.grantWorkspace(home)).rejects.toMatchObject({ code: 'SANDBOX_POLICY_BROAD_WRITE_ROOT' });
    await expect(host.grantWorkspace('/tmp')).rejects.toMatchObject({ code: 'SANDBOX_POLICY_BROAD_WRITE_ROOT' });
    await expect(host.grantWorkspace(join(home, '.config'))).rejects.toMatchObject({
      code: 'SANDBOX_POLICY_BROAD_WRITE_ROOT',
    });
    expect(host.supervisor.current?.generation).toBe(before);
    expect(host.supervisor.current?.config.workspaces).not.toContain(home);
  });

  it('starts no relay in the sandbox; on stop, no bwrap, sidecar or socat process of this host survives, and the private temp dir is removed', async () => {
    host = await startTempHost({ home: tempHome() });
    const tree = sidecarTree(host);
    const bridges = hostSocatBridges();
    expect(bridges.length).toBeGreaterThan(0);
    // No relay to srt's proxy inside the sandbox: nothing in the sidecar's tree mentions socat.
    expect(tree.map(commandLine).some((line) => line.includes('socat'))).toBe(false);
    const privateTemp = sidecarEnv(daemonPid(tree)).TMPDIR ?? '';
    expect(privateTemp).toMatch(/\/bastion-sidecar-/);
    expect(statSync(privateTemp).mode & 0o777).toBe(0o700);

    await host.stop();
    host = undefined;
    await waitFor(() => [...tree, ...bridges].every((pid) => !isRunning(pid)), 10_000, 'sandbox processes to end');
    expect(hostSocatBridges()).toEqual([]);
    expect(existsSync(privateTemp)).toBe(false);
  });
});
