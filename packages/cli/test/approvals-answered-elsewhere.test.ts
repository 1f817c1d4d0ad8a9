/**
 * A step that asks for two approvals, `bastion run` asking them on a real terminal (util-linux
 * `script`) while a second client answers over the daemon's HTTP API, as a browser tab does: an
 * approval answered there is not asked here — a question showing is taken off — and one line
 * says how it was answered; the run goes on to its real end and exit code, each command run or
 * not as its one answer said.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { agentRunResponseSchema, eventPageResponseSchema, sessionListResponseSchema } from '@bastion/protocol';
import type { DaemonClient } from '@bastion/host';
import { startScriptedEndpoint, waitFor, type Script } from '@bastion/test-support';
import { closedAfterEachTest } from '../../../test/support/per-test.js';
import { runCliInTerminal, scriptedRun, secondDaemonClient } from './support/cli-process.js';

const startEndpoint = closedAfterEachTest(startScriptedEndpoint, (endpoint) => endpoint.close());

/** One step asking to touch `first` and `second`, then a reply. */
const TOUCH_BOTH: Script = [
  {
    kind: 'tool-calls',
    calls: [
      { name: 'run_command', input: { command: 'touch', args: ['first'] } },
      { name: 'run_command', input: { command: 'touch', args: ['second'] } },
    ],
  },
  { kind: 'text', pieces: ['done'] },
];

const QUESTION = 'Allow? [y/N]';

/** The session's approval requests, in the order asked, read by the second client. */
async function approvalRequests(client: DaemonClient) {
  const listed = await client.call('GET', '/sessions', undefined, sessionListResponseSchema);
  if (!listed.ok || listed.body.sessions.length !== 1) throw new Error('expected the one session of the run');
  const session = listed.body.sessions[0]!;
  const page = await client.call('GET', `/sessions/${session.id}/events`, undefined, eventPageResponseSchema);
  if (!page.ok) throw new Error(page.error.code);
  const requests = page.body.events.flatMap(({ event }) => (event.type === 'tool-approval-request' ? [event] : []));
  return { session, requests };
}

/** Answer approval `index` of the step from the second client. */
async function answerElsewhere(client: DaemonClient, index: number, approved: boolean): Promise<void> {
  const { session, requests } = await approvalRequests(client);
  const request = requests[index];
  if (request === undefined) throw new Error(`no approval ${index}`);
  const answered = await client.call(
    'POST',
    '/agent/run',
    {
      session_id: session.id,
      approval_answer: { approval_id: request.approval_id, tool_call_id: request.tool_call_id, approved },
    },
    agentRunResponseSchema,
  );
  expect(answered.ok).toBe(true);
}

const count = (text: string, part: string) => text.split(part).length - 1;

it('the approval whose question is showing, allowed by another client, is taken off the terminal with one line; the next is asked, denied here, and the run exits 0 with only the first command run', async () => {
  const endpoint = await startEndpoint(TOUCH_BOTH);
  const { home, workspace, args } = scriptedRun(endpoint);
  const cli = runCliInTerminal([...args, 'touch both']);
  await waitFor(() => cli.shown().includes(QUESTION), 60_000, 'the first question');
  expect(cli.shown()).toContain('command: touch first');

  await answerElsewhere(await secondDaemonClient(home), 0, true);
  await waitFor(() => count(cli.shown(), QUESTION) === 2, 20_000, 'the second question');
  const shown = cli.shown();
  expect(shown).toContain('[approval] answered elsewhere: allowed — command: touch first');
  expect(shown.slice(shown.lastIndexOf('The agent asks to run:'))).toContain('command: touch second');
  cli.type('n\r');

  expect(await cli.closed).toBe(0);
  expect(cli.shown()).not.toContain('already answered');
  expect(cli.shown()).not.toContain('APPROVAL_ALREADY_ANSWERED');
  expect(existsSync(join(workspace, 'first'))).toBe(true);
  expect(existsSync(join(workspace, 'second'))).toBe(false);
}, 120_000);

it('an approval denied by another client before its turn is never asked here, one line says so; allowing the first here continues the run, which exits 0 with only the first command run', async () => {
  const endpoint = await startEndpoint(TOUCH_BOTH);
  const { home, workspace, args } = scriptedRun(endpoint);
  const cli = runCliInTerminal([...args, 'touch both']);
  await waitFor(() => cli.shown().includes(QUESTION), 60_000, 'the first question');

  await answerElsewhere(await secondDaemonClient(home), 1, false);
  cli.type('y\r');

  expect(await cli.closed).toBe(0);
  expect(count(cli.shown(), QUESTION)).toBe(1);
  expect(cli.shown()).toContain('[approval] answered elsewhere: denied — command: touch second');
  expect(cli.shown()).not.toContain('did not start');
  expect(existsSync(join(workspace, 'first'))).toBe(true);
  expect(existsSync(join(workspace, 'second'))).toBe(false);
}, 120_000);

it('both approvals answered by another client while the first question shows: neither is answered here, the run they continue is followed to its reply, and it exits 0 with both commands run', async () => {
  const endpoint = await startEndpoint(TOUCH_BOTH);
  const { home, workspace, args } = scriptedRun(endpoint);
  const cli = runCliInTerminal([...args, 'touch both']);
  await waitFor(() => cli.shown().includes(QUESTION), 60_000, 'the first question');

  const client = await secondDaemonClient(home);
  await answerElsewhere(client, 1, true);
  await answerElsewhere(client, 0, true);

  expect(await cli.closed).toBe(0);
  const shown = cli.shown();
  expect(count(shown, QUESTION)).toBe(1);
  expect(shown).toContain('[approval] answered elsewhere: allowed — command: touch first');
  expect(shown).toContain('[approval] answered elsewhere: allowed — command: touch second');
  expect(shown).toMatch(/done\s*\r?\n/);
  expect(existsSync(join(workspace, 'first'))).toBe(true);
  expect(existsSync(join(workspace, 'second'))).toBe(true);
}, 120_000);
