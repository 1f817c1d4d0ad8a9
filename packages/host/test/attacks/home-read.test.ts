/**
 * `home-read` (issue 15 §4): HOME is unreadable to run_command children and to the sidecar, except
 * the workspace, userData, what Bastion runs from and the allowlist of toolchains and caches.
 * Canaries sit in files no deny list ever named (histories, other agents' sign-ins, keyrings, a
 * browser's cookies, a document); each is unreadable from a real sandboxed command and from a probe
 * started by the sidecar's own srt launcher, while the same probe unsandboxed reads every one (so
 * the scan can fail). Ordinary work still runs: `git commit` with the user's identity (and nothing
 * else of ~/.gitconfig), `npm install` of a local tarball, `python3 -m venv`, `cargo --version`,
 * the last three with the real HOME's own toolchains (nothing is written there).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandshakeResponse } from '@bastion/protocol';
import { describeAttack } from '../../../../test/support/attack.js';
import { homeReadPaths } from '../../src/sandbox/home-read-allowlist.js';
import { createPrivateTempDir, type PrivateTempDir } from '../../src/sandbox/private-temp-dir.js';
import { acquireSrtSession, type SrtSession } from '../../src/sandbox/srt-session.js';
import { plainLauncher, resolveDaemonEntry } from '../../src/supervisor/sidecar-launcher.js';
import { CANARY, makeCommandWorld, makeTempDir, type CommandWorld } from '../commands/command-harness.js';
import { runSandboxProbe, srtProbeLauncher } from '../support/sandbox-probe.js';
import { startTempHost, type TempHost } from '../support/temp-host.js';

const PROBE = fileURLToPath(new URL('./fixtures/read-probe.mjs', import.meta.url));
const REPOSITORY = fileURLToPath(new URL('../../../../', import.meta.url)).replace(/\/$/, '');

/** Relative to HOME: each holds a canary, and none but the shell files was in the old deny list. */
const CANARY_FILES = [
  '.bash_history',
  '.zsh_history',
  '.bash_login',
  '.zlogin',
  '.codex/auth.json',
  '.claude/.credentials.json',
  '.vault-token',
  '.local/share/keyrings/login.keyring',
  '.config/chromium/Default/Cookies',
  // In no list at all: the inversion is what hides it.
  'Documents/tax-return.txt',
] as const;

const IDENTITY = { name: 'Ada Example', email: 'ada@example.test' };

let srt: SrtSession;
let world: CommandWorld;
const realHome = process.env.HOME;

beforeAll(async () => {
  const root = makeTempDir('bastion-home-read-');
  process.env.HOME = join(root, 'home');
  srt = await acquireSrtSession();
  world = makeCommandWorld({ srt, root, layout: 'nested' });
  for (const relative of CANARY_FILES) {
    mkdirSync(dirname(join(world.home, relative)), { recursive: true });
    writeFileSync(join(world.home, relative), `${CANARY}-${relative}\n`);
  }
  // The user's gitconfig: an identity, and things no sandbox may see (a credential helper, an alias).
  writeFileSync(
    join(world.home, '.gitconfig'),
    `[user]\n\tname = ${IDENTITY.name}\n\temail = ${IDENTITY.email}\n[credential]\n\thelper = store\n[alias]\n\tcanary = !echo ${CANARY}-gitconfig\n`,
  );
  // An allowlisted toolchain directory: readable (and runnable) inside.
  mkdirSync(join(world.home, '.local', 'bin'), { recursive: true });
  writeFileSync(join(world.home, '.local', 'bin', 'hello-tool'), '#!/bin/sh\necho tool-ran\n', { mode: 0o755 });
}, 60_000);

afterAll(async () => {
  await world?.executor.close();
  await srt?.release();
  process.env.HOME = realHome;
  if (world) rmSync(world.root, { recursive: true, force: true });
});

const canaryPaths = () => CANARY_FILES.map((relative) => join(world.home, relative));

describeAttack('home-read', 'run_command children read nothing under HOME but the allowlist', () => {
  it('cannot read any canary (histories, login files, other agents’ credentials, vault token, keyring, browser cookies, a document): each is absent, and no canary is in the output or a log record', async () => {
    const run = world.run('sh', ['-c', 'for f in "$@"; do cat "$f" 2>&1; done', 'sh', ...canaryPaths()]);
    const end = await run.done;
    expect(end.type).toBe('command.end');
    expect(run.text()).not.toContain(CANARY);
    expect(run.text().match(/No such file or directory/g)).toHaveLength(CANARY_FILES.length);
    expect(JSON.stringify(world.records)).not.toContain(CANARY);
  });

  it('sees HOME as empty but for the workspace, userData’s own scratch path and the allowlist, and writes nothing to the real HOME', async () => {
    const run = world.run('sh', ['-c', 'ls -A "$HOME"; echo x > "$HOME/planted" && echo wrote']);
    await run.done;
    // `.bastion` (the scratch dir's parents) and `code` (the workspace's) and `.local` (the allowlist).
    expect(run.text().trim().split('\n').sort()).toEqual(['.bastion', '.local', 'code', 'wrote']);
    expect(existsSync(join(world.home, 'planted'))).toBe(false);
  });

  it('gets the git identity and nothing else of ~/.gitconfig: `git commit` works, the alias and credential helper are unseen', async () => {
    const run = world.run('sh', [
      '-c',
      'git init -q && echo hi > a.txt && git add a.txt && git commit -qm first && git log -1 --format="%an <%ae> / %cn <%ce>"; git config --global --list; git canary',
    ]);
    const end = await run.done;
    expect(end.type).toBe('command.end');
    const text = run.text();
    expect(text).toContain(`${IDENTITY.name} <${IDENTITY.email}> / ${IDENTITY.name} <${IDENTITY.email}>`);
    expect(text).not.toContain(CANARY);
    expect(text).not.toContain('credential.helper');
    expect(text).toContain("'canary' is not a git command");
  });

  it('runs a tool from an allowlisted HOME directory (~/.local/bin)', async () => {
    const run = world.run(join(world.home, '.local', 'bin', 'hello-tool'), []);
    await run.done;
    expect(run.text()).toBe('tool-ran\n');
  });
});

