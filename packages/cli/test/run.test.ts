/** `bastion run` as a real CLI process: host, sandboxed sidecar, demo model, exit codes. */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../host/test/support/temp-host.js';

const CLI = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** Runs the CLI from this test's working directory (not the workspace), on a fresh workspace that `prepare` may fill. */
function runCli(
  args: string[],
  prepare: (workspace: string) => void = () => undefined,
): Promise<{ code: number | null; stdout: string; stderr: string; workspace: string }> {
  const root = makeTempDir();
  roots.push(root);
  const workspace = join(root, 'ws');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'README.md'), '# Bastion test project\nsecond line\n');
  prepare(workspace);
  const child = spawn(process.execPath, [CLI, 'run', '--home', join(root, 'home'), '--workspace', workspace, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr, workspace })));
}

describe('bastion run (real CLI process)', () => {
  it('--provider demo "read README.md" reads the file and exits 0', async () => {
    const result = await runCli(['--provider', 'demo', 'read README.md']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        '[tool] read_file {"path":"README.md"}',
        '[tool] read_file done',
        'demo: read README.md (35 bytes); it starts with "# Bastion test project".',
        '',
      ].join('\n'),
    );
    expect(result.stderr).toContain('offline demo model');
  });

  it('--json prints one event object a line, ending with run-finished', async () => {
    const result = await runCli(['--json', 'ls']);
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; type: string; tool_name?: string });
    expect(events[0]?.type).toBe('run-started');
    expect(events.find((e) => e.type === 'tool-call')?.tool_name).toBe('list_dir');
    expect(events.at(-1)?.type).toBe('run-finished');
    expect(events.every((e) => Number.isInteger(e.id))).toBe(true);
  });

  it('exits 1 when the run cannot start (unknown provider), saying why', async () => {
    const result = await runCli(['--provider', 'no-such-provider', 'hello']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PROVIDER_UNKNOWN');
  });

  it('exits 2 naming a --workspace that is not a folder, starting nothing', async () => {
    const missing = join(makeTempDir(), 'no-such-folder');
    const result = await runCli(['--workspace', missing, '--provider', 'demo', 'ls']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`the workspace is not a folder: ${missing}`);
    expect(result.stdout).toBe('');
  });

  it("runs from the workspace, so srt's write protections cover a repository nested in it", async () => {
    const result = await runCli(
      [
        '--mode',
        'auto',
        '--provider',
        'demo',
        `$ sh -c 'echo ran > ran.txt; echo planted > sub/.git/hooks/pre-commit'`,
      ],
      (workspace) => {
        mkdirSync(join(workspace, 'sub', '.git', 'hooks'), { recursive: true });
        writeFileSync(join(workspace, 'sub', '.git', 'HEAD'), 'ref: refs/heads/main\n');
      },
    );
    expect(result.code).toBe(0);
    expect(readFileSync(join(result.workspace, 'ran.txt'), 'utf8')).toBe('ran\n');
    expect(existsSync(join(result.workspace, 'sub', '.git', 'hooks', 'pre-commit'))).toBe(false);
  });

  it('exits 2 with usage for a missing prompt or a bad mode', async () => {
    expect((await runCli([])).code).toBe(2);
    const bad = await runCli(['--mode', 'yolo', 'hi']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--mode must be accept-edits or auto');
  });
});
