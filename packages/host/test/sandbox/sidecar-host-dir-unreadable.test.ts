/**
 * SEC-004 outer sandbox, `secret-read`: userData's `host/` is unreadable to the sidecar, not only
 * unwritable. It holds what only the host needs: mcp.json (the MCP servers' variables, tokens
 * among them), each server's private data folder, policy.json and the host's audit log. The
 * misbehaving-sidecar fixture, started through the same srt launcher and policy as the sidecar
 * (real bubblewrap), as a compromised sidecar would, tries to read a token canary in host/mcp.json, to list host/ and to
 * read a file in a server's data folder: each fails or finds nothing, and neither canary is in
 * anything it printed (it prints what it reads), with userData under HOME and outside it. Its own
 * userData stays readable and writable (the control). The real host's sidecar is checked too,
 * through its own mount namespace (/proc/<pid>/root). A control run of the probe without the
 * sandbox reads both canaries, so the fixture can tell a read from a refusal.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAttack } from '../../../../test/support/attack.js';
import { McpConfigStore } from '../../src/mcp/mcp-config-store.js';
import { sidecarHostDenies } from '../../src/policy/sandbox-denies.js';
import { descendantPids } from '../../src/process-tree.js';
import { checkSandboxPolicy } from '../../src/sandbox/sandbox-policy-check.js';
import { plainLauncher } from '../../src/supervisor/sidecar-launcher.js';
import { ensureUserData, hostOnlyDir } from '../../src/user-data.js';
import { probeSandboxPerFile, runSandboxProbe, type ProbeLayout } from '../support/sandbox-probe.js';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { commandLine } from './process-tree.js';
import { makeTempDir } from '@bastion/test-support';

const PROBE = fileURLToPath(new URL('./fixtures/misbehaving-sidecar.mjs', import.meta.url));
const SESSIONS_BYTES = 'the sidecar’s own store\n';
const AUTH_BYTES = '{"control":"the sidecar’s own credentials"}\n';
const APPENDED = 'appended by the sidecar\n';

type Results = Record<string, { ok: boolean; detail: string }>;

interface Canaries {
  /** An MCP server's token, in host/mcp.json. */
  token: string;
  /** A file in an MCP server's data folder, host/mcp-data/x/file. */
  data: string;
}

function freshCanaries(): Canaries {
  return {
    token: `mcp-token-canary-${randomBytes(12).toString('hex')}`,
    data: `mcp-data-canary-${randomBytes(12).toString('hex')}`,
  };
}

/** userData with what the host keeps in host/: mcp.json naming a server with a token, a file in that server's data folder. */
function seedHostDir(userData: string, canaries: Canaries): void {
  ensureUserData(userData);
  new McpConfigStore(userData).add({
    name: 'docs',
    command: 'docs-server',
    args: [],
    env: { DOCS_TOKEN: canaries.token },
  });
  const dataFolder = join(hostOnlyDir(userData), 'mcp-data', 'x');
  mkdirSync(dataFolder, { recursive: true, mode: 0o700 });
  writeFileSync(join(dataFolder, 'file'), canaries.data, { mode: 0o600 });
}

function makeWorld(userDataUnderHome: boolean, canaries: Canaries): ProbeLayout {
  const root = makeTempDir('bastion-host-dir-');
  const home = join(root, 'home');
  const layout = {
    home,
    userData: userDataUnderHome ? join(home, '.bastion') : join(root, 'user-data'),
    workspace: join(root, 'workspace'),
  };
  mkdirSync(home);
  mkdirSync(layout.workspace);
  seedHostDir(layout.userData, canaries);
  // The sidecar's own files, as plain bytes: the probe only reads and appends.
  writeFileSync(join(layout.userData, 'sessions.db'), SESSIONS_BYTES, { mode: 0o600 });
  writeFileSync(join(layout.userData, 'auth.json'), AUTH_BYTES, { mode: 0o600 });
  return layout;
}

function attempts(userData: string) {
  const host = hostOnlyDir(userData);
  return {
    mcp_read: { op: 'read', path: join(host, 'mcp.json') },
    host_list: { op: 'list', path: host },
    data_read: { op: 'read', path: join(host, 'mcp-data', 'x', 'file') },
    auth_read: { op: 'read', path: join(userData, 'auth.json') },
    sessions_append: { op: 'append', path: join(userData, 'sessions.db'), text: APPENDED },
  };
}

const sandbox = probeSandboxPerFile();

