/**
 * `bastion models` as real CLI processes against a real host and sidecar: the list of models on
 * offer with the default marked, and `models default PROVIDER/MODEL` — through a host of its own,
 * and through the running `bastion start`'s control socket when one owns the home (a second host
 * could not start there). A model not on offer, or no PROVIDER/MODEL, changes nothing.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { SCRIPTED_MODEL, startScriptedEndpoint } from '@bastion/test-support';
import { closedAfterEachTest } from '../../../test/support/per-test.js';
import { projectsRemovedAfterEachTest, runCli, startHolder, stoppedAfterEachTest } from './support/cli-process.js';

const started = stoppedAfterEachTest();
const project = projectsRemovedAfterEachTest();
const startEndpoint = closedAfterEachTest(startScriptedEndpoint, (endpoint) => endpoint.close());

/** The default for new sessions, as `models --json` says. */
async function defaultOf(home: string): Promise<unknown> {
  const listed = await runCli(['models', '--json', '--home', home]);
  expect(listed.code).toBe(0);
  return (JSON.parse(listed.stdout) as { default: unknown }).default;
}

it('lists each model as PROVIDER/MODEL with its name, context window and whether it takes images, the default marked *, says how to change it and which key providers have no key', async () => {
  const { home } = project();
  const listed = await runCli(['models', '--home', home]);
  expect(listed.code).toBe(0);
  expect(listed.stdout).toBe('* demo/demo  Demo (offline), 32,000-token context, takes --image\n');
  expect(listed.stderr).toContain('change it with bastion models default PROVIDER/MODEL');
  expect(listed.stderr).toContain(
    "bastion: no API key for openai, anthropic, openrouter: add one with bastion secrets set PROVIDER (or in the UI's Settings)",
  );
});

it('lines up the names of models of several providers: each PROVIDER/MODEL is padded to the longest, so every label starts in one column', async () => {
  const { home } = project();
  expect((await runCli(['secrets', 'set', 'anthropic', '--home', home], 'sk-ant-models-test-key\n')).code).toBe(0);
  const listed = await runCli(['models', '--home', home]);
  expect(listed.code).toBe(0);
  const lines = listed.stdout.trimEnd().split('\n');
  expect(lines.length).toBeGreaterThan(2);
  const names = lines.map((line) => /^[* ] (\S+)/.exec(line)?.[1] ?? '');
  const column = 2 + Math.max(...names.map((name) => name.length)) + 2;
  for (const line of lines) expect(line.slice(column - 2, column + 1)).toMatch(/^ {2}\S$/);
  expect(lines[0]).toBe(`* ${'demo/demo'.padEnd(column - 4)}  Demo (offline), 32,000-token context, takes --image`);
});

it('models default sets the default new sessions use, checked against what is on offer: a model not offered or a malformed name changes nothing', async () => {
  const { home } = project();
  expect((await runCli(['secrets', 'set', 'openai', '--home', home], 'sk-models-test-key\n')).code).toBe(0);
  const unknown = await runCli(['models', 'default', 'openai/gpt-9', '--home', home]);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain('bastion: openai/gpt-9 is not on offer; choose one of:\n* demo/demo');
  expect(unknown.stderr).toMatch(/^ {2}openai\/gpt-5 +GPT-5, 400,000-token context/m);
  const malformed = await runCli(['models', 'default', 'gpt-5', '--home', home]);
  expect(malformed.code).toBe(2);
  expect(malformed.stderr).toContain('expected PROVIDER/MODEL, e.g. openai/gpt-5, not gpt-5');
  expect(await defaultOf(home)).toEqual({ provider: 'demo', model: 'demo' });

  const set = await runCli(['models', 'default', 'openai/gpt-5', '--home', home]);
  expect(set.stderr).toBe('');
  expect(set.code).toBe(0);
  expect(set.stdout).toBe('New sessions use openai/gpt-5.\n');
  expect(await defaultOf(home)).toEqual({ provider: 'openai', model: 'gpt-5' });
  expect((await runCli(['models', '--home', home])).stdout).toMatch(/^\* openai\/gpt-5 +GPT-5/m);
});

it('models default on a key provider without its key says so and how to add it, as run --provider does, and changes nothing', async () => {
  const { home } = project();
  const keyless = await runCli(['models', 'default', 'anthropic/claude-sonnet-4-5', '--home', home]);
  expect(keyless.code).toBe(2);
  expect(keyless.stderr).toBe(
    "bastion: provider anthropic has no API key: add one with bastion secrets set anthropic (or in the UI's Settings); choose one of:\n* demo/demo  Demo (offline), 32,000-token context, takes --image\n",
  );
  expect(await defaultOf(home)).toEqual({ provider: 'demo', model: 'demo' });
});

