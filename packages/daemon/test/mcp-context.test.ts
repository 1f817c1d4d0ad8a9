/**
 * What an MCP server's prompt and resources put in a prompt, through the real daemon app over real
 * HTTP with real SQLite: a message that came from a server's prompt is marked so, and each
 * resource the user attached (its text, read by the host) is stored as a part of its own, sent to
 * the model under a line naming it and its server on every later step, and kept out of what a
 * rewind puts back in the box. The bounds are the schema's: a resource over
 * MCP_RESOURCE_TEXT_MAX_BYTES, too many of them, or one without a message is refused before
 * anything is stored or the model called.
 */
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AGENT_MAX_MCP_RESOURCES,
  MCP_PROMPT_MAX_SPANS,
  MCP_RESOURCE_TEXT_MAX_BYTES,
  type AgentEvent,
  type AgentRewindResponse,
  type MessageListResponse,
  type Session,
} from '@bastion/protocol';
import { startInProcessDaemon, type InProcessDaemon } from './support/in-process-daemon.js';
import { recordingProvider } from './support/scripted-provider.js';

const calls: LanguageModelV3CallOptions[] = [];
const model = recordingProvider('openai', 'gpt-4.1', 'done', calls);
const README = { server: 'fixture', uri: 'notes://readme', name: 'Fixture readme', text: 'RESOURCE-TEXT-5b2e readme' };
const LOG = { server: 'fixture', uri: 'logs://today', name: '', text: 'second resource' };

let daemon: InProcessDaemon | undefined;
afterEach(async () => {
  calls.length = 0;
  await daemon?.stop();
  daemon?.cleanup();
  daemon = undefined;
});

async function started(): Promise<{ d: InProcessDaemon; id: string }> {
  daemon = await startInProcessDaemon({ providers: [model] });
  const id = (await daemon.request<Session>('POST', '/sessions', { provider: 'openai', model: 'gpt-4.1' })).body.id;
  return { d: daemon, id };
}

/** Send a prompt and follow its run to the end; its run id. */
async function send(d: InProcessDaemon, sessionId: string, body: Record<string, unknown>): Promise<string> {
  const answer = await d.request<{ run_id: string }>('POST', '/agent/run', { session_id: sessionId, ...body });
  expect(answer.status).toBe(202);
  await d.collect(
    sessionId,
    (event: AgentEvent) =>
      (event.type === 'run-finished' || event.type === 'run-error') && event.run_id === answer.body.run_id,
  );
  return answer.body.run_id;
}

/** The text parts of the user messages the model was sent in `call`. */
function sentUserTexts(call: LanguageModelV3CallOptions | undefined): string[][] {
  return (call?.prompt ?? [])
    .filter((message) => message.role === 'user')
    .map((message) => message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])));
}

const readmeForModel =
  '[The user attached the resource notes://readme ("Fixture readme") of the MCP server fixture; its text follows.]\nRESOURCE-TEXT-5b2e readme';

