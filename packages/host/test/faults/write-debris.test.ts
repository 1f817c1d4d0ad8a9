/**
 * A host killed inside a workspace write leaves no temp file in the workspace for good (issue 16
 * §4): the host performs every workspace write for its sidecar, so it is the host that can die
 * between its temp file and the rename. A real host in its own process (writing-host.mjs) writes
 * a 768 KiB file over and over; the test stops it (SIGSTOP) the moment a temp file appears and,
 * while that file still exists, SIGKILLs it. The next host on the same userData and workspace
 * removes exactly that file (named in its journal in `host/pending-writes/`), keeps a user's file
 * named like one, and leaves the written file absent or whole.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WORKSPACE_MAX_WRITE_BYTES } from '@bastion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '@bastion/test-support';
import { startTempHost, type TempHost } from '../support/temp-host.js';

const WRITING_HOST = fileURLToPath(new URL('./fixtures/writing-host.mjs', import.meta.url));
const LOOK_ALIKE = '.notes.txt.0123456789ab.bastion-tmp';

let writer: ChildProcess | undefined;
let next: TempHost | undefined;
afterEach(async () => {
  if (writer?.exitCode === null && writer.signalCode === null) {
    const gone = new Promise((resolve) => writer?.once('exit', resolve));
    writer.kill('SIGKILL');
    await gone;
  }
  writer = undefined;
  await next?.stop();
  next = undefined;
});

describe('a host SIGKILLed inside a workspace write', () => {
  it('leaves its temp file only until the next host starts, which removes exactly it and keeps a look-alike user file', async () => {
    const root = makeTempDir('bastion-write-debris-');
    const userData = join(root, 'home');
    const workspace = join(root, 'workspace');
    mkdirSync(workspace);
    writeFileSync(join(workspace, LOOK_ALIKE), 'my own notes\n');
    const temps = () => readdirSync(workspace).filter((name) => name.endsWith('.bastion-tmp') && name !== LOOK_ALIKE);

    // Its temp dirs (srt's, the sidecar's) in the test's own folder: a killed host cannot remove them.
    const tmp = join(root, 'tmp');
    mkdirSync(tmp);
    const child = spawn(process.execPath, [WRITING_HOST, userData, workspace], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, TMPDIR: tmp },
    });
    writer = child;
    const pid = child.pid;
    // Never a fallback: process.kill(0, …) would signal this test's whole process group.
    if (pid === undefined) throw new Error('the writing host did not start');
    const sandbox = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        const match = /^ready (\w+)/.exec(chunk.toString());
        if (match) resolve(match[1] ?? '');
      });
      child.once('exit', (code) => reject(new Error(`the writing host exited early (${code})`)));
    });
    expect(sandbox).toBe('srt');

    // Stop the host as soon as a temp file appears; kill it there if the file still exists.
    const caught = await new Promise<{ name: string; leftAtKill: string[] }>((resolve) => {
      const watcher = watch(workspace, (_event, name) => {
        if (name === null || !name.endsWith('.bastion-tmp') || name === LOOK_ALIKE || child.signalCode !== null) return;
        process.kill(pid, 'SIGSTOP');
        if (!existsSync(join(workspace, name))) {
          process.kill(pid, 'SIGCONT');
          return;
        }
        process.kill(pid, 'SIGKILL');
        watcher.close();
        resolve({ name, leftAtKill: temps() });
      });
    });
    await new Promise((resolve) =>
      child.exitCode === null && child.signalCode === null ? child.once('exit', resolve) : resolve(undefined),
    );
    expect(caught.leftAtKill).toEqual([caught.name]);
    expect(readdirSync(join(userData, 'host', 'pending-writes'))).toHaveLength(1);

    next = await startTempHost({ userData, workspaces: [workspace] });
    expect(temps()).toEqual([]);
    expect(readdirSync(join(userData, 'host', 'pending-writes'))).toEqual([]);
    expect(readFileSync(join(workspace, LOOK_ALIKE), 'utf8')).toBe('my own notes\n');
    expect(next.records.some((record) => record.event === 'workspace.temp-files-removed')).toBe(true);
    // The killed write changed nothing: big.txt is absent or whole from an earlier write.
    const big = join(workspace, 'big.txt');
    if (existsSync(big)) expect(readFileSync(big, 'utf8')).toBe('x'.repeat(WORKSPACE_MAX_WRITE_BYTES));
  });
});
