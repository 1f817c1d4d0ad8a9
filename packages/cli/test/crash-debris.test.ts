/**
 * A host killed with SIGKILL leaves nothing in the temp dir for good (issue 16 §4), as real CLI
 * processes (srt posture) with TMPDIR pointed at a folder of this test's own, so every name in it
 * is one this host made. The only entry a host makes there is its journaled temp root; srt's
 * sockets and directories and the sidecar's temp dir are inside it. After a SIGKILL the next start
 * on the same home removes exactly that root, and keeps a user's directory named like one. The CLI
 * claims the root before it starts srt and before the host holds the home's lock
 * (host-start-prelude.ts), so a start the lock refuses must give its own root back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCliUntilFirstLine, isAlive, waitFor, makeTempDir } from '@bastion/test-support';

const LOOK_ALIKE = 'bastion-host-0123456789abcdef';
const CLI = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

async function startHost(home: string, workspace: string, temp: string): Promise<{ child: ChildProcess; pid: number }> {
  const { child, line } = await startCliUntilFirstLine(
    ['start', '--json', '--no-open', '--home', home, '--workspace', workspace],
    { ...process.env, TMPDIR: temp },
  );
  started.push(child);
  const ready = JSON.parse(line) as { event: string; pid: { host: number } };
  expect(ready.event).toBe('ready');
  return { child, pid: ready.pid.host };
}

/** A TMPDIR of the test's own (so every name in it is the host's), a home to be and a workspace. */
function makeDirs(): { temp: string; home: string; workspace: string } {
  const root = makeTempDir();
  const workspace = join(root, 'ws');
  mkdirSync(workspace);
  return { temp: makeTempDir('bastion-tmpdir-'), home: join(root, 'home'), workspace };
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => (child.exitCode === null ? child.once('exit', () => resolve()) : resolve()));

describe('a SIGKILLed host and the temp dir', () => {
  it('its srt sockets and dirs live in one journaled temp root in bastion-<uid> (0700), which the next start removes (a look-alike of the user stays)', async () => {
    const { temp: system, home, workspace } = makeDirs();
    const temp = join(system, `bastion-${process.getuid?.() ?? 0}`);
    mkdirSync(temp, { mode: 0o700 });
    mkdirSync(join(temp, LOOK_ALIKE));
    writeFileSync(join(temp, LOOK_ALIKE, 'notes'), 'mine');

    const first = await startHost(home, workspace, system);
    const made = readdirSync(temp).filter((name) => name !== LOOK_ALIKE);
    expect(made).toHaveLength(1);
    expect(made[0]).toMatch(/^bastion-host-[0-9a-f]{16}$/);
    expect(readdirSync(system)).toEqual([basename(temp)]);
    const inside = readdirSync(join(temp, made[0] ?? ''));
    expect(inside.some((name) => name.startsWith('claude-http-') && name.endsWith('.sock'))).toBe(true);
    expect(inside.some((name) => name.startsWith('bastion-sidecar-'))).toBe(true);

    first.child.kill('SIGKILL');
    await exited(first.child);
    await waitFor(() => !isAlive(first.pid), 5_000, 'the host to die');
    expect(readdirSync(temp).sort()).toEqual([...made, LOOK_ALIKE].sort());

    const second = await startHost(home, workspace, system);
    const now = readdirSync(temp).filter((name) => name !== LOOK_ALIKE);
    expect(now).toHaveLength(1);
    expect(now).not.toEqual(made);
    expect(readFileSync(join(temp, LOOK_ALIKE, 'notes'), 'utf8')).toBe('mine');

    second.child.kill('SIGINT');
    await exited(second.child);
    expect(readdirSync(temp)).toEqual([LOOK_ALIKE]);
    expect(readdirSync(join(home, 'host', 'temp-journal'))).toEqual([]);
  });

  it("a second start the home's lock refuses (exit 2) leaves neither a temp root nor a journal entry of its own; the holder's root stays", async () => {
    const { temp, home, workspace } = makeDirs();
    const holder = await startHost(home, workspace, temp);
    const parent = join(temp, `bastion-${process.getuid?.() ?? 0}`);
    const held = readdirSync(parent);
    expect(held).toHaveLength(1);

    const second = spawn(process.execPath, [CLI, 'start', '--no-open', '--home', home, '--workspace', workspace], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, TMPDIR: temp },
    });
    started.push(second);
    let stderr = '';
    second.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => second.once('exit', (exitCode) => resolve(exitCode)));
    expect(code).toBe(2);
    expect(stderr).toContain(`pid ${holder.pid}`);
    expect(readdirSync(parent)).toEqual(held);
    expect(readdirSync(join(home, 'host', 'temp-journal'))).toEqual([`${holder.pid}.json`]);
    expect(isAlive(holder.pid)).toBe(true);

    holder.child.kill('SIGINT');
    await exited(holder.child);
    expect(readdirSync(parent)).toEqual([]);
  });

  it("the next start removes the temps a killed write left beside auth.json, endpoints.json, preferences.json and host/policy.json, and keeps look-alikes that are not Bastion's", async () => {
    const { temp, home, workspace } = makeDirs();
    const first = await startHost(home, workspace, temp);
    first.child.kill('SIGKILL');
    await exited(first.child);
    await waitFor(() => !isAlive(first.pid), 5_000, 'the host to die');

    // What a write killed between its temp's creation and its rename leaves (the writers' exact names).
    const ours = [
      join(home, '.auth.json.0123456789ab.bastion-tmp'),
      join(home, '.endpoints.json.a1b2c3d4e5f6.bastion-tmp'),
      join(home, '.preferences.json.ffffffffffff.bastion-tmp'),
      join(home, 'host', '.policy.json.00000000abcd.bastion-tmp'),
    ];
    // Named like them, but not a name Bastion's writers make: a user's files, kept.
    const lookAlikes = [
      join(home, '.auth.json.notmine.bastion-tmp'),
      join(home, '.auth.json.0123456789AB.bastion-tmp'),
      join(home, '.endpoints.json.0123456789abc.bastion-tmp'),
      join(home, 'auth.json.0123456789ab.bastion-tmp'),
      join(home, '.notes.json.0123456789ab.bastion-tmp'),
      join(home, 'host', '.policy.json.0123456789ab.bastion-tmp.bak'),
    ];
    for (const path of [...ours, ...lookAlikes]) writeFileSync(path, 'partial', { mode: 0o600 });

    const second = await startHost(home, workspace, temp);
    await waitFor(() => ours.every((path) => !existsSync(path)), 10_000, "the sidecar's start-up sweep");
    for (const path of lookAlikes) expect(readFileSync(path, 'utf8')).toBe('partial');
    second.child.kill('SIGINT');
    await exited(second.child);
  });
});