describeAttack('home-read', 'the sidecar reads nothing under HOME but its own needs and the allowlist', () => {
  let temp: PrivateTempDir;
  beforeAll(() => {
    temp = createPrivateTempDir();
  });
  afterAll(() => temp.remove());

  const launcher = () =>
    srtProbeLauncher(srt, world, temp.path, {
      homeReads: homeReadPaths({ home: world.home, daemonEntry: resolveDaemonEntry() }),
    });

  it('cannot read any canary nor ~/.gitconfig, while the workspace, userData and the allowlist read fine', async () => {
    writeFileSync(join(world.workspace, 'README.md'), 'workspace file');
    const tool = join(world.home, '.local', 'bin', 'hello-tool');
    const gitconfig = join(world.home, '.gitconfig');
    const { result, output } = await runSandboxProbe<Record<string, string>>(launcher(), PROBE, {
      paths: [...canaryPaths(), gitconfig, join(world.workspace, 'README.md'), tool],
    });
    for (const path of [...canaryPaths(), gitconfig]) expect(result[path], path).toBe('ENOENT');
    expect(output).not.toContain(CANARY);
    expect(result[join(world.workspace, 'README.md')]).toBe('workspace file');
    expect(result[tool]).toContain('tool-ran');
  });

  it('control: the same probe unsandboxed reads every canary, so the scan above can fail', async () => {
    const { result, output } = await runSandboxProbe<Record<string, string>>(plainLauncher, PROBE, {
      paths: canaryPaths(),
    });
    for (const path of canaryPaths()) expect(result[path]).toContain(CANARY);
    expect(output).toContain(CANARY);
  });
});

describe('home-read: Bastion itself under HOME', () => {
  let host: TempHost | undefined;
  afterAll(async () => {
    await host?.stop();
  });

  it('starts the real sidecar sandboxed when HOME holds the Bastion checkout (only its own install root is bound back)', async () => {
    host = await startTempHost({ home: dirname(REPOSITORY) });
    expect(host.capabilities.sandbox).toBe('srt');
    const response = await host.client.request<HandshakeResponse>('POST', '/handshake');
    expect(response.status).toBe(200);
  });
});

describe('home-read: ordinary work with the real HOME’s toolchains (HOME unreadable but the allowlist)', () => {
  let real: CommandWorld;
  beforeAll(() => {
    real = makeCommandWorld({ srt, root: makeTempDir('bastion-home-real-'), layout: 'real-home' });
  });
  afterAll(async () => {
    await real.executor.close();
    rmSync(real.root, { recursive: true, force: true });
  });

  it('`npm install` of a local tarball, offline (npm gets an empty throwaway cache: the real ~/.npm stays unread and unwritten)', async () => {
    const pkg = join(real.workspace, 'tiny');
    mkdirSync(pkg);
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'tiny', version: '1.0.0', main: 'index.js' }));
    writeFileSync(join(pkg, 'index.js'), 'module.exports = 42;\n');
    writeFileSync(join(real.workspace, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0' }));
    const run = real.run('sh', [
      '-c',
      'cd tiny && npm pack --silent >/dev/null && cd .. && npm install --offline --no-audit --no-fund ./tiny/tiny-1.0.0.tgz >/dev/null && node -p "require(\'tiny\')"',
    ]);
    const end = await run.done;
    expect(run.text()).toBe('42\n');
    expect(end).toMatchObject({ type: 'command.end', exit_code: 0 });
  });

  it('`python3 -m venv` (python3 from PATH: a pyenv shim under HOME where there is one)', async () => {
    const run = real.run('sh', ['-c', 'python3 -m venv .venv && .venv/bin/python -c "print(6 * 7)"']);
    const end = await run.done;
    expect(run.text()).toBe('42\n');
    expect(end).toMatchObject({ type: 'command.end', exit_code: 0 });
  });

  const cargo = (() => {
    try {
      return execFileSync('sh', ['-c', 'command -v cargo'], { encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  })();
  it.skipIf(cargo === '' || !cargo.startsWith(userInfo().homedir))('`cargo --version` from ~/.cargo/bin', async () => {
    const run = real.run('cargo', ['--version']);
    const end = await run.done;
    expect(run.text()).toMatch(/^cargo \d+\.\d+/);
    expect(end).toMatchObject({ type: 'command.end', exit_code: 0 });
  });
});
