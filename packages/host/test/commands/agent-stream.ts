/**
 * Test support: drive an agent run through the real host client (real perimeter) and read the
 * session's server-sent events until the run ends.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { AgentEvent, Session } from '@bastion/protocol';
import type { BastionHost } from '../../src/bastion-host.js';
import type { TempHost } from '../support/temp-host.js';

export interface RunOutcome {
  status: number;
  body: unknown;
  events: AgentEvent[];
  /** Everything the stream carried, verbatim, for canary scans. */
  raw: string;
  lastEventId: number;
}

const isEnd = (event: AgentEvent) => event.type === 'run-finished' || event.type === 'run-error';

/** Read events after `lastEventId` until the first run end; `onEvent` sees each as it comes. */
export async function readUntilRunEnd(
  host: BastionHost,
  sessionId: string,
  lastEventId: number,
  onEvent?: (event: AgentEvent) => void,
): Promise<Omit<RunOutcome, 'status' | 'body'>> {
  const response = await host.client.open('GET', `/agent/stream/${sessionId}`, undefined, {
    'last-event-id': String(lastEventId),
  });
  if (response.statusCode !== 200) throw new Error(`stream answered ${response.statusCode}`);
  const events: AgentEvent[] = [];
  let raw = '';
  let buffer = '';
  let last = lastEventId;
  for await (const chunk of response) {
    const text = (chunk as Buffer).toString('utf8');
    raw += text;
    buffer += text;
    let split = buffer.indexOf('\n\n');
    while (split >= 0) {
      const block = buffer.slice(0, split);
      buffer = buffer.slice(split + 2);
      split = buffer.indexOf('\n\n');
      const id = /^id: ?(\d+)$/m.exec(block);
      const data = /^data: ?(.*)$/m.exec(block);
      if (!data?.[1]) continue;
      if (id?.[1]) last = Number(id[1]);
      const event = JSON.parse(data[1]) as AgentEvent;
      events.push(event);
      onEvent?.(event);
      if (isEnd(event)) {
        response.destroy();
        return { events, raw, lastEventId: last };
      }
    }
  }
  throw new Error('stream ended before the run did');
}

export class AgentDriver {
  #lastEventId = 0;
  constructor(
    readonly host: BastionHost,
    readonly session: Session,
  ) {}

  static async create(host: BastionHost, body: Record<string, unknown>): Promise<AgentDriver> {
    const created = await host.client.request<Session>('POST', '/sessions', {
      provider: 'demo',
      model: 'demo',
      ...body,
    });
    if (created.status !== 201)
      throw new Error(`session not created: ${created.status} ${JSON.stringify(created.body)}`);
    return new AgentDriver(host, created.body);
  }

  /** POST /agent/run; when accepted, read the stream to the end of that run. */
  async run(body: Record<string, unknown>): Promise<RunOutcome> {
    const started = await this.host.client.request('POST', '/agent/run', { session_id: this.session.id, ...body });
    if (started.status !== 202)
      return { status: started.status, body: started.body, events: [], raw: '', lastEventId: this.#lastEventId };
    const read = await readUntilRunEnd(this.host, this.session.id, this.#lastEventId);
    this.#lastEventId = read.lastEventId;
    return { status: started.status, body: started.body, ...read };
  }

  /** Read the stream to the end of the run started last (by a request made outside this driver). */
  async readToEnd(): Promise<Omit<RunOutcome, 'status' | 'body'>> {
    const read = await readUntilRunEnd(this.host, this.session.id, this.#lastEventId);
    this.#lastEventId = read.lastEventId;
    return read;
  }

  /** Send a message that must start a run; a refusal fails loudly with its status and code. */
  async say(message: string): Promise<RunOutcome> {
    const outcome = await this.run({ message });
    if (outcome.status !== 202) {
      throw new Error(`run not started: ${outcome.status} ${JSON.stringify(outcome.body)}`);
    }
    return outcome;
  }

  answer(approval: {
    approval_id: string;
    tool_call_id: string;
    approved: boolean;
    reason?: string;
  }): Promise<RunOutcome> {
    return this.run({ approval_answer: approval });
  }
}

export function approvalRequestOf(outcome: RunOutcome): Extract<AgentEvent, { type: 'tool-approval-request' }> {
  const request = outcome.events.find((event) => event.type === 'tool-approval-request');
  if (!request || request.type !== 'tool-approval-request') throw new Error('no tool-approval-request in the run');
  return request;
}

export function toolResultOf(outcome: RunOutcome): Extract<AgentEvent, { type: 'tool-result' }> {
  const result = outcome.events.find((event) => event.type === 'tool-result');
  if (!result || result.type !== 'tool-result') throw new Error('no tool-result in the run');
  return result;
}

export function textOf(outcome: RunOutcome): string {
  return outcome.events.map((event) => (event.type === 'text-delta' ? event.text : '')).join('');
}

/** `canary` is in none of `raw` (what streams carried), the host's log records and the files under userData/logs. */
export function expectCanaryNowhere(host: TempHost, raw: string, canary: string): void {
  expect(raw).not.toContain(canary);
  expect(JSON.stringify(host.records)).not.toContain(canary);
  const logs = join(host.userData, 'logs');
  for (const file of existsSync(logs) ? readdirSync(logs) : [])
    expect(readFileSync(join(logs, file), 'utf8')).not.toContain(canary);
}
