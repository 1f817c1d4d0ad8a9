/**
 * `bastion start` stops cleanly on the first signal, whenever it comes (SIGINT while starting,
 * SIGHUP when the terminal closes), and a failing --allow-endpoint ends the process with its
 * error; --allow-endpoint definitions are removed at stop, so they never pile up.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, processTree, waitFor, makeTempDir } from '@bastion/test-support';

const CLI = fileURLToPath(new URL('../dist/main.js', import.meta.url));

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

interface Started {
  child: ChildProcess;
  home: string;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(args: string[], home = join(makeTempDir(), 'home')): Started {
  const workspace = join(makeTempDir(), 'ws');
  mkdirSync(workspace);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const child = spawn(
    process.execPath,
    [CLI, 'start', '--json', '--no-open', '--home', home, '--workspace', workspace, ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  started.push(child);
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, home, stdout: () => out, stderr: () => err, exit };
}

function readyPids(stdout: string): number[] {
  const ready = JSON.parse(stdout.split('\n')[0] ?? '') as { pid: { host: number } };
  return processTree(ready.pid.host);
}

describe('bastion start: signals and failures', () => {
  it('SIGHUP (the terminal closed) stops it cleanly like SIGTERM: exit 0, stopped event, no sidecar left', async () => {
    const run = start([]);
    await waitFor(() => run.stdout().includes('"event":"ready"'), 30_000, 'ready');
    const tree = readyPids(run.stdout());
    run.child.kill('SIGHUP');
    expect(await run.exit).toEqual({ code: 0, signal: null });
    expect(run.stdout()).toContain('"event":"stopped"');
    await waitFor(() => tree.every((pid) => !isAlive(pid)), 10_000, 'the sidecar tree to exit');
  });

  it('the first SIGINT stops it even while it is still starting (srt bridges already spawned), leaving no process behind', async () => {
    const run = start([]);
    const pid = run.child.pid as number;
    await waitFor(() => processTree(pid).length > 1, 30_000, 'the sidecar spawn');
    const tree = processTree(pid);
    run.child.kill('SIGINT');
    const exit = await Promise.race([
      run.exit,
      new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 30_000)),
    ]);
    expect(exit).toEqual({ code: 0, signal: null });
    await waitFor(() => tree.every((child) => !isAlive(child)), 10_000, 'the sidecar tree to exit');
  });

  it('--allow-endpoint that fails (a damaged endpoints.json) exits 1 with the error naming the file and the fix, file untouched', async () => {
    const home = join(makeTempDir(), 'home');
    mkdirSync(home, { mode: 0o700 });
    const bytes = '{"version": 1, "endpoints": [ {"id": "mine", "base_url": "http://127.0.0.1:8/v1"} ';
    writeFileSync(join(home, 'endpoints.json'), bytes, { mode: 0o600 });
    const run = start(['--allow-endpoint', 'http://127.0.0.1:9/v1'], home);
    const exit = await Promise.race([
      run.exit,
      new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 40_000)),
    ]);
    expect(exit).toEqual({ code: 1, signal: null });
    expect(run.stderr()).toContain('SECRETS_FILE_CORRUPT: endpoints.json is not valid JSON');
    expect(run.stderr()).toContain('move it aside');
    expect(readFileSync(join(home, 'endpoints.json'), 'utf8')).toBe(bytes);
  });

  it('endpoints defined for --allow-endpoint are removed at stop: starts with new URLs do not pile up definitions', async () => {
    const home = join(makeTempDir(), 'home');
    for (const port of [9, 10]) {
      const run = start(['--allow-endpoint', `http://127.0.0.1:${port}/v1`], home);
      await waitFor(() => run.stdout().includes('"event":"ready"'), 30_000, 'ready');
      const during = JSON.parse(readFileSync(join(home, 'endpoints.json'), 'utf8')) as { endpoints: unknown[] };
      expect(during.endpoints).toHaveLength(1);
      run.child.kill('SIGTERM');
      expect((await run.exit).code).toBe(0);
    }
    const after = existsSync(join(home, 'endpoints.json'))
      ? (JSON.parse(readFileSync(join(home, 'endpoints.json'), 'utf8')) as { endpoints: unknown[] }).endpoints
      : [];
    expect(after).toEqual([]);
  });
});