it('with a Bastion running on the home, lists and sets through its control socket; a provider given a key leaves the keyless line', async () => {
  const { home, workspace } = project();
  await startHolder(started, home, workspace).ready;
  expect((await runCli(['secrets', 'set', 'anthropic', '--home', home], 'sk-ant-models-test-key\n')).code).toBe(0);
  const listed = await runCli(['models', '--home', home]);
  expect(listed.code).toBe(0);
  expect(listed.stdout).toMatch(/^ {2}anthropic\/\S+ {2}/m);
  expect(listed.stderr).toContain('bastion: no API key for openai, openrouter: add one');
  const model = /^ {2}anthropic\/(\S+) {2}/m.exec(listed.stdout)?.[1] ?? '';
  const set = await runCli(['models', 'default', `anthropic/${model}`, '--home', home]);
  expect(set.stderr).toBe('');
  expect(set.stdout).toBe(`New sessions use anthropic/${model}.\n`);
  expect(await defaultOf(home)).toEqual({ provider: 'anthropic', model });
});

it('a default whose provider is gone: run exits 2 naming it, before any session exists, and models says it is not available', async () => {
  const { home, workspace } = project();
  expect((await runCli(['models', '--home', home])).code).toBe(0);
  writeFileSync(
    join(home, 'preferences.json'),
    JSON.stringify({ version: 1, default_model: { provider: 'endpoint-gone', model: 'old-model' } }),
    { mode: 0o600 },
  );
  const run = await runCli(['run', '--home', home, '--workspace', workspace, 'hi']);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(
    'bastion: the default model for new sessions, endpoint-gone/old-model, is not available now (its key or endpoint is gone, or the endpoint is not approved in this run); choose one with --provider ID --model ID (an endpoint: --endpoint URL --model ID), or set another default with bastion models default PROVIDER/MODEL:\n  demo/demo  Demo (offline)',
  );
  const sessions = await runCli(['sessions', '--all', '--json', '--home', home]);
  expect(sessions.code).toBe(0);
  expect(sessions.stdout).toBe('');
  const listed = await runCli(['models', '--home', home]);
  expect(listed.stdout).toBe('  demo/demo  Demo (offline), 32,000-token context, takes --image\n');
  expect(listed.stderr).toContain(
    'bastion: the default for new sessions, endpoint-gone/old-model, is not available now (its key or endpoint is gone, or the endpoint is not approved in this run); set another with bastion models default PROVIDER/MODEL\n',
  );
});

it('an endpoint defined but not approved in this run is listed with the run command that uses it (--endpoint URL --model ID, its own URL and model), and that command runs it', async () => {
  const endpoint = await startEndpoint([{ kind: 'text', pieces: ['hello from the endpoint'] }]);
  const { home, workspace } = project();
  mkdirSync(home, { mode: 0o700 });
  const definition = { version: 1, endpoints: [{ id: 'local', base_url: endpoint.baseUrl, models: [SCRIPTED_MODEL] }] };
  writeFileSync(join(home, 'endpoints.json'), JSON.stringify(definition), { mode: 0o600 });
  const listed = await runCli(['models', '--home', home]);
  expect(listed.code).toBe(0);
  const command = `bastion run (or chat) --endpoint ${endpoint.baseUrl} --model ${SCRIPTED_MODEL}`;
  expect(listed.stdout.split('\n').filter((line) => line.includes('local/'))).toEqual([
    `  local/${SCRIPTED_MODEL}  ${SCRIPTED_MODEL} (unavailable: not approved in this run: use it with ${command}; for the UI, approve it in Settings → Custom endpoints or with bastion start --allow-endpoint ${endpoint.baseUrl})`,
  ]);
  // The flags named are ones run takes: the command as printed runs the prompt there.
  const [, url = '', model = ''] =
    /use it with bastion run \(or chat\) --endpoint (\S+) --model (\S+);/.exec(listed.stdout) ?? [];
  const run = await runCli([
    'run',
    '--home',
    home,
    '--workspace',
    workspace,
    '--endpoint',
    url,
    '--model',
    model,
    'hi',
  ]);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain('hello from the endpoint');
  expect(endpoint.seen).toHaveLength(1);
}, 120_000);
