/**
 * The host's command executor with the real sandbox: every attack runs as a real command under
 * the per-command srt profile, and each test proves the negative (the canary is in no output and
 * no log record, the file keeps its bytes, the server is never reached, the process is gone).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAttack } from '../../../../test/support/attack.js';
import {
  COMMAND_MAX_CONCURRENT,
  COMMAND_MAX_OUTPUT_BYTES,
  COMMAND_MAX_QUEUED,
  COMMAND_OUTPUT_CHUNK_BYTES,
  scratchDirOf,
} from '@bastion/protocol';
import { acquireSrtSession, type SrtSession } from '../../src/sandbox/srt-session.js';
import { waitFor } from '@bastion/test-support';
import {
  CANARY,
  holdsNothingWritten,
  makeCommandWorld,
  makeTempDir,
  octalEscapedPath,
  processesWith,
  type CommandWorld,
} from './command-harness.js';

let srt: SrtSession;
let world: CommandWorld;
const realHome = process.env.HOME;

async function untilOutput(run: { text(): string }, needle: string): Promise<void> {
  while (!run.text().includes(needle)) await new Promise((resolve) => setTimeout(resolve, 20));
}

beforeAll(async () => {
  const root = makeTempDir('bastion-commands-');
  // srt resolves its session's HOME secrets from HOME: point it at the temporary one first.
  process.env.HOME = join(root, 'home');
  srt = await acquireSrtSession();
  world = makeCommandWorld({ srt, root });
}, 60_000);

afterAll(async () => {
  await world?.executor.close();
  await srt?.release();
  process.env.HOME = realHome;
  if (world) rmSync(world.root, { recursive: true, force: true });
});

function expectNoCanaryAnywhere(text: string): void {
  expect(text).not.toContain(CANARY);
  expect(JSON.stringify(world.records)).not.toContain(CANARY);
}

describe('command executor: ordinary commands', () => {
  it('runs a command without a shell and streams its output', async () => {
    const run = world.run('echo', ['hello', '$HOME', '*']);
    const end = await run.done;
    expect(end).toMatchObject({ type: 'command.end', exit_code: 0, timed_out: false, truncated: false });
    expect(run.text()).toBe('hello $HOME *\n');
  });

  it('gives the command only PATH, HOME, LANG, TERM, TMPDIR and PWD, its working directory', async () => {
    const run = world.run('env', []);
    await run.done;
    const lines = run.text().trim().split('\n');
    expect(lines.map((line) => line.split('=')[0]).sort()).toEqual(['HOME', 'LANG', 'PATH', 'PWD', 'TERM', 'TMPDIR']);
    expect(lines).toContain(`PWD=${world.workspace}`);
  });

  it("starts no relay to srt's proxy beside the command: no process in its PID namespace runs one", async () => {
    // Every process the command can see, with its command line; srt's relay script names socat and TCP6-LISTEN.
    const run = world.run('sh', ['-c', 'for f in /proc/[0-9]*/cmdline; do tr "\\0" " " < "$f"; echo; done']);
    await run.done;
    const lines = run.text().trim().split('\n');
    expect(lines.some((line) => line.includes('/proc/[0-9]*/cmdline'))).toBe(true);
    expect(lines.filter((line) => /socat|LISTEN|_srt_/.test(line))).toEqual([]);
  });

  it('gives each command a private 0700 TMPDIR and removes it afterwards', async () => {
    const run = world.run('sh', ['-c', 'echo "$TMPDIR"; stat -c %a "$TMPDIR"; echo x > "$TMPDIR/f" && echo wrote']);
    await run.done;
    const [tmp, mode, wrote] = run.text().trim().split('\n');
    expect(mode).toBe('700');
    expect(wrote).toBe('wrote');
    expect(tmp && existsSync(tmp)).toBe(false);
  });

  it('writes in the workspace and in its own scratch dir', async () => {
    const scratch = scratchDirOf(world.userData, 'ses_minexx0001');
    const run = world.run('sh', ['-c', `echo ok > made-here && echo ok > ${scratch}/note`]);
    expect(await run.done).toMatchObject({ exit_code: 0 });
    expect(readFileSync(join(world.workspace, 'made-here'), 'utf8')).toBe('ok\n');
    expect(readFileSync(join(scratch, 'note'), 'utf8')).toBe('ok\n');
  });
});

