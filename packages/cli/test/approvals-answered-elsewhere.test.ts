/**
 * A step that asks for two approvals, `bastion run` asking them on a real terminal (util-linux
 * `script`) while a second client answers over the daemon's HTTP API, as a browser tab does: an
 * approval answered there is not asked here — a question showing is taken off — and one line
 * says how it was answered; the run goes on to its real end and exit code, each command run or
 * not as its one answer said.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import {
  agentRunResponseSchema,
  DAEMON_AUTH_USER,
  DESKTOP_ROUTE_ROOT,
  eventPageResponseSchema,
  sessionListResponseSchema,
} from '@bastion/protocol';
import type { DaemonClient } from '@bastion/host';
import { processTree, startScriptedEndpoint, waitFor, type Script } from '@bastion/test-support';
import { closedAfterEachTest } from '../../../test/support/per-test.js';
import { CLI, runCliInTerminal, scriptedRun, secondDaemonClient, secondDaemonTarget } from './support/cli-process.js';

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

/** The CLI's own process under the terminal (not the sidecar it starts). */
function cliProcess(terminalPid: number): number {
  const found = processTree(terminalPid).find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith(`${process.execPath}\0${CLI}\0`);
    } catch {
      return false;
    }
  });
  if (found === undefined) throw new Error('no CLI process under the terminal');
  return found;
}

/** Bytes waiting to be read on the TCP sockets `pid` holds (its event stream among them): /proc's rx_queue. */
function tcpBytesWaiting(pid: number): number {
  const inodes = new Set(
    readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? [];
      } catch {
        return [];
      }
    }),
  );
  let waiting = 0;
  for (const table of ['tcp', 'tcp6']) {
    for (const line of readFileSync(`/proc/${pid}/net/${table}`, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[9] !== undefined && inodes.has(cols[9])) waiting += Number.parseInt(cols[4]?.split(':')[1] ?? '0', 16);
    }
  }
  return waiting;
}

/** Bytes `pid` has written so far (/proc's wchar): `script` passing typed keys on to the terminal. */
const bytesWritten = (pid: number) => Number(/^wchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1]);

/**
 * Requests to the daemon of the Bastion on `home` over one kept-alive connection. The host accepts
 * each connection and hands it to the sidecar, which then reads it alone: once one request has
 * gone, the next reaches the daemon even while the CLI's process (the host) is stopped.
 */
async function keptAliveDaemonConnection(home: string) {
  const { target, uiOrigin } = await secondDaemonTarget(home);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const send = (method: string, path: string, body?: unknown) =>
    new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: target.port,
          method,
          path,
          agent,
          headers: {
            host: `127.0.0.1:${target.port}`,
            origin: uiOrigin,
            referer: `${uiOrigin}${DESKTOP_ROUTE_ROOT}/`,
            authorization: `Basic ${Buffer.from(`${DAEMON_AUTH_USER}:${target.password}`).toString('base64')}`,
            ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as unknown }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  return { send, close: () => agent.destroy() };
}

it('an answer typed here that reaches the daemon after another client’s is refused as already answered: one line says how it was answered, the next is asked, and the run exits 0 as the other client’s answer says', async () => {
  const endpoint = await startEndpoint(TOUCH_BOTH);
  const { home, workspace, args } = scriptedRun(endpoint);
  const cli = runCliInTerminal([...args, 'touch both'], { stoppable: true });
  await waitFor(() => cli.shown().includes(QUESTION), 60_000, 'the first question');
  const { session, requests } = await approvalRequests(await secondDaemonClient(home));
  const first = requests[0];
  if (first === undefined) throw new Error('no first approval');
  const other = await keptAliveDaemonConnection(home);
  // The connection's first request makes it the sidecar's.
  expect((await other.send('GET', '/sessions')).status).toBe(200);
  const pid = cliProcess(cli.terminalPid);

  // The CLI is stopped with nothing to read; the keys typed then are the first thing it reads on
  // waking, ahead of the other client's answer on its event stream (the kernel hands a process the
  // files that became ready in that order), so its "n" is taken as the answer and sent after the
  // daemon has the other client's.
  let quiet = false;
  let answered: { status: number; body: unknown } | undefined;
  try {
    for (;;) {
      process.kill(pid, 'SIGSTOP');
      if (tcpBytesWaiting(pid) === 0) break;
      process.kill(pid, 'SIGCONT');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const relayed = bytesWritten(cli.terminalPid);
    cli.type('n\r');
    await waitFor(() => bytesWritten(cli.terminalPid) >= relayed + 2, 10_000, 'script to pass the keys on');
    quiet = tcpBytesWaiting(pid) === 0;
    answered = await other.send('POST', '/agent/run', {
      session_id: session.id,
      approval_answer: { approval_id: first.approval_id, tool_call_id: first.tool_call_id, approved: true },
    });
  } finally {
    process.kill(pid, 'SIGCONT');
    other.close();
  }
  // A heartbeat on the event stream between the stop and the keys would have been read before them.
  expect(quiet).toBe(true);
  expect(answered?.status).toBe(202);

  await waitFor(() => count(cli.shown(), QUESTION) === 2, 20_000, 'the second question');
  const shown = cli.shown();
  // readline echoed the "n" as the first question's answer; the daemon had taken the other client's.
  expect(shown).toMatch(
    /Allow\? \[y\/N\][^\n]*n\r*\n\[approval\] answered elsewhere: allowed — command: touch first\r?\n/,
  );
  cli.type('n\r');

  expect(await cli.closed).toBe(0);
  expect(cli.shown()).not.toContain('the answer was not taken');
  expect(existsSync(join(workspace, 'first'))).toBe(true);
  expect(existsSync(join(workspace, 'second'))).toBe(false);
}, 120_000);
