/**
 * `secret-read`: a sandboxed command cannot read another's private TMPDIR (bastion-temp-denies.ts).
 * Two real command executors (two Bastions: each its own HOME, userData and workspace) run real
 * sandboxed commands, each host in its own temp root `bastion-<uid>/bastion-host-<16 hex>` as the
 * CLI claims it, both in one system temp dir (a fresh one here, so that only this file's hosts are in it):
 * a command of one cannot list or read what a running command of the other, a running sibling
 * command of its own host, or an MCP server's private dir hold, while the test reads each file
 * from outside to prove it was there; its own TMPDIR still works, and so do the wrap cache and
 * the pre-started sandbox under the new denies. The same holds for what else runs sandboxed: code
 * running as a CLI host's sidecar (the misbehaving-sidecar fixture under the sidecar's policy), a
 * real in-process host's sidecar (seen through its mount namespace), a real in-process host's
 * command (run by its agent) reading another in-process host's temp dir (each in-process host
 * claims a root of its own in the same parent, leaving the process's TMPDIR alone), and a command
 * of an executor built without a host (its TMPDIR in the system temp dir itself).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SCRIPTED_MODEL } from '@bastion/test-support';
import { describeAttack } from '../../../../test/support/attack.js';
import { descendantPids } from '../../src/process-tree.js';
import { createPrivateTempDir } from '../../src/sandbox/private-temp-dir.js';
import { acquireSrtSession, type SrtSession } from '../../src/sandbox/srt-session.js';
import { commandLine } from '../sandbox/process-tree.js';
import { runSandboxProbe, srtProbeLauncher } from '../support/sandbox-probe.js';
import { startScriptedHost, type ScriptedHost } from '../support/scripted-agent.js';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { AgentDriver, toolResultOf } from '../commands/agent-stream.js';
import {
  CANARY,
  makeCommandWorld,
  makeTempDir,
  type CommandRun,
  type CommandWorld,
} from '../commands/command-harness.js';

const PROBE = fileURLToPath(new URL('../sandbox/fixtures/misbehaving-sidecar.mjs', import.meta.url));

let srt: SrtSession;
/** The system temp dir of this file's hosts: CLI hosts claim their roots in its `bastion-<uid>`. */
let systemTemp: string;
let parent: string;
let base: string;
let rootA: string;
let rootB: string;
let hostA: CommandWorld;
let hostB: CommandWorld;
const realHome = process.env.HOME;
const realTmpdir = process.env.TMPDIR;

/** A root as a CLI host claims one, in the parent of this user's roots. */
function claimedRoot(): string {
  const root = join(parent, `bastion-host-${randomBytes(8).toString('hex')}`);
  mkdirSync(root, { mode: 0o700 });
  return root;
}

/** What the executor makes a command's private temp dir in: its host's root (the process's TMPDIR, as the CLI sets it). */
function useTemp(dir: string): void {
  process.env.TMPDIR = dir;
}

/**
 * Host A's commands from now on get their private temp dir in `dir`: a first command takes any
 * sandbox A pre-started elsewhere, and the next one is pre-started in `dir`.
 */
async function settleIn(dir: string): Promise<void> {
  useTemp(dir);
  await hostA.run('true', []).done;
}

async function output(run: CommandRun): Promise<string> {
  await run.done;
  return run.text();
}

