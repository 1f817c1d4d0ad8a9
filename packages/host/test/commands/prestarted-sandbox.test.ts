/**
 * The pre-started run_command sandbox (prestarted-sandbox.ts) with the real executor and the real
 * sandbox: after a command, the next command's sandbox waits; a command is handed to it only when
 * its own wrap, built now, starts exactly that sandbox from the same inodes. Each attack waits
 * until the sandbox is set up (its waiter runs), changes the disk or the profile, and proves the
 * very next command is not handed to it and the protected file keeps its bytes.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMAND_DEFAULT_TIMEOUT_MS, scratchDirOf } from '@bastion/protocol';
import { makeTempDir, waitFor } from '@bastion/test-support';
import { describeAttack } from '../../../../test/support/attack.js';
import { connectedChannelPair } from '../../../../test/support/channel-pair.js';
import { descendantPids, isSameProcessRunning, processStartTime } from '../../src/process-tree.js';
import { makeCommandWorld, useCommandWorldInWorkspace, type CommandRun, type CommandWorld } from './command-harness.js';

const suite = useCommandWorldInWorkspace('bastion-prestart-');

function startedRecord(world: CommandWorld, id: string) {
  return world.records.find((record) => record.event === 'command.started' && record.fields.command_id === id);
}

function prestartedOf(run: CommandRun, world = suite.world): unknown {
  return startedRecord(world, run.id)?.fields.prestarted;
}

async function sh(script: string, world = suite.world) {
  const run = world.run('/bin/sh', ['-c', script]);
  const end = await run.done;
  return { run, end, exit: end.type === 'command.end' ? end.exit_code : undefined };
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** The waiting sandbox once set up (its waiter shell runs under the seccomp helper): its pids with their start times. */
async function waitingSandbox(
  world = suite.world,
): Promise<{ pid: number; tree: Array<{ pid: number; started: string }> }> {
  let found: { pid: number; tree: Array<{ pid: number; started: string }> } | undefined;
  await waitFor(
    () => {
      const pid = world.executor.prestartedPid;
      if (pid === undefined) return false;
      const pids = [pid, ...descendantPids(pid)];
      if (!pids.some((each) => cmdline(each).startsWith("/bin/sh\0-c\0nl='"))) return false;
      found = {
        pid,
        tree: pids.flatMap((each) => {
          const started = processStartTime(each);
          return started === undefined ? [] : [{ pid: each, started }];
        }),
      };
      return true;
    },
    20_000,
    'a pre-started sandbox with its waiter running',
  );
  if (found === undefined) throw new Error('unreachable');
  return found;
}

/** Those of `tree` still running: the same process (pid and start time), not a zombie waiting to be reaped. */
function alive(tree: Array<{ pid: number; started: string }>): number[] {
  return tree.filter(({ pid, started }) => isSameProcessRunning(pid, started)).map(({ pid }) => pid);
}

/** The private temp dir a waiting sandbox was spawned for (bwrap's `--setenv TMPDIR <dir>`). */
function privateTempOf(pid: number): string {
  const words = cmdline(pid).split('\0');
  const at = words.findIndex((word, i) => word === '--setenv' && words[i + 1] === 'TMPDIR');
  const dir = words[at + 2];
  if (at < 0 || dir === undefined) throw new Error('no TMPDIR in the sandbox argv');
  return dir;
}

/** What a command prints about itself, the private temp dir's name put aside (each command has its own). */
const SELF_REPORT = 'env | sort; pwd; id -u; printf "to stderr\\n" >&2; ls -A "$TMPDIR" | wc -l; exit 3';

