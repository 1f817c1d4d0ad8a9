/**
 * At a real terminal (util-linux `script`), `bastion run` prints a running command's output as it
 * comes: the demo model in auto mode runs a sandboxed script that waits until the test has seen its
 * first line, so that line can only have been printed while the command ran.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { waitFor } from '@bastion/test-support';
import { demoInAuto, projectsRemovedAfterEachTest, runCliInTerminal } from './support/cli-process.js';

const project = projectsRemovedAfterEachTest();

it('bastion run at a terminal prints a command’s lines while it runs, then its exit code under them', async () => {
  const { home, workspace } = project();
  const script = 'echo first line; while [ ! -e go ]; do sleep 0.05; done; echo last line';
  const cli = runCliInTerminal([...demoInAuto('run', home, workspace), `$ sh -c '${script}'`]);
  await waitFor(() => cli.shown().includes('  first line'), 60_000, 'the first line, printed while the command runs');
  expect(cli.shown()).not.toContain('  last line');
  writeFileSync(join(workspace, 'go'), '');
  expect(await cli.closed).toBe(0);
  const lines = cli.shown().replaceAll('\r', '').split('\n');
  const header = lines.findIndex((line) => line.startsWith('[run] $ sh -c '));
  expect(lines.slice(header, header + 4)).toEqual([
    `[run] $ sh -c '${script}'`,
    '  first line',
    '  last line',
    '  → exit 0',
  ]);
});
