/**
 * SEC-004 outer sandbox, proved with real bubblewrap through srt: a probe started by the same
 * srt launcher (same wrap, same policy builder) as the sidecar tries each escape, and each one
 * fails with nothing changed on disk and the canary server never reached. A control run of the
 * same probe without the sandbox shows the probe can tell success from failure.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrivateTempDir, type PrivateTempDir } from '../../src/sandbox/private-temp-dir.js';
import { acquireSrtSession, type SrtSession } from '../../src/sandbox/srt-session.js';
import { plainLauncher, type SidecarLauncher } from '../../src/supervisor/sidecar-launcher.js';
import { runSandboxProbe, srtProbeLauncher } from '../support/sandbox-probe.js';
import { makeTempDir } from '@bastion/test-support';

const PROBE = fileURLToPath(new URL('./fixtures/escape-probe.mjs', import.meta.url));
// The header is assembled, so no tracked file holds a private-key block (the egress guard's corpus test).
const CANARY_KEY = `${['-----BEGIN', 'OPENSSH PRIVATE KEY-----'].join(' ')} canary-${randomBytes(12).toString('hex')}`;
const BASHRC = '# the user own bashrc\nexport PS1="$ "\n';

type Outcome = { ok: boolean; detail: string };
type Results = Record<string, Outcome>;

interface Layout {
  root: string;
  home: string;
  userData: string;
  workspace: string;
  outside: string;
  tmpFile: string;
  /** Where srt allows writes unasked; the control run points these into its own temp tree. */
  srtSharedTmpFile: string;
  npmLogsFile: string;
}

function makeLayout(unaskedWriteDirs?: string): Layout {
  const root = makeTempDir('bastion-sandbox-probe-');
  const name = `bastion-probe-${randomBytes(6).toString('hex')}.txt`;
  const layout = {
    root,
    home: join(root, 'home'),
    userData: join(root, 'user-data'),
    workspace: join(root, 'workspace'),
    outside: join(root, 'outside'),
    tmpFile: join('/tmp', name),
    // Only the sandboxed run targets the real paths, and it must fail there; the control run never
    // writes outside its own temp tree.
    srtSharedTmpFile: join(unaskedWriteDirs ?? '/tmp/claude', name),
    npmLogsFile: join(unaskedWriteDirs ?? join(homedir(), '.npm', '_logs'), name),
  };
  for (const dir of [layout.home, join(layout.home, '.ssh'), layout.userData, layout.workspace, layout.outside])
    mkdirSync(dir, { recursive: true });
  writeFileSync(join(layout.home, '.ssh', 'id_rsa'), CANARY_KEY, { mode: 0o600 });
  writeFileSync(join(layout.home, '.bashrc'), BASHRC);
  return layout;
}

async function runProbe(
  launcher: SidecarLauncher,
  layout: Layout,
  canaryPort: number,
): Promise<{ results: Results; output: string }> {
  const { result, output } = await runSandboxProbe<Results>(launcher, PROBE, { ...layout, canaryPort });
  return { results: result, output };
}

