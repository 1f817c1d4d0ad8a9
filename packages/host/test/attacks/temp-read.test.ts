/**
 * `secret-read`: a sandboxed command cannot read another's private TMPDIR (bastion-temp-denies.ts).
 * Two real command executors (two Bastions: each its own HOME, userData and workspace) run real
 * sandboxed commands, each host in its own temp root `bastion-<uid>/bastion-host-<16 hex>` as the
 * CLI claims it, both in one system temp dir (a fresh one here, so that only this file's hosts are in it):
 * a command of one cannot list or read what a running command of the other, a running sibling
 * command of its own host, or an MCP server's private dir hold, while the test reads each file
 * from outside to prove it was there; its own TMPDIR still works, and so do the wrap cache and
 * the pre-started sandbox under the new denies.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeAttack } from '../../../../test/support/attack.js';
import { acquireSrtSession, type SrtSession } from '../../src/sandbox/srt-session.js';
import {
  CANARY,
  makeCommandWorld,
  makeTempDir,
  type CommandRun,
  type CommandWorld,
} from '../commands/command-harness.js';

let srt: SrtSession;
let parent: string;
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

async function stop(world: CommandWorld, run: CommandRun): Promise<void> {
  world.abort(run.id);
  await run.done;
}

beforeAll(async () => {
  const base = makeTempDir('bastion-temp-read-');
  parent = join(base, 'tmp', `bastion-${process.getuid?.() ?? 0}`);
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