describeAttack('secret-read', "code running as the sidecar cannot read userData's host/", () => {
  for (const [where, underHome] of [
    ['outside HOME', false],
    ['under HOME', true],
  ] as const) {
    describe(`userData ${where}`, () => {
      const canaries = freshCanaries();
      let world: ProbeLayout;
      let results: Results;
      let output: string;

      beforeAll(async () => {
        world = makeWorld(underHome, canaries);
        const lists = { hostDenies: sidecarHostDenies(world.userData) };
        expect(checkSandboxPolicy(sandbox.policy(world, lists), world.home)).toEqual({ ok: true });
        ({ result: results, output } = await runSandboxProbe<Results>(
          sandbox.launcher(world, lists),
          PROBE,
          attempts(world.userData),
        ));
      });

      it('reading host/mcp.json fails ENOENT and the token canary is in no output', () => {
        expect(results.mcp_read).toEqual({ ok: false, detail: 'ENOENT' });
        expect(output).not.toContain(canaries.token);
      });

      it('listing host/ finds it empty: none of its entries is named in any output', () => {
        expect(results.host_list).toEqual({ ok: true, detail: '' });
        for (const name of readdirSync(hostOnlyDir(world.userData))) expect(output).not.toContain(name);
      });

      it("reading a file in an MCP server's data folder (host/mcp-data/x/file) fails ENOENT and its canary is in no output", () => {
        expect(results.data_read).toEqual({ ok: false, detail: 'ENOENT' });
        expect(output).not.toContain(canaries.data);
      });

      it('control: it still reads auth.json and appends to sessions.db in userData, the append reaching the disk', () => {
        expect(results.auth_read).toEqual({ ok: true, detail: AUTH_BYTES });
        expect(results.sessions_append).toEqual({ ok: true, detail: SESSIONS_BYTES + APPENDED });
        expect(readFileSync(join(world.userData, 'sessions.db'), 'utf8')).toBe(SESSIONS_BYTES + APPENDED);
      });
    });
  }

  describe("the real host's sandboxed sidecar, userData under HOME", () => {
    const canaries = freshCanaries();
    let host: TempHost | undefined;
    let userData: string;
    /** A path as the running sidecar sees it: through its own mount namespace (/proc/<pid>/root). */
    let asSidecarSees: (path: string) => string;

    beforeAll(async () => {
      const home = makeTempDir('bastion-host-dir-home-');
      userData = join(home, '.bastion');
      seedHostDir(userData, canaries);
      host = await startTempHost({ home, userData });
      const started = host;
      expect(started.capabilities.sandbox).toBe('srt');
      const tree = [started.supervisor.current?.pid ?? -1, ...descendantPids(started.supervisor.current?.pid ?? -1)];
      const daemon = tree.find((pid) => /daemon\/dist\/main\.js$/.test(commandLine(pid)));
      if (daemon === undefined) throw new Error(`no daemon process in ${tree.map(commandLine).join(' | ')}`);
      asSidecarSees = (path) => {
        try {
          const root = `/proc/${daemon}/root${path}`;
          return path.endsWith('/') ? readdirSync(root).join(',') : readFileSync(root, 'utf8');
        } catch (error) {
          return (error as NodeJS.ErrnoException).code ?? 'error';
        }
      };
    });

    afterAll(async () => {
      await host?.stop();
    });

    it("finds host/ empty, host/mcp.json and host/mcp-data/x/file ENOENT, while the host's own view holds them", () => {
      const hostDir = hostOnlyDir(userData);
      expect(readdirSync(hostDir)).toEqual(expect.arrayContaining(['mcp.json', 'mcp-data']));
      expect(asSidecarSees(`${hostDir}/`)).toBe('');
      expect(asSidecarSees(join(hostDir, 'mcp.json'))).toBe('ENOENT');
      expect(asSidecarSees(join(hostDir, 'mcp-data', 'x', 'file'))).toBe('ENOENT');
    });

    it('still sees userData itself: host/ and the sessions.db it made are listed, sessions.db reads', () => {
      expect(asSidecarSees(`${userData}/`).split(',')).toEqual(expect.arrayContaining(['host', 'sessions.db']));
      expect(asSidecarSees(join(userData, 'sessions.db'))).toMatch(/^SQLite format 3/);
    });
  });
});

describe('control: the same fixture without the sandbox', () => {
  it('reads the token canary in host/mcp.json and the data file’s canary (so the refusals above are the sandbox’s)', async () => {
    const canaries = freshCanaries();
    const world = makeWorld(false, canaries);
    const { result } = await runSandboxProbe<Results>(plainLauncher, PROBE, attempts(world.userData));
    expect(result.mcp_read?.detail).toContain(canaries.token);
    expect(result.data_read?.detail).toBe(canaries.data);
    expect(result.host_list?.detail.split(',')).toEqual(expect.arrayContaining(['mcp.json', 'mcp-data']));
  });
});