describeAttack('secret-read', 'run_command children under the per-command kernel profile', () => {
  it('denies `sh -c` reading auth.json by a computed path', async () => {
    const run = world.run('sh', ['-c', `cat "$(printf '${octalEscapedPath(world.userData)}')/auth.json"`]);
    const end = await run.done;
    expect(end).toMatchObject({ type: 'command.end' });
    expect(end.type === 'command.end' && end.exit_code).not.toBe(0);
    expectNoCanaryAnywhere(run.text());
  });

  it('denies `python3 -c` reading auth.json by a computed path', async () => {
    const hex = Buffer.from(world.userData).toString('hex');
    const script = `import os;print(open(os.path.join(bytes.fromhex('${hex}').decode(),'auth.json')).read())`;
    const run = world.run('/usr/bin/python3', ['-c', script]);
    const end = await run.done;
    expect(end.type === 'command.end' && end.exit_code).not.toBe(0);
    expectNoCanaryAnywhere(run.text());
  });

  it('denies `cat ~/.ssh/id_rsa`', async () => {
    const run = world.run('cat', [join(world.home, '.ssh', 'id_rsa')]);
    const end = await run.done;
    expect(end.type === 'command.end' && end.exit_code).not.toBe(0);
    expectNoCanaryAnywhere(run.text());
  });

  it('denies reading auth.json through a symlink placed in the workspace', async () => {
    symlinkSync(join(world.userData, 'auth.json'), join(world.workspace, 'innocent.json'));
    const run = world.run('cat', ['innocent.json']);
    const end = await run.done;
    expect(end.type === 'command.end' && end.exit_code).not.toBe(0);
    expectNoCanaryAnywhere(run.text());
  });

  it("denies another session's scratch dir", async () => {
    const run = world.run('sh', [
      '-c',
      `cat "$(printf '${octalEscapedPath(world.userData)}')/scratch/ses_otherxx01/notes"`,
    ]);
    await run.done;
    expectNoCanaryAnywhere(run.text());
  });

  it('denies writes outside the workspace, to ~/.bashrc, userData and /tmp/claude, leaving the bytes unchanged', async () => {
    const targets = [join(world.outside, 'kept.txt'), join(world.home, '.bashrc'), join(world.userData, 'auth.json')];
    const before = targets.map((path) => readFileSync(path));
    const script = targets.map((path) => `echo pwned >> "$(printf '${octalEscapedPath(path)}')"`).join('; ');
    const probe = `/tmp/claude/bastion-probe-${process.pid}`;
    const run = world.run('sh', [
      '-c',
      `${script}; echo pwned > "$(printf '${octalEscapedPath(world.outside)}')/new.txt"; echo pwned > "$(printf '${octalEscapedPath(probe)}')"`,
    ]);
    await run.done;
    targets.forEach((path, index) => expect(readFileSync(path).equals(before[index] as Buffer)).toBe(true));
    expect(existsSync(join(world.outside, 'new.txt'))).toBe(false);
    // srt's shared TMPDIR would be a channel between commands and the sidecar: write-denied too.
    expect(existsSync(probe)).toBe(false);
  });

  it('cannot plant code that runs later outside the sandbox: git hooks/config, existing .envrc and .vscode', async () => {
    mkdirSync(join(world.workspace, '.git', 'objects'), { recursive: true });
    writeFileSync(join(world.workspace, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(world.workspace, '.git', 'config'), '[core]\n');
    writeFileSync(join(world.workspace, '.envrc'), 'export SAFE=1\n');
    mkdirSync(join(world.workspace, '.vscode'));
    const plant =
      'mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit; echo evil >> .git/config; echo evil > .envrc; echo {} > .vscode/tasks.json';
    const run = world.run('sh', ['-c', `${plant}; echo blob > .git/objects/ok && echo objects-writable`]);
    await run.done;
    expect(run.text()).toContain('objects-writable');
    expect(existsSync(join(world.workspace, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(readFileSync(join(world.workspace, '.git', 'config'), 'utf8')).toBe('[core]\n');
    expect(readFileSync(join(world.workspace, '.envrc'), 'utf8')).toBe('export SAFE=1\n');
    expect(existsSync(join(world.workspace, '.vscode', 'tasks.json'))).toBe(false);
    for (const path of ['.git', '.envrc', '.vscode', 'made-here'])
      rmSync(join(world.workspace, path), { recursive: true, force: true });
  });

  it('cannot rewrite a dev container’s devcontainer.json (its initializeCommand runs on the host), at the root or nested: both keep their bytes', async () => {
    const files = ['.devcontainer/devcontainer.json', 'svc/.devcontainer/devcontainer.json'];
    for (const file of files) {
      mkdirSync(join(world.workspace, file, '..'), { recursive: true });
      writeFileSync(join(world.workspace, file), '{"image":"node"}\n');
    }
    const planted = '{"initializeCommand":"touch /tmp/pwned"}';
    const run = world.run('sh', ['-c', files.map((file) => `echo '${planted}' > ${file}`).join('; ') + '; echo done']);
    await run.done;
    expect(run.text()).toContain('done');
    for (const file of files)
      expect(readFileSync(join(world.workspace, file), 'utf8'), file).toBe('{"image":"node"}\n');
    for (const path of ['.devcontainer', 'svc']) rmSync(join(world.workspace, path), { recursive: true, force: true });
  });

  it('cannot rewrite the project instructions the next run reads: existing AGENTS.md and CLAUDE.md keep their bytes', async () => {
    writeFileSync(join(world.workspace, 'AGENTS.md'), 'Run the tests.\n');
    writeFileSync(join(world.workspace, 'CLAUDE.md'), 'Be brief.\n');
    const run = world.run('sh', [
      '-c',
      'echo evil > AGENTS.md; echo evil >> CLAUDE.md; echo evil > x.md; mv -f x.md AGENTS.md; echo done',
    ]);
    await run.done;
    expect(run.text()).toContain('done');
    expect(readFileSync(join(world.workspace, 'AGENTS.md'), 'utf8')).toBe('Run the tests.\n');
    expect(readFileSync(join(world.workspace, 'CLAUDE.md'), 'utf8')).toBe('Be brief.\n');
    for (const path of ['AGENTS.md', 'CLAUDE.md', 'x.md']) rmSync(join(world.workspace, path), { force: true });
  });

  it('leaves no placeholder in the worktree: `git add -A` works while the missing hooks dir is denied', async () => {
    execFileSync('git', ['init', '-q', world.workspace]);
    rmSync(join(world.workspace, '.git', 'hooks'), { recursive: true, force: true });
    const run = world.run('sh', [
      '-c',
      'echo a > added.txt && git add -A && git status --short added.txt; mkdir .git/hooks',
    ]);
    await run.done;
    expect(run.text()).toContain('A  added.txt');
    expect(run.text()).not.toContain('??');
    expect(holdsNothingWritten(join(world.workspace, '.git', 'hooks'))).toBe(true);
    expect(run.text()).toMatch(/mkdir/);
    for (const path of ['.git', 'added.txt']) rmSync(join(world.workspace, path), { recursive: true, force: true });
  });

  it("has no network: a connection to a host loopback port never arrives, and nothing listens on srt's relay ports", async () => {
    let reached = 0;
    const server: Server = createServer((socket) => {
      reached += 1;
      socket.destroy();
    });
    // An address of its own in 127/8: a client of another test file retrying its own closed port on
    // 127.0.0.1 can never land here and be counted as the sandbox's connection.
    const address = `127.${1 + (process.pid % 250)}.${1 + Math.floor(Math.random() * 250)}.${2 + Math.floor(Math.random() * 250)}`;
    await new Promise<void>((resolve) => server.listen(0, address, resolve));
    const port = (server.address() as { port: number }).port;
    // 3128 and 1080: where srt would start relays to its proxy; Bastion's wraps get no proxy route.
    const script = [
      'import socket',
      `for address in (('${address}', ${port}), ('localhost', 3128), ('localhost', 1080)):`,
      '  try:',
      "    socket.create_connection(address, timeout=3); print('connected')",
      '  except OSError:',
      "    print('refused')",
    ].join('\n');
    const run = world.run('/usr/bin/python3', ['-c', script]);
    await run.done;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(run.text().trim().split('\n')).toEqual(['refused', 'refused', 'refused']);
    expect(reached).toBe(0);
  });
});

describe('command executor: control without the profile', () => {
  it('the same computed-path read DOES see the canary when run unsandboxed (--unsandboxed-shell), so the denials above are real', async () => {
    const control = makeCommandWorld({
      srt: undefined,
      root: makeTempDir('bastion-commands-control-'),
      capabilities: { sandbox: 'none', shell: true, platform: process.platform },
    });
    try {
      const run = control.run('sh', ['-c', `cat "$(printf '${octalEscapedPath(control.userData)}')/auth.json"`]);
      expect(await run.done).toMatchObject({ type: 'command.end', exit_code: 0 });
      expect(run.text()).toContain(CANARY);
      expect(JSON.stringify(control.records)).not.toContain(CANARY);
    } finally {
      rmSync(control.root, { recursive: true, force: true });
    }
  });

  it('refuses every command when the posture has no shell', async () => {
    const closed = makeCommandWorld({
      srt: undefined,
      root: makeTempDir('bastion-commands-closed-'),
      capabilities: { sandbox: 'none', shell: false, platform: process.platform },
    });
    try {
      const run = closed.run('touch', [join(closed.workspace, 'marker')]);
      expect(await run.done).toMatchObject({ type: 'command.error', code: 'COMMAND_SHELL_UNAVAILABLE' });
      expect(existsSync(join(closed.workspace, 'marker'))).toBe(false);
    } finally {
      rmSync(closed.root, { recursive: true, force: true });
    }
  });
});

describe('command executor: host re-validation', () => {
  const marker = () => join(world.workspace, 'must-not-exist');

  it.each([
    ['a cwd inside userData', { cwd: '<userData>' }, 'COMMAND_CWD_REFUSED'],
    ['a cwd outside the workspace', { cwd: '<outside>' }, 'COMMAND_CWD_REFUSED'],
    [
      'a workspace root the host never granted',
      { workspace_root: '<outside>', cwd: '<outside>' },
      'COMMAND_ROOT_REFUSED',
    ],
    ['userData as the workspace root', { workspace_root: '<userData>', cwd: '<userData>' }, 'COMMAND_ROOT_REFUSED'],
    ['a scratch dir of the wrong shape', { scratch_dir: '<outside>' }, 'COMMAND_SCRATCH_REFUSED'],
    ['a scratch dir that climbs', { scratch_dir: '<userData>/scratch/..' }, 'COMMAND_SCRATCH_REFUSED'],
  ])('refuses %s, and the command never runs', async (_name, overrides, code) => {
    const expand = (value: string) => value.replace('<userData>', world.userData).replace('<outside>', world.outside);
    const frame = Object.fromEntries(Object.entries(overrides).map(([key, value]) => [key, expand(value)]));
    const run = world.run('touch', [marker()], frame);
    expect(await run.done).toMatchObject({ type: 'command.error', code });
    expect(existsSync(marker())).toBe(false);
  });

  it('refuses a command name env would read as an assignment', async () => {
    const run = world.run('X=1', ['touch', marker()]);
    expect(await run.done).toMatchObject({ type: 'command.error', code: 'COMMAND_NAME_REFUSED' });
    expect(existsSync(marker())).toBe(false);
  });
});

describe('command executor: supervision', () => {
  it('on timeout kills the whole tree, a setsid background child included, before command.end', async () => {
    const tag = `${4000 + Math.floor(Math.random() * 1000)}.4242`;
    const run = world.run('sh', ['-c', `setsid sleep ${tag} >/dev/null 2>&1 </dev/null & echo started; sleep ${tag}`], {
      timeout_ms: 3_000,
    });
    await untilOutput(run, 'started');
    expect(processesWith(tag).length).toBeGreaterThan(0);
    const end = await run.done;
    expect(end).toMatchObject({ type: 'command.end', timed_out: true });
    expect(processesWith(tag)).toEqual([]);
  });

  it('aborts mid-run: command.aborted after cleanup, no command.end', async () => {
    const tag = `${5000 + Math.floor(Math.random() * 1000)}.4343`;
    const run = world.run('sh', ['-c', `sleep ${tag} & echo started; wait`]);
    await untilOutput(run, 'started');
    expect(processesWith(tag).length).toBeGreaterThan(0);
    world.abort(run.id);
    expect(await run.done).toMatchObject({ type: 'command.aborted' });
    expect(processesWith(tag)).toEqual([]);
    expect(run.frames).not.toContain('command.end');
  });

  it('an abort landing while the sandbox is still being set up leaves no namespace behind', async () => {
    // bwrap's namespace init asks to die with its parent only after setup; this aborts inside that window.
    for (let attempt = 0; attempt < 8; attempt += 1) {
      const tag = `${7000 + Math.floor(Math.random() * 1000)}.${attempt}4646`;
      const run = world.run('sleep', [tag]);
      const spawned = () =>
        world.records.some((record) => record.event === 'command.started' && record.fields.command_id === run.id);
      while (!spawned()) await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setTimeout(resolve, attempt * 3));
      world.abort(run.id);
      expect(await run.done).toMatchObject({ type: 'command.aborted' });
      await waitFor(() => processesWith(tag).length === 0, 10_000, `every process of attempt ${attempt} to end`);
    }
  });

  it('truncates output over 1 MiB, in chunks of at most 64 KiB, and flags it', async () => {
    const run = world.run('seq', ['1', '1000000']);
    const end = await run.done;
    expect(end).toMatchObject({ type: 'command.end', exit_code: 0, truncated: true });
    const bytes = run.stdout.reduce((sum, chunk) => sum + chunk.byteLength, 0);
    expect(bytes).toBe(COMMAND_MAX_OUTPUT_BYTES);
    expect(run.largestChunk).toBeLessThanOrEqual(COMMAND_OUTPUT_CHUNK_BYTES);
  });

  it(`runs at most ${COMMAND_MAX_CONCURRENT} at once; the next waits for a free slot`, async () => {
    const holders = Array.from({ length: COMMAND_MAX_CONCURRENT }, () =>
      world.run('sh', ['-c', 'echo started; exec sleep 300']),
    );
    for (const holder of holders) await untilOutput(holder, 'started');
    const order: string[] = [];
    const waiting = world.run('echo', ['fifth']);
    void waiting.done.then(() => order.push('fifth-ended'));
    expect(world.executor.running).toBe(COMMAND_MAX_CONCURRENT);
    const first = holders[0]!;
    world.abort(first.id);
    await first.done;
    order.push('first-aborted');
    await waiting.done;
    expect(order).toEqual(['first-aborted', 'fifth-ended']);
    expect(waiting.text()).toBe('fifth\n');
    for (const holder of holders.slice(1)) world.abort(holder.id);
    await Promise.all(holders.map((holder) => holder.done));
  });

  it(`refuses beyond ${COMMAND_MAX_CONCURRENT} running + ${COMMAND_MAX_QUEUED} queued; an aborted queued command never runs`, async () => {
    const holders = Array.from({ length: COMMAND_MAX_CONCURRENT }, () =>
      world.run('sh', ['-c', 'echo started; exec sleep 300']),
    );
    for (const holder of holders) await untilOutput(holder, 'started');
    const queued = Array.from({ length: COMMAND_MAX_QUEUED }, (_, index) =>
      world.run('touch', [join(world.workspace, `queued-${index}`)]),
    );
    const overflow = world.run('touch', [join(world.workspace, 'overflow')]);
    expect(await overflow.done).toMatchObject({ type: 'command.error', code: 'COMMAND_QUEUE_FULL' });
    for (const run of queued) world.abort(run.id);
    for (const run of queued) expect(await run.done).toMatchObject({ type: 'command.aborted' });
    for (const holder of holders) world.abort(holder.id);
    await Promise.all(holders.map((holder) => holder.done));
    const leftovers = readdirSync(world.workspace).filter((name) => name.startsWith('queued-') || name === 'overflow');
    expect(leftovers).toEqual([]);
  });
});