/** A command that writes a canary into its own TMPDIR, says where, and stays running. */
async function holdCanary(world: CommandWorld, label: string): Promise<{ run: CommandRun; file: string }> {
  const run = world.run('sh', [
    '-c',
    `printf '%s' "${CANARY}-${label}" > "$TMPDIR/token"; echo "$TMPDIR/token"; sleep 30`,
  ]);
  for (let waited = 0; waited < 30_000 && !run.text().includes('/token'); waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const file = run.text().trim();
  if (!file.endsWith('/token')) throw new Error(`the canary command said ${JSON.stringify(run.text())}`);
  // Read from outside: the canary is on disk for as long as the attack below runs.
  expect(readFileSync(file, 'utf8')).toBe(`${CANARY}-${label}`);
  return { run, file };
}

/** The pid of the host's running daemon, inside its sandbox. */
function daemonPid(host: TempHost): number {
  const top = host.supervisor.current?.pid ?? -1;
  const daemon = [top, ...descendantPids(top)].find((pid) => /daemon\/dist\/main\.js$/.test(commandLine(pid)));
  if (daemon === undefined) throw new Error('no daemon process in the sidecar’s tree');
  return daemon;
}

/** A path as the host's running sidecar sees it: through its own mount namespace (/proc/<pid>/root). */
function sidecarView(host: TempHost): (path: string) => string {
  const daemon = daemonPid(host);
  return (path) => `/proc/${daemon}/root${path}`;
}

/** The host's sidecar's TMPDIR, as its environment says. */
function sidecarTmpdir(host: TempHost): string {
  const line = readFileSync(`/proc/${daemonPid(host)}/environ`, 'utf8')
    .split('\0')
    .find((entry) => entry.startsWith('TMPDIR='));
  if (line === undefined) throw new Error('the sidecar has no TMPDIR');
  return line.slice('TMPDIR='.length);
}

async function stop(world: CommandWorld, run: CommandRun): Promise<void> {
  world.abort(run.id);
  await run.done;
}

beforeAll(async () => {
  base = makeTempDir('bastion-temp-read-');
  systemTemp = join(base, 'tmp');
  parent = join(systemTemp, `bastion-${process.getuid?.() ?? 0}`);
  mkdirSync(parent, { recursive: true, mode: 0o700 });
  rootA = claimedRoot();
  rootB = claimedRoot();
  useTemp(rootA);
  process.env.HOME = join(base, 'a', 'home');
  srt = await acquireSrtSession();
  hostA = makeCommandWorld({ srt, root: join(base, 'a') });
  hostB = makeCommandWorld({ srt, root: join(base, 'b') });
}, 60_000);

afterAll(async () => {
  await hostA?.executor.close();
  await hostB?.executor.close();
  await srt?.release();
  process.env.HOME = realHome;
  if (realTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = realTmpdir;
});

it('its own TMPDIR still works in a claimed temp root: write, read back, list and mktemp', async () => {
  await settleIn(rootA);
  const text = await output(
    hostA.run('sh', [
      '-c',
      'case "$TMPDIR" in */bastion-host-*/bastion-cmd-*) echo inroot;; esac; printf own > "$TMPDIR/f" && cat "$TMPDIR/f" && echo && ls "$TMPDIR" && t=$(mktemp) && echo made > "$t" && cat "$t"',
    ]),
  );
  expect(text).toBe('inroot\nown\nf\nmade\n');
});

it('in a claimed temp root a repeated command is served from the wrap cache and handed to a pre-started sandbox, while other hosts’ roots come and go', async () => {
  await settleIn(rootA);
  const started = [];
  for (let i = 0; i < 4; i += 1) {
    const run = hostA.run('true', []);
    await run.done;
    expect(run.text()).toBe('');
    started.push(
      hostA.records.find((record) => record.event === 'command.started' && record.fields.command_id === run.id),
    );
    // A model's turn: the next sandbox is pre-started meanwhile, and another CLI host starts and stops.
    const passing = claimedRoot();
    await new Promise((resolve) => setTimeout(resolve, 300));
    rmSync(passing, { recursive: true });
  }
  expect(started.slice(-2).map((record) => [record?.fields.wrap, record?.fields.prestarted])).toEqual([
    ['cached', true],
    ['cached', true],
  ]);
});

describeAttack('secret-read', 'a command cannot read other commands’ private temp dirs', () => {
  it('attack: a command cannot list or read a running command’s TMPDIR in another Bastion’s temp root', async () => {
    useTemp(rootB);
    const victim = await holdCanary(hostB, 'other-bastion');
    useTemp(rootA);
    try {
      const text = await output(
        hostA.run('sh', [
          '-c',
          `cat ${parent}/bastion-host-*/bastion-cmd-*/token; cat '${victim.file}'; echo "listed:$(ls -A '${rootB}')"`,
        ]),
      );
      expect(text).not.toContain(CANARY);
      expect(text).toContain('listed:\n');
      expect(text).toContain('No such file or directory');
    } finally {
      await stop(hostB, victim.run);
    }
  });

  it('attack: a command cannot read a running sibling command’s TMPDIR in its own host’s temp root', async () => {
    const victim = await holdCanary(hostA, 'sibling');
    try {
      const text = await output(
        hostA.run('sh', [
          '-c',
          `cat ${rootA}/bastion-cmd-*/token; cat '${victim.file}'; echo "listed:$(ls -A '${rootA}' | tr '\\n' ' ')"`,
        ]),
      );
      expect(text).not.toContain(CANARY);
      // Its own private temp dir, bound back over the empty root, is all it finds there.
      expect(text).toMatch(/^listed:bastion-cmd-\w+ $/m);
    } finally {
      await stop(hostA, victim.run);
    }
  });

  it('attack: a command cannot read an MCP server’s private dir in its own or another Bastion’s temp root', async () => {
    // Made as the MCP hub makes a server's private dir: mkdtemp in its host's temp root.
    const files = [rootA, rootB].map((root, at) => {
      const file = join(mkdtempSync(join(root, 'bastion-mcp-')), 'token');
      writeFileSync(file, `${CANARY}-mcp-${at}`);
      return file;
    });
    const text = await output(hostA.run('sh', ['-c', files.map((file) => `cat '${file}';`).join(' ')]));
    expect(text).not.toContain(CANARY);
    expect(text.match(/No such file or directory/g)).toHaveLength(2);
    for (const [at, file] of files.entries()) expect(readFileSync(file, 'utf8')).toBe(`${CANARY}-mcp-${at}`);
  });

  it('attack: a command cannot read a temp root another Bastion claims after the command started', async () => {
    await settleIn(rootA);
    const run = hostA.run('sh', [
      '-c',
      `echo "$TMPDIR"; while [ ! -e "$TMPDIR/go" ]; do sleep 0.05; done; cat ${parent}/bastion-host-*/bastion-cmd-*/token; echo "listed:$(ls -A '${parent}' | tr '\\n' ' ')"`,
    ]);
    for (let waited = 0; waited < 30_000 && !run.text().includes('\n'); waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const ownTemp = run.text().trim();
    const late = claimedRoot();
    const file = join(mkdtempSync(join(late, 'bastion-cmd-')), 'token');
    writeFileSync(file, `${CANARY}-late`);
    try {
      writeFileSync(join(ownTemp, 'go'), '');
      const text = await output(run);
      expect(text).not.toContain(CANARY);
      // Only its own root shows in the parent: the late one is not there for it.
      expect(text).toMatch(new RegExp(`^listed:${basename(rootA)} $`, 'm'));
      expect(readFileSync(file, 'utf8')).toBe(`${CANARY}-late`);
    } finally {
      rmSync(late, { recursive: true });
    }
  });
});

describeAttack('secret-read', 'the sidecar and an in-process host’s commands cannot read Bastion temp roots', () => {
  it('attack: code running as a CLI host’s sidecar cannot list or read another Bastion’s command dir, nor its own host’s command or MCP server dir', async () => {
    useTemp(rootB);
    const victim = await holdCanary(hostB, 'sidecar-other-bastion');
    // The sidecar's TMPDIR as a CLI host makes it: in the host's claimed root.
    useTemp(rootA);
    const sidecarTemp = createPrivateTempDir();
    const sibling = join(mkdtempSync(join(rootA, 'bastion-cmd-')), 'token');
    const server = join(mkdtempSync(join(rootA, 'bastion-mcp-')), 'token');
    writeFileSync(sibling, `${CANARY}-sidecar-sibling`);
    writeFileSync(server, `${CANARY}-sidecar-mcp`);
    try {
      const { result, output } = await runSandboxProbe<Record<string, { ok: boolean; detail: string }>>(
        srtProbeLauncher(srt, hostA, sidecarTemp.path),
        PROBE,
        {
          other_bastion: { op: 'read', path: victim.file },
          sibling: { op: 'read', path: sibling },
          server: { op: 'read', path: server },
          parent: { op: 'list', path: parent },
          own_root: { op: 'list', path: rootA },
          own_temp: { op: 'append', path: join(sidecarTemp.path, 'own'), text: 'own' },
        },
      );
      expect(output).not.toContain(CANARY);
      expect(result).toEqual({
        other_bastion: { ok: false, detail: 'ENOENT' },
        sibling: { ok: false, detail: 'ENOENT' },
        server: { ok: false, detail: 'ENOENT' },
        // Its own temp dir, bound back over the empty parent, is all it finds there.
        parent: { ok: true, detail: basename(rootA) },
        own_root: { ok: true, detail: basename(sidecarTemp.path) },
        own_temp: { ok: true, detail: 'own' },
      });
      for (const [file, label] of [
        [victim.file, 'sidecar-other-bastion'],
        [sibling, 'sidecar-sibling'],
        [server, 'sidecar-mcp'],
      ] as const) {
        expect(readFileSync(file, 'utf8')).toBe(`${CANARY}-${label}`);
      }
    } finally {
      sidecarTemp.remove();
      rmSync(dirname(sibling), { recursive: true });
      rmSync(dirname(server), { recursive: true });
      await stop(hostB, victim.run);
    }
  });

  it('attack: a real in-process host’s running sidecar does not see a temp root another Bastion claims after it started', async () => {
    // An in-process host claims a root of its own in the parent, and leaves the process's TMPDIR alone.
    useTemp(systemTemp);
    const home = join(base, 'in-process-home');
    mkdirSync(home, { recursive: true });
    const before = new Set(readdirSync(parent));
    const host = await startTempHost({ home });
    const late = claimedRoot();
    try {
      expect(host.capabilities.sandbox).toBe('srt');
      expect(process.env.TMPDIR).toBe(systemTemp);
      const own = readdirSync(parent).filter((name) => !before.has(name) && name !== basename(late));
      expect(own).toHaveLength(1);
      const file = join(mkdtempSync(join(late, 'bastion-cmd-')), 'token');
      writeFileSync(file, `${CANARY}-late-sidecar`);
      const seen = sidecarView(host);
      expect(existsSync(seen(file))).toBe(false);
      // Its own root, bound back over the empty parent with its own temp dir in it, is all it finds there.
      expect(readdirSync(seen(parent))).toEqual(own);
      expect(readdirSync(seen(join(parent, own[0] ?? '')))).toEqual([
        expect.stringMatching(/^bastion-sidecar-/) as unknown as string,
      ]);
      expect(readFileSync(file, 'utf8')).toBe(`${CANARY}-late-sidecar`);
    } finally {
      await host.stop();
      rmSync(late, { recursive: true });
      useTemp(rootA);
    }
  });

  it('attack: a command run by a real in-process host’s agent cannot list or read another in-process host’s temp dirs in the same process', async () => {
    // Two hosts in one process, as tests and embedders run them: each makes its temp dirs in a root of its own.
    useTemp(systemTemp);
    const victimHome = join(base, 'victim-home');
    mkdirSync(victimHome);
    const victim = await startTempHost({ home: victimHome });
    let attacker: ScriptedHost | undefined;
    try {
      const victimTemp = sidecarTmpdir(victim);
      // What the victim's sidecar keeps in its TMPDIR (SQLite's and Node's temp files), read from outside to prove it is there.
      const file = join(victimTemp, 'token');
      writeFileSync(file, `${CANARY}-in-process`);
      attacker = await startScriptedHost(
        [
          {
            kind: 'tool-call',
            name: 'run_command',
            input: {
              command: 'sh',
              args: [
                '-c',
                `cat '${file}'; cat ${parent}/bastion-host-*/bastion-sidecar-*/token; echo "listed:$(ls -A '${parent}' | tr '\\n' ' ')"`,
              ],
            },
          },
          { kind: 'text', pieces: ['looked'] },
        ],
        'in-process-key',
      );
      const agent = await AgentDriver.create(attacker.host, { provider: 'local', model: SCRIPTED_MODEL, mode: 'auto' });
      const outcome = await agent.say('look around the temp dir');
      const result = toolResultOf(outcome).output as { exit_code: number; stdout: string; stderr: string };
      // Each host's root is the one its sidecar's TMPDIR lies in.
      const attackerRoot = basename(dirname(sidecarTmpdir(attacker.host)));
      expect(`${result.stdout}${result.stderr}`).not.toContain(CANARY);
      expect(outcome.raw).not.toContain(CANARY);
      expect(result.stderr).toContain('No such file or directory');
      // Its own host's root, bound back with the command's own temp dir in it, is all it finds in the parent.
      expect(result.stdout).toBe(`listed:${attackerRoot} \n`);
      expect(readFileSync(file, 'utf8')).toBe(`${CANARY}-in-process`);
    } finally {
      await attacker?.host.stop();
      await attacker?.endpoint.close();
      await victim.stop();
      useTemp(rootA);
    }
  });

  it('attack: a command whose TMPDIR lies outside any root (an executor built without a host) cannot list or read a running command’s TMPDIR in a CLI host’s temp root', async () => {
    useTemp(rootB);
    const victim = await holdCanary(hostB, 'in-process');
    try {
      await settleIn(systemTemp);
      const text = await output(
        hostA.run('sh', [
          '-c',
          `case "$TMPDIR" in */bastion-host-*) ;; *) echo outside;; esac; cat ${parent}/bastion-host-*/bastion-cmd-*/token; cat '${victim.file}'; echo "listed:$(ls -A '${parent}' | tr '\\n' ' ')"`,
        ]),
      );
      expect(text).not.toContain(CANARY);
      expect(text).toMatch(/^outside\n/);
      expect(text).toContain('listed:\n');
      expect(text).toContain('No such file or directory');
    } finally {
      await stop(hostB, victim.run);
      useTemp(rootA);
    }
  });

  it('attack: a command whose TMPDIR lies outside any root, in a system temp dir with no Bastion temp parent yet, cannot read a root claimed there after it started', async () => {
    // Another system temp dir, where no host has claimed a root yet.
    const bare = join(base, 'bare-tmp');
    mkdirSync(bare);
    const bareParent = join(bare, basename(parent));
    try {
      await settleIn(bare);
      const run = hostA.run('sh', [
        '-c',
        `echo "$TMPDIR"; while [ ! -e "$TMPDIR/go" ]; do sleep 0.05; done; cat ${bareParent}/bastion-host-*/bastion-cmd-*/token; echo "listed:$(ls -A '${bareParent}' | tr '\\n' ' ')"`,
      ]);
      for (let waited = 0; waited < 30_000 && !run.text().includes('\n'); waited += 20) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const ownTemp = run.text().trim();
      // A CLI host starts in that temp dir: it makes the parent if missing and claims its root.
      mkdirSync(bareParent, { recursive: true, mode: 0o700 });
      const late = join(bareParent, `bastion-host-${randomBytes(8).toString('hex')}`);
      mkdirSync(late, { mode: 0o700 });
      const file = join(mkdtempSync(join(late, 'bastion-cmd-')), 'token');
      writeFileSync(file, `${CANARY}-bare`);
      writeFileSync(join(ownTemp, 'go'), '');
      const text = await output(run);
      expect(text).not.toContain(CANARY);
      expect(text).toMatch(/^listed:$/m);
      expect(readFileSync(file, 'utf8')).toBe(`${CANARY}-bare`);
    } finally {
      await settleIn(rootA);
      rmSync(bare, { recursive: true, force: true });
    }
  });
});
