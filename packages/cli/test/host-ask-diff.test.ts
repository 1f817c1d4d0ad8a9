/**
 * The host's own question about a workspace write at the terminal, under a real terminal
 * (util-linux `script`) with a scripted loopback model: the agent's `write_file` of a CI workflow
 * (the built-in `ask` for `.github/workflows/**`) is held by the host, whose question shows the
 * host's diff of the bytes it will write — folded past CLI_HOST_ASK_DIFF_LINES with the lines
 * left out counted, the provider's key written into the file cut, never shown — before the y/N
 * question, its last line. No refuses the write, and nothing is written.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { CLI_HOST_ASK_DIFF_LINES } from '@bastion/protocol';
import { startScriptedEndpoint, waitFor } from '@bastion/test-support';
import { closedAfterEachTest } from '../../../test/support/per-test.js';
import { runCli, runCliInTerminal, scriptedRun } from './support/cli-process.js';

const startEndpoint = closedAfterEachTest(startScriptedEndpoint, (endpoint) => endpoint.close());

/** The provider's key Bastion holds in auth.json (bastion secrets set openai). */
const KEY = 'sk-host-ask-diff-canary-7f3a';

it('the host’s question at the terminal shows its diff of the write, the provider’s key cut and the lines past CLI_HOST_ASK_DIFF_LINES counted, before the y/N question, its last line; answered no, the host writes nothing', async () => {
  // The key on the file's second line, then enough lines to be folded.
  const filler = Array.from({ length: 60 }, (_, index) => `# step ${index + 1}`);
  const content = ['on: push', `env: { KEY: ${KEY} }`, ...filler].join('\n') + '\n';
  const endpoint = await startEndpoint([
    { kind: 'tool-call', name: 'write_file', input: { path: '.github/workflows/ci.yml', content } },
  ]);
  const { home, workspace, args } = scriptedRun(endpoint);
  const stored = await runCli(['secrets', 'set', 'openai', '--home', home], `${KEY}\n`);
  expect(stored.code).toBe(0);

  const cli = runCliInTerminal([...args, 'add a CI workflow']);
  await waitFor(() => /Allow\? \[y\/N\][^\n]*$/.test(cli.shown()), 90_000, 'the host’s question');
  const shown = cli.shown().replaceAll('\r\n', '\n');
  const question = shown.slice(shown.lastIndexOf("Bastion's policy asks before this runs:"));
  const lines = question.split('\n');
  expect(lines[1]).toBe('  tool:    write_file');
  expect(lines[3]).toMatch(/^ {2}rule: {4}builtin\.ci-workflows-write — /);
  expect(lines[4]).toBe("  diff:    the host's, of the bytes it will write (Bastion's credentials cut):");
  // The new file's diff: two headers, the hunk's, then its 62 added lines; the first CLI_HOST_ASK_DIFF_LINES shown.
  expect(lines.slice(5, 9)).toEqual([
    '    --- /dev/null',
    '    +++ b/.github/workflows/ci.yml',
    '    @@ -0,0 +1,62 @@',
    '    +on: push',
  ]);
  expect(lines[9]).toBe("    +env: { KEY: [redacted: Bastion's openai credential] }");
  const lastShown = CLI_HOST_ASK_DIFF_LINES - 5;
  expect(lines[5 + CLI_HOST_ASK_DIFF_LINES - 1]).toBe(`    +# step ${lastShown}`);
  expect(lines[5 + CLI_HOST_ASK_DIFF_LINES]).toBe(
    `    … ${3 + 62 - CLI_HOST_ASK_DIFF_LINES} more lines of the diff left out`,
  );
  expect(question).not.toContain(`# step ${lastShown + 1}\n`);
  // The question is the last line, right under the diff.
  expect(lines[5 + CLI_HOST_ASK_DIFF_LINES + 1]).toMatch(/^Allow\? \[y\/N\]/);
  expect(lines).toHaveLength(5 + CLI_HOST_ASK_DIFF_LINES + 2);
  expect(shown).not.toContain(KEY);

  cli.type('n\r');
  await cli.closed;
  // (The run then fails: its next request to the model carries the key in the call, which the host's egress guard stops.)
  expect(cli.shown()).toContain('[tool] write_file refused: POLICY_UNAPPROVED');
  expect(cli.shown()).not.toContain(KEY);
  expect(existsSync(join(workspace, '.github', 'workflows', 'ci.yml'))).toBe(false);
}, 180_000);