describe('pre-started run_command sandbox', () => {
  it('hands the next command to the sandbox pre-started after the one before it', async () => {
    await sh('true');
    const { pid } = await waitingSandbox();
    const next = await sh('echo handed');
    expect(prestartedOf(next.run)).toBe(true);
    expect(next.exit).toBe(0);
    expect(next.run.text()).toBe('handed\n');
    expect(processStartTime(pid)).toBeUndefined();
  });

  it('a command’s sorted environment, working directory, uid, exit code, stdout and stderr are the same handed to a pre-started sandbox as spawned fresh', async () => {
    // A new directory: the wrap cache misses, the waiting sandbox does not fit, the command is spawned.
    mkdirSync(join(suite.world.workspace, `fresh-${Date.now()}`));
    const fresh = await sh(SELF_REPORT);
    expect(prestartedOf(fresh.run)).toBe(false);
    await waitingSandbox();
    const handed = await sh(SELF_REPORT);
    expect(prestartedOf(handed.run)).toBe(true);
    const text = (run: CommandRun, stream: 'stdout' | 'stderr') => Buffer.concat(run[stream]).toString('utf8');
    const privateTemp = (run: CommandRun) => /^TMPDIR=(.*)$/m.exec(text(run, 'stdout'))?.[1] ?? 'none';
    expect(privateTemp(fresh.run)).not.toBe(privateTemp(handed.run));
    const withoutTemp = (run: CommandRun) => text(run, 'stdout').replaceAll(privateTemp(run), '<private temp>');
    expect(withoutTemp(handed.run)).toBe(withoutTemp(fresh.run));
    expect(text(handed.run, 'stderr')).toBe(text(fresh.run, 'stderr'));
    expect([handed.exit, fresh.exit]).toEqual([3, 3]);
    expect(withoutTemp(handed.run)).toContain(`PWD=${suite.world.workspace}\n`);
  });

  it('a command handed to a pre-started sandbox runs exactly once: 20 appends, each to the next sandbox, make 20 lines', async () => {
    const log = join(suite.world.workspace, 'runs.log');
    let handed = 0;
    for (let i = 0; i < 20; i += 1) {
      await waitingSandbox();
      const { run, exit } = await sh('echo run >> runs.log');
      expect(exit).toBe(0);
      if (prestartedOf(run) === true) handed += 1;
    }
    expect(readFileSync(log, 'utf8')).toBe('run\n'.repeat(20));
    expect(handed).toBeGreaterThanOrEqual(19);
  });

  it('a pre-started sandbox whose waiter was killed just before the next command is never used: that command is spawned and runs once', async () => {
    await sh('true');
    const { tree } = await waitingSandbox();
    const waiter = tree.find(({ pid }) => cmdline(pid).startsWith("/bin/sh\0-c\0nl='"));
    if (waiter === undefined) throw new Error('no waiter');
    // At once: the host may not have seen it die yet when the command is written to it.
    process.kill(waiter.pid, 'SIGKILL');
    const next = await sh('echo spawned');
    expect(next.run.text()).toBe('spawned\n');
    expect(next.exit).toBe(0);
    expect(prestartedOf(next.run)).toBe(false);
    await waitFor(() => alive(tree).length === 0, 10_000, 'the killed sandbox to end');
  });

  it('a program that cannot be run is not handed over: its error is the seccomp helper’s, as for a fresh spawn', async () => {
    await sh('true');
    await waitingSandbox();
    const run = suite.world.run('no-such-program-prestart', []);
    const end = await run.done;
    expect(prestartedOf(run)).toBe(false);
    expect(end).toMatchObject({ type: 'command.end', exit_code: 1 });
    expect(run.text()).toBe('apply-seccomp: execvp: No such file or directory\n');
  });

  it('two commands started together: one is handed the pre-started sandbox, the other spawned, each with a private temp dir of its own', async () => {
    await sh('true');
    await waitingSandbox();
    const script = 'printf "%s\\n" "$TMPDIR"; sleep 0.3';
    const [first, second] = [suite.world.run('/bin/sh', ['-c', script]), suite.world.run('/bin/sh', ['-c', script])];
    await Promise.all([first.done, second.done]);
    expect([prestartedOf(first), prestartedOf(second)].sort()).toEqual([false, true]);
    expect(first.text()).not.toBe(second.text());
    expect(first.text()).toMatch(/^\/.+\n$/);
  });

  it('a command from another sidecar (one respawned with a workspace granted) is never handed the sandbox pre-started for the first', async () => {
    await sh('true');
    const { tree } = await waitingSandbox();
    const other = makeTempDir('bastion-prestart-granted-');
    const { host, sidecar } = connectedChannelPair();
    const detach = suite.world.executor.attach({
      channel: host,
      config: {
        allowedOrigins: ['http://127.0.0.1:1'],
        userData: suite.world.userData,
        workspaces: [suite.world.workspace, other],
        capabilities: { sandbox: 'srt', shell: true, platform: process.platform },
      },
    });
    try {
      const ended = new Promise((resolve) => sidecar.on('command.end', resolve));
      sidecar.send({
        v: 1,
        type: 'command.request',
        id: 'cmd_granted1',
        command: 'true',
        args: [],
        cwd: suite.world.workspace,
        workspace_root: suite.world.workspace,
        scratch_dir: scratchDirOf(suite.world.userData, 'ses_minexx0001'),
        timeout_ms: COMMAND_DEFAULT_TIMEOUT_MS,
      });
      await ended;
      expect(startedRecord(suite.world, 'cmd_granted1')?.fields.prestarted).toBe(false);
      await waitFor(() => alive(tree).length === 0, 10_000, 'the sandbox pre-started for the first sidecar to end');
    } finally {
      detach();
    }
  });
});

