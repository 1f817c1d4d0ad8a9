/** Test support: the built CLI run as a real process, and the CLIs a test left running stopped after it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

/** The built CLI (`npm run build` makes it). */
export const CLI = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run the CLI with `args` to its exit, `stdin` (then end of input) on its standard input. */
export function runCli(args: readonly string[], stdin = ''): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(stdin);
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/**
 * The list to push each long-running CLI a test starts onto: after the test, each one still
 * running gets SIGTERM (so it stops its host and sidecar first) and is waited for.
 */
export function stoppedAfterEachTest(): ChildProcess[] {
  const started: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of started.splice(0)) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });
  return started;
}
