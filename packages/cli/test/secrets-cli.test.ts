/**
 * `bastion secrets set` giving up or given nothing, as the real CLI on a real terminal (util-linux
 * `script`) and with piped stdin: one line saying nothing was stored (no usage, as nothing on the
 * command line was wrong), and no auth.json written.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { waitFor } from '@bastion/test-support';
import { projectsRemovedAfterEachTest, runCli, runCliInTerminal } from './support/cli-process.js';

const project = projectsRemovedAfterEachTest();

const PROMPT = 'API key for openai (input hidden): ';

it.each([
  ['Ctrl-C', '\u0003'],
  ['Ctrl-D', '\u0004'],
])('%s at the hidden key prompt cancels: exit 130, one line, no key stored', async (_name, key) => {
  const { home } = project();
  const cli = runCliInTerminal(['secrets', 'set', 'openai', '--home', home]);
  await waitFor(() => cli.shown().includes(PROMPT), 30_000, 'the key prompt');
  cli.type(`sk-half${key}`);
  expect(await cli.closed).toBe(130);
  expect(cli.shown().slice(cli.shown().indexOf(PROMPT) + PROMPT.length)).toBe(
    '\r\nbastion: cancelled; no key was stored\r\n',
  );
  expect(existsSync(join(home, 'auth.json'))).toBe(false);
});

it('Enter alone at the key prompt: exit 2, one line saying no key was typed, nothing stored', async () => {
  const { home } = project();
  const cli = runCliInTerminal(['secrets', 'set', 'openai', '--home', home]);
  await waitFor(() => cli.shown().includes(PROMPT), 30_000, 'the key prompt');
  cli.type('\r');
  expect(await cli.closed).toBe(2);
  expect(cli.shown()).toContain('bastion: no key typed; nothing was stored\r\n');
  expect(cli.shown()).not.toContain('Usage:');
  expect(existsSync(join(home, 'auth.json'))).toBe(false);
});

it('empty standard input: exit 2, one line saying how to give the key, nothing stored', async () => {
  const { home } = project();
  const result = await runCli(['secrets', 'set', 'openai', '--home', home], '\n');
  expect(result.code).toBe(2);
  expect(result.stderr).toBe(
    'bastion: no key on standard input; nothing was stored (pipe the key in, or run bastion secrets set openai at a terminal to type it)\n',
  );
  expect(existsSync(join(home, 'auth.json'))).toBe(false);
});