describeAttack('stale-wrap', 'a pre-started sandbox never runs a command under a stale protection', () => {
  it('attack: AGENTS.md made at the root after the sandbox was pre-started is write-denied to the very next command, which is not handed to it', async () => {
    await sh('true');
    await waitingSandbox();
    writeFileSync(join(suite.world.workspace, 'AGENTS.md'), 'the user wrote this\n');
    const next = await sh('printf planted > AGENTS.md');
    expect(readFileSync(join(suite.world.workspace, 'AGENTS.md'), 'utf8')).toBe('the user wrote this\n');
    expect(next.exit).not.toBe(0);
    expect(prestartedOf(next.run)).toBe(false);
  });

  it('attack: a protected CLAUDE.md replaced by rename after the sandbox was pre-started (as editors save) is write-denied to the very next command, which is not handed to it', async () => {
    const steering = join(suite.world.workspace, 'CLAUDE.md');
    writeFileSync(steering, 'first\n');
    await sh('true');
    await sh('true');
    await waitingSandbox();
    // Same name, type and mode: the wrap cache's disk state holds, but the waiting sandbox's mount holds the old inode.
    writeFileSync(`${steering}.swp`, 'saved by the user\n');
    renameSync(`${steering}.swp`, steering);
    const next = await sh('printf planted > CLAUDE.md');
    expect(readFileSync(steering, 'utf8')).toBe('saved by the user\n');
    expect(next.exit).not.toBe(0);
    expect(prestartedOf(next.run)).toBe(false);
  });
});

describe('pre-started sandboxes end with the host', () => {
  it('close() kills the waiting sandbox (every pid of its tree) and removes its private temp dir', async () => {
    const world = makeCommandWorld({ srt: suite.srt, root: makeTempDir('bastion-prestart-close-') });
    await sh('true', world);
    await sh('true', world);
    const { pid, tree } = await waitingSandbox(world);
    const privateTemp = privateTempOf(pid);
    expect(existsSync(privateTemp)).toBe(true);
    await world.executor.close();
    expect(alive(tree)).toEqual([]);
    expect(existsSync(privateTemp)).toBe(false);
    expect(world.executor.prestartedPid).toBeUndefined();
  });

  it('a host killed with SIGKILL leaves no pre-started sandbox process running', async () => {
    const root = makeTempDir('bastion-prestart-killed-');
    // Its temp dir inside root, as the CLI's host temp root holds it (removed at the next start there).
    const temp = join(root, 'tmp');
    mkdirSync(temp);
    const host = spawn(
      process.execPath,
      [fileURLToPath(new URL('./fixtures/prestart-host.mjs', import.meta.url)), root],
      { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TMPDIR: temp } },
    );
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        host.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString('utf8');
          if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
        });
        host.once('exit', () => reject(new Error(`the fixture host exited: ${out}`)));
      });
      const { pid } = JSON.parse(line) as { pid: number };
      expect(privateTempOf(pid).startsWith(`${temp}/`)).toBe(true);
      const tree = [pid, ...descendantPids(pid)].flatMap((each) => {
        const started = processStartTime(each);
        return started === undefined ? [] : [{ pid: each, started }];
      });
      expect(tree.some(({ pid: each }) => cmdline(each).startsWith("/bin/sh\0-c\0nl='"))).toBe(true);
      host.kill('SIGKILL');
      await waitFor(() => alive(tree).length === 0, 15_000, 'every process of the pre-started sandbox to end');
      expect(alive(tree)).toEqual([]);
    } finally {
      host.kill('SIGKILL');
    }
  }, 60_000);
});
