/**
 * Issue 16 §5: fds and processes stay flat over many runs. Through the real host and its
 * sandboxed sidecar, runs that call run_command (read-only ones at once, `touch` after an
 * approval) leave the host's and the sidecar's open fds and the host's child processes no higher
 * than after the first runs (read from /proc). `npm run bench -- soak` checks the same over a
 * mixed three-minute load.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { WAITER_ARGV } from '../../src/commands/prestarted-sandbox.js';
import { descendantPids } from '../../src/process-tree.js';
import { AgentDriver, approvalRequestOf } from '../commands/agent-stream.js';
import { waitFor } from '@bastion/test-support';
import { startTempHost, type TempHost } from '../support/temp-host.js';

/** Rounds after the warm-up; each runs three commands, one of them approved. */
const ROUNDS = 8;

let host: TempHost | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

const fds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/**
 * Until the sandbox pre-started for the next command waits in its shell (prestarted-sandbox.ts):
 * it is started after a command ends, so a count taken before it is in place would miss its
 * processes and pipes, and one taken after would see them. Both samples wait for it.
 */
async function prestartedWaiting(): Promise<void> {
  const waiter = `${WAITER_ARGV.join('\0')}\0`;
  const cmdline = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      return '';
    }
  };
  await waitFor(
    () => descendantPids(process.pid).some((pid) => cmdline(pid) === waiter),
    10_000,
    'the pre-started sandbox waiting',
  );
}

function sidecarNode(h: TempHost): number {
  const top = h.supervisor.current?.pid;
  if (top === undefined) throw new Error('no sidecar');
  const node = [top, ...descendantPids(top)].find((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'node');
  if (node === undefined) throw new Error('no node process in the sidecar tree');
  return node;
}

async function round(agent: AgentDriver, index: number): Promise<void> {
  for (const command of ['$ ls -la', '$ cat notes.txt']) {
    const outcome = await agent.say(command);
    expect(outcome.events.some((event) => event.type === 'tool-result')).toBe(true);
  }
  const asked = approvalRequestOf(await agent.say(`$ touch made-${index}.txt`));
  const answered = await agent.answer({
    approval_id: asked.approval_id,
    tool_call_id: asked.tool_call_id,
    approved: true,
  });
  expect(answered.events.at(-1)?.type).toBe('run-finished');
}

it(`after ${ROUNDS} rounds of runs with commands the host's and the sidecar's open fds and the host's child processes are no more than after the first round`, async () => {
  host = await startTempHost();
  const h = host;
  writeFileSync(join(h.workspace, 'notes.txt'), 'notes\n');
  const agent = await AgentDriver.create(h, {});
  await round(agent, 0);
  await prestartedWaiting();
  const sidecar = sidecarNode(h);
  const baseline = { host: fds(process.pid), sidecar: fds(sidecar), children: descendantPids(process.pid).length };

  for (let index = 1; index <= ROUNDS; index++) await round(agent, index);

  expect(sidecarNode(h)).toBe(sidecar);
  // sockets and pipes of the last command close asynchronously
  const now = () => ({ host: fds(process.pid), sidecar: fds(sidecar), children: descendantPids(process.pid).length });
  const withinBaseline = (counts: typeof baseline) =>
    counts.host <= baseline.host && counts.sidecar <= baseline.sidecar && counts.children <= baseline.children;
  await prestartedWaiting();
  await waitFor(() => withinBaseline(now()), 10_000, 'fds and processes back to the baseline').catch(() => undefined);
  // fewer is fine (the baseline may have caught the first round's last stream still closing)
  const end = now();
  expect(withinBaseline(end), `baseline ${JSON.stringify(baseline)}, end ${JSON.stringify(end)}`).toBe(true);
});
