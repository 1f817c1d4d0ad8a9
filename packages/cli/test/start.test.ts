import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, waitFor, makeTempDir } from '@bastion/test-support';

const CLI = fileURLToPath(new URL('../dist/main.js', import.meta.url));

interface ReadyLine {
  event: 'ready';
  daemon: string;
  ui: string | null;
  launch: string | null;
  sandbox: 'srt' | 'none';
  pid: { host: number; sidecar: number };
}

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function startCli(args: string[]): {
  child: ChildProcess;
  ready: Promise<ReadyLine>;
  exit: Promise<number | null>;
  home: string;
} {
  // Removed after the file by the vitest setup, which first sweeps a killed host's temp root.
  const root = makeTempDir();
  mkdirSync(join(root, 'ws'));
  const child = spawn(
    process.execPath,
    [CLI, 'start', '--json', '--no-open', '--home', join(root, 'home'), '--workspace', join(root, 'ws'), ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  started.push(child);
  const lines = createInterface({ input: child.stdout });
  const ready = new Promise<ReadyLine>((resolve, reject) => {
    lines.once('line', (line) => resolve(JSON.parse(line) as ReadyLine));
    child.once('exit', () => reject(new Error('exited before ready')));
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, ready, exit, home: join(root, 'home') };
}

describe('bastion start (real CLI process)', () => {
  it('prints a parseable ready line and exits cleanly on SIGTERM with no orphan', async () => {
    const { child, ready, exit } = startCli([]);
    const line = await ready;
    expect(line).toMatchObject({ event: 'ready', daemon: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
    expect(line.pid.host).toBe(child.pid);
    expect(isAlive(line.pid.sidecar)).toBe(true);
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    await waitFor(() => !isAlive(line.pid.sidecar), 5_000, 'sidecar exit');
  });

  it('stops everything on SIGINT (Ctrl-C) too', async () => {
    const { child, ready, exit } = startCli([]);
    const line = await ready;
    child.kill('SIGINT');
    expect(await exit).toBe(0);
    await waitFor(() => !isAlive(line.pid.sidecar), 5_000, 'sidecar exit');
  });

  it('leaves no orphan even when the host itself is SIGKILLed (the sidecar exits when its stdin closes)', async () => {
    const { child, ready, exit } = startCli([]);
    const line = await ready;
    child.kill('SIGKILL');
    await exit;
    await waitFor(() => !isAlive(line.pid.sidecar), 5_000, 'orphaned sidecar to exit');
  });

  it('creates userData with mode 0700', async () => {
    const { child, ready, exit, home } = startCli([]);
    await ready;
    expect(statSync(home).mode & 0o777).toBe(0o700);
    child.kill('SIGTERM');
    await exit;
  });

  it('without a working browser opener, prints the one-time launch link instead of claiming it opened the UI', async () => {
    const bin = makeTempDir();
    writeFileSync(join(bin, 'xdg-open'), '#!/bin/sh\nexit 3\n', { mode: 0o755 });
    const root = makeTempDir();
    mkdirSync(join(root, 'ws'));
    const child = spawn(
      process.execPath,
      [CLI, 'start', '--home', join(root, 'home'), '--workspace', join(root, 'ws')],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
      },
    );
    started.push(child);
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    await waitFor(() => stdout.includes('Press Ctrl-C'), 30_000, 'the start banner');
    expect(stdout).not.toContain('opened in your browser');
    expect(stdout).toMatch(/ui: {8}open http:\/\/127\.0\.0\.1:\d+\/desktop\/launch\?ticket=[A-Za-z0-9_-]{43}\n/);
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });

  it('answers an unknown flag and an unknown command with one line and where the help is, exit 2, starting nothing', () => {
    const result = spawnSync(process.execPath, [CLI, 'start', '--no-such-flag'], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe('bastion: unknown option "--no-such-flag"\nRun "bastion start --help" for its usage.\n');
    const unknown = spawnSync(process.execPath, [CLI, 'frobnicate'], { encoding: 'utf8' });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toBe(
      'bastion: unknown command "frobnicate"\nRun "bastion --help" for the list of commands.\n',
    );
    // A name every object has is no command either.
    for (const inherited of ['constructor', 'toString']) {
      const refused = spawnSync(process.execPath, [CLI, inherited], { encoding: 'utf8' });
      expect(refused.status).toBe(2);
      expect(refused.stderr).toMatch(new RegExp(`^bastion: unknown command "${inherited}"\n`));
    }
  });
});
