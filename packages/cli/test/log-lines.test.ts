/**
 * Without --verbose, a warning the host logs reaches the terminal as one readable line, never as
 * its raw JSON record (which stays in host.log). A real CLI run on a userData left loose: the
 * host repairs it and says so.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { makeTempDir } from '@bastion/test-support';

const CLI = fileURLToPath(new URL('../dist/main.js', import.meta.url));

it('a host warning is one readable stderr line, not a JSON record; host.log keeps the record', async () => {
  const root = makeTempDir();
  const home = join(root, 'home');
  const workspace = join(root, 'ws');
  mkdirSync(home);
  mkdirSync(workspace);
  chmodSync(home, 0o755);
  const child = spawn(
    process.execPath,
    [CLI, 'run', '--home', home, '--workspace', workspace, '--provider', 'demo', 'ls'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout.resume();
  expect(await new Promise((resolve) => child.once('close', resolve))).toBe(0);
  expect(stderr).toContain(
    'bastion: warning: userdata.mode-repaired (entry=. reason=was 755, group/other bits removed)',
  );
  expect(stderr.split('\n').filter((line) => line.trimStart().startsWith('{'))).toEqual([]);
  const records = readFileSync(join(home, 'logs', 'host.log'), 'utf8')
    .trim()
    .split('\n');
  expect(records.map((line) => (JSON.parse(line) as { event: string }).event)).toContain('userdata.mode-repaired');
});