let session: SrtSession;
let canary: Server;
let canaryPort: number;
const reached: string[] = [];
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  session = await acquireSrtSession();
  canary = createServer((socket) => {
    // Any connection at all is an escape: the test fails on it below.
    reached.push(`${socket.remoteAddress}:${socket.remotePort}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
  canaryPort = (canary.address() as { port: number }).port;
});

afterAll(async () => {
  for (const cleanup of cleanups) cleanup();
  await new Promise<void>((resolve) => canary.close(() => resolve()));
  await session.release();
});

describe('outer sandbox: escape probe under real bubblewrap (srt)', () => {
  let layout: Layout;
  let temp: PrivateTempDir;
  let results: Results;
  let output: string;

  beforeAll(async () => {
    layout = makeLayout();
    temp = createPrivateTempDir();
    cleanups.push(
      () => rmSync(layout.root, { recursive: true, force: true }),
      () => temp.remove(),
      () => rmSync(layout.tmpFile, { force: true }),
    );
    const launcher = srtProbeLauncher(session, layout, temp.path);
    ({ results, output } = await runProbe(launcher, layout, canaryPort));
  });

  it('cannot read ~/.ssh/id_rsa, and the key never appears in its output', () => {
    expect(results.read_ssh_key?.ok).toBe(false);
    expect(output).not.toContain(CANARY_KEY);
    expect(readFileSync(join(layout.home, '.ssh', 'id_rsa'), 'utf8')).toBe(CANARY_KEY);
  });

  it('cannot change ~/.bashrc: HOME inside is an empty throwaway tmpfs, the real bytes are unchanged', () => {
    // Whether the append succeeds inside (into the tmpfs) or not, it never reaches the disk.
    expect(readFileSync(join(layout.home, '.bashrc'), 'utf8')).toBe(BASHRC);
  });

  it('cannot write outside its write roots, nor in /tmp', () => {
    expect(results.write_outside_roots?.ok).toBe(false);
    expect(existsSync(join(layout.outside, 'dropped.txt'))).toBe(false);
    expect(results.write_tmp?.ok).toBe(false);
    expect(existsSync(layout.tmpFile)).toBe(false);
  });

  it("cannot write where srt allows writes unasked (its shared /tmp/claude, the real HOME's ~/.npm/_logs)", () => {
    expect(results.write_srt_shared_tmp?.ok).toBe(false);
    expect(existsSync(layout.srtSharedTmpFile)).toBe(false);
    expect(results.write_npm_logs?.ok).toBe(false);
    expect(existsSync(layout.npmLogsFile)).toBe(false);
  });

  it('cannot connect directly to a host loopback port', () => {
    expect(results.connect_host_loopback?.ok).toBe(false);
  });

  it("has no route to srt's proxy: no proxy variables, and nothing listens on srt's relay port (connection refused)", () => {
    expect(results.proxy_variables).toEqual({ ok: false, detail: '' });
    for (const name of ['http_proxy_ip', 'http_proxy_name', 'https_proxy_ip', 'https_proxy_name']) {
      expect(results[name], name).toEqual({ ok: false, detail: 'ECONNREFUSED' });
    }
  });

  it('cannot create a Unix socket', () => {
    expect(results.unix_socket?.ok).toBe(false);
    expect(existsSync(join(layout.userData, 'probe.sock'))).toBe(false);
  });

  it('never reached the canary server by any route', () => {
    expect(reached).toEqual([]);
  });

  it('can write in userData and its private temp dir; a granted workspace is read-only to it (the host writes there for it)', () => {
    expect(results.write_user_data).toMatchObject({ ok: true });
    expect(results.write_workspace).toEqual({ ok: false, detail: 'EROFS' });
    expect(results.write_private_temp).toMatchObject({ ok: true });
    expect(readFileSync(join(layout.userData, 'probe.txt'), 'utf8')).toBe('probe');
    expect(existsSync(join(layout.workspace, 'probe.txt'))).toBe(false);
    expect(readFileSync(join(temp.path, 'probe.txt'), 'utf8')).toBe('probe');
  });
});

describe('control: the same probe without the sandbox', () => {
  it('does read the key, write ~/.bashrc and /tmp, and reach the canary (so the probe can fail)', async () => {
    const layout = makeLayout(join(makeTempDir('bastion-probe-control-'), '.'));
    cleanups.push(
      () => rmSync(layout.root, { recursive: true, force: true }),
      () => rmSync(layout.tmpFile, { force: true }),
      () => rmSync(dirname(layout.srtSharedTmpFile), { recursive: true, force: true }),
    );
    const control: SidecarLauncher = async (entry) => {
      const launch = await plainLauncher(entry);
      return { ...launch, env: { ...launch.env, HOME: layout.home, TMPDIR: layout.outside } };
    };
    const before = reached.length;
    const { results } = await runProbe(control, layout, canaryPort);
    expect(results.read_ssh_key?.ok).toBe(true);
    expect(results.write_bashrc?.ok).toBe(true);
    expect(results.write_tmp?.ok).toBe(true);
    expect(results.write_outside_roots?.ok).toBe(true);
    expect(results.connect_host_loopback?.ok).toBe(true);
    expect(results.unix_socket?.ok).toBe(true);
    expect(results.write_srt_shared_tmp?.ok).toBe(true);
    expect(results.write_npm_logs?.ok).toBe(true);
    reached.splice(before);
  });
});