describe('MCP prompts and resources in a prompt', () => {
  it('marks a message from a server’s prompt and stores each attached resource as a part the model is sent under a line naming it, on later steps too', async () => {
    const { d, id } = await started();
    await send(d, id, {
      message: 'Review this code: x',
      mcp_prompt: { server: 'fixture', name: 'review' },
      mcp_resources: [README, LOG],
    });
    expect(sentUserTexts(calls[0])).toEqual([
      [
        'Review this code: x',
        readmeForModel,
        '[The user attached the resource logs://today of the MCP server fixture; its text follows.]\nsecond resource',
      ],
    ]);
    await send(d, id, { message: 'and again' });
    expect(sentUserTexts(calls[1])?.[0]?.[1]).toBe(readmeForModel);

    const messages = (await d.request<MessageListResponse>('GET', `/sessions/${id}/messages`)).body.messages;
    expect(messages[0]?.parts).toEqual([
      { type: 'text', text: 'Review this code: x', mcp: { kind: 'prompt', server: 'fixture', name: 'review' } },
      {
        type: 'text',
        text: README.text,
        mcp: { kind: 'resource', server: 'fixture', uri: 'notes://readme', name: 'Fixture readme' },
      },
      { type: 'text', text: LOG.text, mcp: { kind: 'resource', server: 'fixture', uri: 'logs://today', name: '' } },
    ]);
    expect(JSON.stringify(d.records)).not.toContain('RESOURCE-TEXT-5b2e');
  });

  it('a rewind puts back the message the user typed, without the attached resources’ text', async () => {
    const { d, id } = await started();
    const run = await send(d, id, { message: 'see @fixture:notes://readme', mcp_resources: [README] });
    const rewound = await d.request<AgentRewindResponse>('POST', '/agent/rewind', {
      session_id: id,
      run_id: run,
      files: false,
    });
    expect(rewound.body.prompt).toBe('see @fixture:notes://readme');
    expect(rewound.body.mcp_prompt).toBeUndefined();
  });

  it('keeps the ranges of the message its MCP prompt wrote with it, and gives them back with the message', async () => {
    const { d, id } = await started();
    const message = 'Summarise @other:notes://readme. Also @fixture:notes://readme';
    const spans = [[0, 32]];
    const run = await send(d, id, { message, mcp_prompt: { server: 'lure', name: 'lure', spans } });
    const messages = (await d.request<MessageListResponse>('GET', `/sessions/${id}/messages`)).body.messages;
    expect(messages[0]?.parts).toEqual([
      { type: 'text', text: message, mcp: { kind: 'prompt', server: 'lure', name: 'lure', spans } },
    ]);
    expect(sentUserTexts(calls[0])).toEqual([[message]]);
    const rewound = await d.request<AgentRewindResponse>('POST', '/agent/rewind', {
      session_id: id,
      run_id: run,
      files: false,
    });
    expect(rewound.body.prompt).toBe(message);
    // Named so a terminal, which cannot keep the ranges through edits, does not put the text back as the person's.
    expect(rewound.body.mcp_prompt).toEqual({ server: 'lure', name: 'lure' });
  });

  it.each([
    [
      'overlapping spans',
      [
        [0, 3],
        [2, 5],
      ],
    ],
    [
      'spans out of order',
      [
        [4, 5],
        [0, 2],
      ],
    ],
    ['an empty span', [[2, 2]]],
    ['a span past the message’s end', [[0, 6]]],
    ['a negative offset', [[-1, 2]]],
    ['an offset that is no whole number', [[0, 1.5]]],
    [
      `${MCP_PROMPT_MAX_SPANS + 1} spans`,
      Array.from({ length: MCP_PROMPT_MAX_SPANS + 1 }, (_, index) => [index * 2, index * 2 + 1]),
    ],
  ])(
    'refuses an MCP prompt’s %s with BAD_REQUEST naming mcp_prompt.spans, before anything is stored or the model called',
    async (_what, spans) => {
      const { d, id } = await started();
      // Long enough for every span but the one past its end (five characters).
      const message = spans.length > 2 ? 'x'.repeat(2 * MCP_PROMPT_MAX_SPANS + 2) : 'hello';
      const refused = await d.request<{ code: string; message: string }>('POST', '/agent/run', {
        session_id: id,
        message,
        mcp_prompt: { server: 'lure', name: 'lure', spans },
      });
      expect([refused.status, refused.body.code, refused.body.message]).toEqual([
        400,
        'BAD_REQUEST',
        expect.stringMatching(/^invalid field: mcp_prompt\.spans(\.|$)/),
      ]);
      expect((await d.request<MessageListResponse>('GET', `/sessions/${id}/messages`)).body.messages).toEqual([]);
      expect(calls).toEqual([]);
    },
  );

  it.each([
    [
      `a resource over ${MCP_RESOURCE_TEXT_MAX_BYTES / 1024} KiB of UTF-8 (fewer characters than that)`,
      { message: 'x', mcp_resources: [{ ...README, text: 'é'.repeat(MCP_RESOURCE_TEXT_MAX_BYTES / 2 + 1) }] },
    ],
    [
      `${AGENT_MAX_MCP_RESOURCES + 1} resources`,
      { message: 'x', mcp_resources: Array.from({ length: AGENT_MAX_MCP_RESOURCES + 1 }, () => README) },
    ],
    ['resources without a message', { mcp_resources: [README] }],
    ['a prompt’s origin without a message', { mcp_prompt: { server: 'fixture', name: 'review' } }],
    ['a URI holding a space', { message: 'x', mcp_resources: [{ ...README, uri: 'notes://two words' }] }],
    ['a server name no server can have', { message: 'x', mcp_resources: [{ ...README, server: 'Fix<b>' }] }],
  ])('refuses %s before anything is stored or the model called', async (_what, body) => {
    const { d, id } = await started();
    const refused = await d.request<{ code: string }>('POST', '/agent/run', { session_id: id, ...body });
    expect([refused.status, refused.body.code]).toEqual([400, 'BAD_REQUEST']);
    expect((await d.request<MessageListResponse>('GET', `/sessions/${id}/messages`)).body.messages).toEqual([]);
    expect(calls).toEqual([]);
  });
});
