import { describe, expect, it } from 'vitest';
import type { AgentEvent, AgentStreamEvent } from '@bastion/bridge';
import { applyEvents, emptyTranscript, prependTranscript, stepAnswered, type Transcript } from './transcript.js';

const run = 'run_aaaaaaaa';
const run2 = 'run_bbbbbbbb';
let nextId = 1;
const at = (event: AgentEvent): AgentStreamEvent => ({ id: nextId++, event });
const started = (runId: string, messageId: string | null): AgentEvent => ({
  type: 'run-started',
  run_id: runId,
  session_id: 'ses_aaaaaaaa',
  message_id: messageId,
  provider: 'demo',
  model: 'demo',
});

const approvalRun: AgentStreamEvent[] = [
  at(started(run, 'm1')),
  at({ type: 'reasoning-delta', run_id: run, text: 'Let me ' }),
  at({ type: 'reasoning-delta', run_id: run, text: 'think' }),
  at({ type: 'text-delta', run_id: run, text: 'Run' }),
  at({ type: 'text-delta', run_id: run, text: 'ning' }),
  at({ type: 'tool-call', run_id: run, tool_call_id: 't1', tool_name: 'run_command', input: { command: 'touch' } }),
  at({
    type: 'tool-approval-request',
    run_id: run,
    approval_id: 'a1',
    tool_call_id: 't1',
    tool_name: 'run_command',
    input: { command: 'touch' },
  }),
  at({ type: 'run-finished', run_id: run, finish_reason: 'approval-pending' }),
];

function foldOneByOne(list: readonly AgentStreamEvent[], start: Transcript = emptyTranscript): Transcript {
  return list.reduce((state, event) => applyEvents(state, [event], 0), start);
}

describe('transcript fold', () => {
  it('joins text and reasoning deltas, attaches the approval to its tool card and exposes it as pending', () => {
    const state = applyEvents(emptyTranscript, approvalRun, 0);
    expect(state.items.map((item) => item.kind)).toEqual(['user', 'reasoning', 'assistant', 'tool', 'run-end']);
    expect(state.items[0]).toMatchObject({ messageId: 'm1' });
    expect(state.items[1]).toMatchObject({ text: 'Let me think' });
    expect(state.items[2]).toMatchObject({ text: 'Running' });
    expect(state.pending).toMatchObject([{ toolCallId: 't1', approval: { approvalId: 'a1', state: 'pending' } }]);
    expect(state.active).toBeUndefined();
    expect(state.lastEventId).toBe(approvalRun.at(-1)?.id);
  });

  it('gives the same transcript folded one event at a time as in one batch', () => {
    expect(foldOneByOne(approvalRun)).toEqual(applyEvents(emptyTranscript, approvalRun, 0));
  });

  it('ignores events replayed after a reconnect and returns the same object', () => {
    const once = applyEvents(emptyTranscript, approvalRun, 0);
    expect(applyEvents(once, approvalRun, 0)).toBe(once);
  });

  it('shares untouched items with the previous transcript (incremental, not a re-fold)', () => {
    const before = applyEvents(emptyTranscript, approvalRun, 0);
    const after = applyEvents(before, [at({ type: 'text-delta', run_id: run2, text: 'x' })], 0);
    for (const [index, item] of before.items.entries()) expect(after.items[index]).toBe(item);
  });

  it('clears the pending approval when its result arrives and lists the files a run changed', () => {
    const base = applyEvents(emptyTranscript, approvalRun, 0);
    const state = applyEvents(
      base,
      [
        at(started(run2, null)),
        at({
          type: 'tool-result',
          run_id: run2,
          tool_call_id: 't1',
          tool_name: 'run_command',
          output: {},
          is_error: false,
        }),
        at({
          type: 'tool-call',
          run_id: run2,
          tool_call_id: 't2',
          tool_name: 'write_file',
          input: { path: 'a.txt', content: 'a' },
        }),
        at({
          type: 'tool-result',
          run_id: run2,
          tool_call_id: 't2',
          tool_name: 'write_file',
          output: { path: 'a.txt' },
          is_error: false,
        }),
        at({
          type: 'tool-call',
          run_id: run2,
          tool_call_id: 't3',
          tool_name: 'edit_file',
          input: { path: 'b.txt', old_string: 'b', new_string: 'c' },
        }),
        at({
          type: 'tool-result',
          run_id: run2,
          tool_call_id: 't3',
          tool_name: 'edit_file',
          output: { code: 'EDIT_NO_MATCH', message: 'no' },
          is_error: true,
        }),
        at({
          type: 'run-finished',
          run_id: run2,
          finish_reason: 'stop',
          usage: { input_tokens: 10, output_tokens: 5, cached_input_tokens: 0, cost_usd: 0.01 },
        }),
      ],
      0,
    );
    expect(state.pending).toEqual([]);
    expect(state.items.filter((item) => item.kind === 'tool')).toHaveLength(3);
    const end = state.items.at(-1);
    expect(end).toMatchObject({ kind: 'run-end', outcome: 'finished', files: [{ path: 'a.txt' }] });
    expect(state.totals).toEqual({ input_tokens: 10, output_tokens: 5, cached_input_tokens: 0, cost_usd: 0.01 });
  });

  it('reads an aborted run as stopped (not an error) and a stop during an approval clears the prompt', () => {
    const base = applyEvents(emptyTranscript, approvalRun, 0);
    const state = applyEvents(
      base,
      [at({ type: 'run-error', run_id: run, code: 'RUN_ABORTED', message: 'stopped' })],
      0,
    );
    expect(state.pending).toEqual([]);
    expect(state.items.some((item) => item.kind === 'error')).toBe(false);
    expect(state.items.at(-1)).toMatchObject({ kind: 'run-end', outcome: 'stopped' });
  });

  it('a run stopped while it waited for an approval keeps one end row, now stopped, with the usage it ended waiting with; every key stays unique', () => {
    const usage = { input_tokens: 12, output_tokens: 3, cached_input_tokens: 0 };
    const waiting = [
      ...approvalRun.slice(0, -1),
      at({ type: 'run-finished', run_id: run, finish_reason: 'approval-pending', usage }),
    ];
    const state = applyEvents(
      applyEvents(emptyTranscript, waiting, 0),
      [at({ type: 'run-error', run_id: run, code: 'RUN_ABORTED', message: 'stopped' })],
      0,
    );
    const ends = state.items.filter((item) => item.kind === 'run-end');
    expect(ends).toEqual([expect.objectContaining({ runId: run, outcome: 'stopped', usage })]);
    expect(new Set(state.items.map((item) => item.key)).size).toBe(state.items.length);
    expect(state.totals).toMatchObject({ input_tokens: 12, output_tokens: 3 });
  });

  it('keeps a provider error with its status and Retry-After, and a retry notice', () => {
    const state = applyEvents(
      emptyTranscript,
      [
        at(started(run, 'm1')),
        at({
          type: 'run-retry',
          run_id: run,
          attempt: 1,
          max_attempts: 3,
          delay_ms: 2000,
          status: 429,
          message: 'slow down',
        }),
        at({
          type: 'run-error',
          run_id: run,
          code: 'PROVIDER_FAILED',
          message: 'rate limited',
          status: 429,
          retry_after_ms: 30000,
        }),
      ],
      5,
    );
    expect(state.items.map((item) => item.kind)).toEqual(['user', 'retry', 'error', 'run-end']);
    expect(state.items[2]).toMatchObject({ status: 429, retryAfterMs: 30000 });
    expect(state.active).toBeUndefined();
  });

  it('settles a retry notice by its run’s next event: retried on output, a further retry or the next attempt’s failure; ended on Stop; waiting while nothing followed', () => {
    const retry = (attempt: number): AgentEvent => ({
      type: 'run-retry',
      run_id: run,
      attempt,
      max_attempts: 3,
      delay_ms: 1000,
      status: 503,
      message: 'Overloaded',
    });
    const settledOf = (events: AgentEvent[]) =>
      applyEvents(emptyTranscript, [at(started(run, 'm1')), ...events.map(at)], 5).items.flatMap((item) =>
        item.kind === 'retry' ? [item.settled ?? 'waiting'] : [],
      );
    expect(settledOf([retry(1)])).toEqual(['waiting']);
    expect(settledOf([retry(1), { type: 'text-delta', run_id: run, text: 'Answered' }])).toEqual(['retried']);
    const failed: AgentEvent = { type: 'run-error', run_id: run, code: 'PROVIDER_FAILED', message: 'no', status: 503 };
    expect(settledOf([retry(1), retry(2), failed])).toEqual(['retried', 'retried']);
    const stopped: AgentEvent = { type: 'run-error', run_id: run, code: 'RUN_ABORTED', message: 'stopped' };
    expect(settledOf([retry(1), retry(2), stopped])).toEqual(['retried', 'ended']);
    // Another run's event says nothing of this one's wait.
    expect(settledOf([retry(1), { type: 'text-delta', run_id: 'run_other', text: 'x' }])).toEqual(['waiting']);
  });

  it('keeps no usage for a run that used no tokens (the demo model), so no "0 in · 0 out" line shows', () => {
    const zero = { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 };
    const finished = at({ type: 'run-finished', run_id: run, finish_reason: 'stop', usage: zero });
    const state = applyEvents(emptyTranscript, [at(started(run, 'm1')), finished], 0);
    expect(state.items.at(-1)).toEqual({
      kind: 'run-end',
      key: `end-${run}`,
      runId: run,
      outcome: 'finished',
      files: [],
    });
    expect(state.totals).toEqual({ input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 });
  });

  it('keeps the context of the latest finished run that measured one; a run that did not (the demo model, an error) leaves it, a compaction clears it', () => {
    const second = 'run_ctx2aaaa';
    const third = 'run_ctx3aaaa';
    const state = applyEvents(
      emptyTranscript,
      [
        at(started(run, 'm1')),
        at({ type: 'run-finished', run_id: run, finish_reason: 'stop', context: { tokens: 900, window: 8_192 } }),
        at(started(second, 'm2')),
        at({ type: 'run-finished', run_id: second, finish_reason: 'stop', context: { tokens: 1_200, window: 8_192 } }),
        at(started(third, 'm3')),
        at({ type: 'run-error', run_id: third, code: 'PROVIDER_FAILED', message: 'down' }),
      ],
      0,
    );
    expect(state.context).toEqual({ tokens: 1_200, window: 8_192 });
    const demo = applyEvents(
      state,
      [at(started('run_ctx4aaaa', 'm4')), at({ type: 'run-finished', run_id: 'run_ctx4aaaa', finish_reason: 'stop' })],
      0,
    );
    expect(demo.context).toEqual({ tokens: 1_200, window: 8_192 });
    const compacted = applyEvents(
      demo,
      [
        at(started('run_ctx5aaaa', null)),
        at({ type: 'context-compacted', run_id: 'run_ctx5aaaa', messages_summarized: 6 }),
        at({ type: 'run-finished', run_id: 'run_ctx5aaaa', finish_reason: 'stop' }),
      ],
      0,
    );
    expect(compacted.context).toBeNull();
  });

  it('marks the rewound prompt and every item after it up to the rewind, not those before or after, the rewound run-ends with files as undone, and forgets the measured context', () => {
    const write = { tool_call_id: 'rw1', tool_name: 'write_file' };
    const state = applyEvents(
      emptyTranscript,
      [
        at(started(run, 'm1')),
        at({ type: 'text-delta', run_id: run, text: 'kept' }),
        at({ type: 'run-finished', run_id: run, finish_reason: 'stop' }),
        at(started(run2, 'm2')),
        at({ type: 'tool-call', run_id: run2, ...write, input: { path: 'a.txt', content: 'x' } }),
        at({ type: 'tool-result', run_id: run2, ...write, output: { path: 'a.txt' }, is_error: false }),
        at({ type: 'run-finished', run_id: run2, finish_reason: 'stop', context: { tokens: 10, window: 100 } }),
        at({
          type: 'context-rewound',
          run_id: run2,
          turns: 1,
          files: true,
          restored: ['a.txt'],
          removed: [],
          not_undone: [],
          commands: 0,
        }),
        at(started('run_cccccccc', 'm3')),
      ],
      0,
    );
    expect(state.items.map((item) => [item.kind, item.rewound === true])).toEqual([
      ['user', false],
      ['assistant', false],
      ['run-end', false],
      ['user', true],
      ['tool', true],
      ['run-end', true],
      ['rewound', false],
      ['user', false],
    ]);
    expect(state.items[5]).toMatchObject({ kind: 'run-end', undone: true });
    expect(state.items[6]).toMatchObject({ kind: 'rewound', runId: run2, turns: 1, restored: ['a.txt'] });
    expect(state.rewindsBefore).toEqual([]);
    // The last measured context was the rewound run's: unknown until a step measures it again.
    expect(state.context).toBeNull();
  });

  it('tracks the active run from its start until it ends', () => {
    const state = applyEvents(emptyTranscript, [at(started(run, 'm1'))], 42);
    expect(state.active).toEqual({
      runId: run,
      provider: 'demo',
      model: 'demo',
      seenAt: 42,
      heardAt: 42,
      toolsRunning: 0,
    });
  });

  it('keeps when it last heard from the active run and how many of its own tool calls run: an explorer’s calls inside one are not counted, another run’s events not heard', () => {
    const call = (id: string, parent?: string): AgentEvent => ({
      type: 'tool-call',
      run_id: run,
      tool_call_id: id,
      tool_name: 'read_file',
      input: { path: 'a.ts' },
      ...(parent === undefined ? {} : { parent_tool_call_id: parent }),
    });
    const result = (id: string, parent?: string): AgentEvent => ({
      type: 'tool-result',
      run_id: run,
      tool_call_id: id,
      tool_name: 'read_file',
      output: { path: 'a.ts' },
      is_error: false,
      ...(parent === undefined ? {} : { parent_tool_call_id: parent }),
    });
    let state = applyEvents(emptyTranscript, [at(started(run, 'm1'))], 10);
    state = applyEvents(state, [at(call('c1'))], 20);
    expect(state.active).toMatchObject({ heardAt: 20, toolsRunning: 1 });
    state = applyEvents(state, [at(call('c1/s1', 'c1')), at(result('c1/s1', 'c1'))], 30);
    expect(state.active).toMatchObject({ heardAt: 30, toolsRunning: 1 });
    state = applyEvents(state, [at({ type: 'text-delta', run_id: 'run_other', text: 'elsewhere' })], 40);
    expect(state.active).toMatchObject({ heardAt: 30, toolsRunning: 1 });
    state = applyEvents(state, [at(result('c1'))], 50);
    expect(state.active).toMatchObject({ heardAt: 50, toolsRunning: 0 });
    state = applyEvents(state, [at(result('c0'))], 60);
    expect(state.active).toMatchObject({ heardAt: 60, toolsRunning: 0 });
  });
});

describe('several approvals in one step', () => {
  const call = (toolCallId: string) => ({
    run_id: run,
    tool_call_id: toolCallId,
    tool_name: 'run_command',
    input: { command: 'touch', args: [toolCallId] },
  });
  /** The model asks for two commands in one step; both wait for an answer. */
  const step: AgentStreamEvent[] = [
    at(started(run, 'm1')),
    at({ type: 'tool-call', ...call('s1') }),
    at({ type: 'tool-call', ...call('s2') }),
    at({ type: 'tool-approval-request', ...call('s1'), approval_id: 'as1' }),
    at({ type: 'tool-approval-request', ...call('s2'), approval_id: 'as2' }),
    at({ type: 'run-finished', run_id: run, finish_reason: 'approval-pending' }),
  ];
  const response = (toolCallId: string, approved: boolean): AgentStreamEvent =>
    at({
      type: 'tool-approval-response',
      run_id: run,
      approval_id: `a${toolCallId}`,
      tool_call_id: toolCallId,
      approved,
    });
  const approvalOf = (state: Transcript, toolCallId: string) => {
    const card = state.items.find((item) => item.kind === 'tool' && item.toolCallId === toolCallId);
    return card?.kind === 'tool' ? card.approval : undefined;
  };

  it('wait in the order they were asked; an answer (from any tab) takes its own out, its card reading allowed or denied, and the next still waits', () => {
    const asked = applyEvents(emptyTranscript, step, 0);
    expect(asked.pending.map((tool) => tool.toolCallId)).toEqual(['s1', 's2']);
    const first = applyEvents(asked, [response('s1', true)], 0);
    expect(first.pending.map((tool) => tool.toolCallId)).toEqual(['s2']);
    expect(approvalOf(first, 's1')).toEqual({ approvalId: 'as1', state: 'allowed' });
    const both = applyEvents(first, [response('s2', false)], 0);
    expect(both.pending).toEqual([]);
    expect(approvalOf(both, 's2')).toEqual({ approvalId: 'as2', state: 'denied' });
  });

  it('read as answered once the run that carries the answers out starts', () => {
    const state = applyEvents(
      emptyTranscript,
      [...step, response('s1', true), response('s2', false), at(started(run2, null))],
      0,
    );
    expect(state.pending).toEqual([]);
    expect([approvalOf(state, 's1'), approvalOf(state, 's2')]).toEqual([
      { approvalId: 'as1', state: 'answered' },
      { approvalId: 'as2', state: 'answered' },
    ]);
  });

  it('stepAnswered: only once every approval of the step is answered (here or on the stream), until the run carrying the answers out starts or the run ends', () => {
    const asked = applyEvents(emptyTranscript, step, 0);
    expect(stepAnswered(asked, new Set())).toBe(false);
    expect(stepAnswered(asked, new Set(['s1']))).toBe(false);
    expect(stepAnswered(asked, new Set(['s1', 's2']))).toBe(true);
    const onStream = applyEvents(asked, [response('s1', true)], 0);
    expect(stepAnswered(onStream, new Set())).toBe(false);
    expect(stepAnswered(onStream, new Set(['s2']))).toBe(true);
    const both = applyEvents(onStream, [response('s2', false)], 0);
    expect(stepAnswered(both, new Set())).toBe(true);
    expect(stepAnswered(applyEvents(both, [at(started(run2, null))], 0), new Set())).toBe(false);
    const stopped = applyEvents(
      both,
      [at({ type: 'run-error', run_id: run, code: 'RUN_ABORTED', message: 'stopped' })],
      0,
    );
    expect(stepAnswered(stopped, new Set())).toBe(false);
    expect(stepAnswered(emptyTranscript, new Set())).toBe(false);
  });

  it('a stop with one answered and one waiting leaves none waiting, each card answered (its run ended)', () => {
    const state = applyEvents(
      emptyTranscript,
      [...step, response('s1', true), at({ type: 'run-error', run_id: run, code: 'RUN_ABORTED', message: 'stopped' })],
      0,
    );
    expect(state.pending).toEqual([]);
    expect([approvalOf(state, 's1'), approvalOf(state, 's2')]).toEqual([
      { approvalId: 'as1', state: 'answered' },
      { approvalId: 'as2', state: 'answered' },
    ]);
  });

  it('gives the same transcript folded one event at a time as in one batch, and joined from pages split at the run that carries the answers out', () => {
    const log = [...step, response('s1', true), at(started(run2, null))];
    expect(foldOneByOne(log)).toEqual(applyEvents(emptyTranscript, log, 0));
    const split = log.length - 1;
    const joined = prependTranscript(
      applyEvents(emptyTranscript, log.slice(0, split), 0),
      applyEvents(emptyTranscript, log.slice(split), 0),
    );
    const whole = applyEvents(emptyTranscript, log, 0);
    expect([joined.items, joined.pending]).toEqual([whole.items, whole.pending]);
  });
});

describe('joining a transcript folded page by page (newest page first)', () => {
  const r = ['run_p1aaaaaa', 'run_p2aaaaaa', 'run_p3aaaaaa', 'run_p4aaaaaa', 'run_p5aaaaaa', 'run_p6aaaaaa'] as const;
  const writeCall = { tool_call_id: 'w1', tool_name: 'write_file' };
  /** A run_command call and its approval request (approval id `a` + call id). */
  const commandAsked = (runId: string, toolCallId: string, command: string): AgentStreamEvent[] => {
    const call = { run_id: runId, tool_call_id: toolCallId, tool_name: 'run_command', input: { command } };
    return [
      at({ type: 'tool-call', ...call }),
      at({ type: 'tool-approval-request', ...call, approval_id: `a${toolCallId}` }),
    ];
  };
  /**
   * Six runs: an approval asked in one run and answered (its result) in the next, a stop, an
   * approval left open by a new prompt, an error, and an approval still pending.
   */
  const log: AgentStreamEvent[] = [
    at(started(r[0], 'p1')),
    at({ type: 'reasoning-delta', run_id: r[0], text: 'plan' }),
    at({ type: 'text-delta', run_id: r[0], text: 'Writing ' }),
    at({ type: 'text-delta', run_id: r[0], text: 'a.txt' }),
    at({ type: 'tool-call', run_id: r[0], ...writeCall, input: { path: 'a.txt', content: 'a' } }),
    at({
      type: 'tool-approval-request',
      run_id: r[0],
      approval_id: 'aw1',
      ...writeCall,
      input: { path: 'a.txt', content: 'a' },
    }),
    at({ type: 'run-finished', run_id: r[0], finish_reason: 'approval-pending' }),
    at(started(r[1], null)),
    at({ type: 'tool-result', run_id: r[1], ...writeCall, output: { path: 'a.txt', diff: '+a' }, is_error: false }),
    at({ type: 'text-delta', run_id: r[1], text: 'Done.' }),
    at({
      type: 'run-finished',
      run_id: r[1],
      finish_reason: 'stop',
      usage: { input_tokens: 7, output_tokens: 3, cached_input_tokens: 1, cost_usd: 0.5 },
      context: { tokens: 10, window: 100 },
    }),
    at(started(r[2], 'p2')),
    at({ type: 'context-compacted', run_id: r[2], messages_summarized: 4 }),
    at({ type: 'tool-call', run_id: r[2], tool_call_id: 'c1', tool_name: 'run_command', input: { command: 'ls' } }),
    at({
      type: 'tool-result',
      run_id: r[2],
      tool_call_id: 'c1',
      tool_name: 'run_command',
      output: {},
      is_error: false,
    }),
    at({ type: 'run-error', run_id: r[2], code: 'RUN_ABORTED', message: 'stopped' }),
    at(started(r[5], 'p2b')),
    ...commandAsked(r[5], 'c3', 'mv'),
    at({ type: 'run-finished', run_id: r[5], finish_reason: 'approval-pending' }),
    // a new prompt instead of an answer: the approval left open above reads as answered
    at(started(r[3], 'p3')),
    at({ type: 'run-error', run_id: r[3], code: 'PROVIDER_FAILED', message: 'rate limited', status: 429 }),
    // back to before p2: p2, p2b and p3 with their runs are rewound, p1 and p4 are not
    at({
      type: 'context-rewound',
      run_id: r[2],
      turns: 3,
      files: true,
      restored: [],
      removed: [],
      not_undone: [],
      commands: 1,
    }),
    at(started(r[4], 'p4')),
    ...commandAsked(r[4], 'c2', 'rm'),
    at({
      type: 'run-finished',
      run_id: r[4],
      finish_reason: 'approval-pending',
      usage: { input_tokens: 2, output_tokens: 2, cached_input_tokens: 0 },
    }),
  ];
  const starts = log.flatMap((entry, index) => (entry.event.type === 'run-started' && index > 0 ? [index] : []));
  const fold = (events: readonly AgentStreamEvent[]) => applyEvents(emptyTranscript, events, 0);
  /** The fields a view reads (the index maps are compared through what they point at). */
  const view = (state: Transcript) => ({
    items: state.items,
    lastEventId: state.lastEventId,
    active: state.active,
    pending: state.pending,
    totals: state.totals,
    context: state.context,
    tools: [...state.toolIndex].map(([id, index]) => [id, state.items[index]?.key]),
  });

  it('equals the whole log folded at once, for every split at a run start', () => {
    const whole = fold(log);
    for (const split of starts) {
      expect(view(prependTranscript(fold(log.slice(0, split)), fold(log.slice(split)))), `split ${split}`).toEqual(
        view(whole),
      );
    }
  });

  it('equals the whole log folded at once when every run is its own page, joined newest first', () => {
    const bounds = [0, ...starts, log.length];
    let joined = emptyTranscript;
    for (let page = bounds.length - 2; page >= 0; page -= 1) {
      joined = prependTranscript(fold(log.slice(bounds[page], bounds[page + 1])), joined);
    }
    expect(view(joined)).toEqual(view(fold(log)));
  });

  it('completes the older card with the result the next run carried, and points the files list at it', () => {
    const split = starts[0] as number;
    const joined = prependTranscript(fold(log.slice(0, split)), fold(log.slice(split)));
    const cards = joined.items.filter((item) => item.kind === 'tool' && item.toolCallId === 'w1');
    expect(cards).toEqual([
      expect.objectContaining({
        input: { path: 'a.txt', content: 'a' },
        output: { path: 'a.txt', diff: '+a' },
        approval: { approvalId: 'aw1', state: 'answered' },
      }),
    ]);
    const end = joined.items.find((item) => item.kind === 'run-end' && item.runId === r[1]);
    expect(end).toMatchObject({ files: [{ path: 'a.txt', toolKey: cards[0]?.key }] });
  });

  it('folds live events after the join as it would after the whole log', () => {
    const live = [
      at(started('run_p7aaaaaa', null)),
      at({
        type: 'tool-result',
        run_id: 'run_p7aaaaaa',
        tool_call_id: 'c2',
        tool_name: 'run_command',
        output: {},
        is_error: false,
      }),
    ];
    const split = starts.at(-1) as number;
    const joined = prependTranscript(fold(log.slice(0, split)), fold(log.slice(split)));
    expect(view(applyEvents(joined, live, 0))).toEqual(view(applyEvents(fold(log), live, 0)));
  });

  it('returns the other side unchanged when one side is empty', () => {
    const whole = fold(log);
    expect(prependTranscript(emptyTranscript, whole)).toBe(whole);
    expect(prependTranscript(whole, emptyTranscript)).toBe(whole);
  });
});

describe('an explore call’s explorer calls', () => {
  const r = 'run_explore1';
  const answer = {
    answer: 'The parser is in **src/parse.ts**.',
    truncated: false,
    steps: 3,
    tool_calls: 3,
    ended: 'answered',
  };
  /** The explorer's call `sub` of explore call `parent`: its tool-call and tool-result events. */
  const explorerCall = (runId: string, parent: string, sub: string, toolName: string, input: unknown) => ({
    call: (): AgentEvent => ({
      type: 'tool-call',
      run_id: runId,
      tool_call_id: `${parent}/${sub}`,
      tool_name: toolName,
      input,
      parent_tool_call_id: parent,
    }),
    result: (): AgentEvent => ({
      type: 'tool-result',
      run_id: runId,
      tool_call_id: `${parent}/${sub}`,
      tool_name: toolName,
      output: { path: 'src/parse.ts' },
      is_error: false,
      parent_tool_call_id: parent,
    }),
  });
  const list = explorerCall(r, 'x1', 'c1', 'list_dir', { path: 'src' });
  const read = explorerCall(r, 'x1', 'c2', 'read_file', { path: 'src/parse.ts' });
  // Not a tool an explorer has: it shows a write inside an explore card is no file the run changed.
  const write = explorerCall(r, 'x1', 'c3', 'write_file', { path: 'src/parse.ts', content: '' });
  const exploreRun: AgentStreamEvent[] = [
    at(started(r, 'm1')),
    at({ type: 'tool-call', run_id: r, tool_call_id: 'x1', tool_name: 'explore', input: { task: 'Find the parser' } }),
    at(list.call()),
    // parallel calls: both start before either ends
    at(read.call()),
    at(write.call()),
    at(read.result()),
    at(list.result()),
    at(write.result()),
    at({ type: 'tool-result', run_id: r, tool_call_id: 'x1', tool_name: 'explore', output: answer, is_error: false }),
    at({ type: 'text-delta', run_id: r, text: 'It is in src/parse.ts.' }),
    at({ type: 'run-finished', run_id: r, finish_reason: 'stop' }),
  ];

  it('folds them into the explore card in the order they started, each with its result, and makes no card of them', () => {
    const state = applyEvents(emptyTranscript, exploreRun, 0);
    expect(state.items.map((item) => item.kind)).toEqual(['user', 'tool', 'assistant', 'run-end']);
    const card = state.items[1];
    expect(card).toMatchObject({
      toolCallId: 'x1',
      toolName: 'explore',
      input: { task: 'Find the parser' },
      output: answer,
    });
    expect(card?.kind === 'tool' ? card.subCalls : undefined).toEqual([
      expect.objectContaining({ toolCallId: 'x1/c1', toolName: 'list_dir', input: { path: 'src' }, isError: false }),
      expect.objectContaining({ toolCallId: 'x1/c2', toolName: 'read_file', output: { path: 'src/parse.ts' } }),
      expect.objectContaining({ toolCallId: 'x1/c3', toolName: 'write_file', isError: false }),
    ]);
    expect([...state.toolIndex.keys()]).toEqual(['x1']);
  });

  it('counts none of them as the run’s own: no changed file, no pending approval', () => {
    const state = applyEvents(emptyTranscript, exploreRun, 0);
    expect(state.items.at(-1)).toMatchObject({ kind: 'run-end', files: [] });
    expect(state.pending).toEqual([]);
  });

  it('shows the explorer’s progress while it works: the card is a new object with each call, the rest untouched', () => {
    const before = applyEvents(emptyTranscript, exploreRun.slice(0, 3), 0);
    const after = applyEvents(before, exploreRun.slice(3, 4), 0);
    expect(after.items[0]).toBe(before.items[0]);
    expect(after.items[1]).not.toBe(before.items[1]);
    const card = after.items[1];
    expect(card?.kind === 'tool' ? card.subCalls?.map((sub) => sub.toolCallId) : undefined).toEqual(['x1/c1', 'x1/c2']);
    expect(card).not.toHaveProperty('output');
  });

  it('gives the same transcript folded one event at a time as in one batch', () => {
    expect(foldOneByOne(exploreRun)).toEqual(applyEvents(emptyTranscript, exploreRun, 0));
  });

  it('joins calls a later page carries (the explore call approved in the run before) to the card, as the whole log folds', () => {
    const r2 = 'run_explore2';
    const later = explorerCall(r2, 'x2', 'c1', 'search', { pattern: 'TODO' });
    const log: AgentStreamEvent[] = [
      at(started(r, 'm2')),
      at({ type: 'tool-call', run_id: r, tool_call_id: 'x2', tool_name: 'explore', input: { task: 'Find TODOs' } }),
      at({
        type: 'tool-approval-request',
        run_id: r,
        approval_id: 'ax',
        tool_call_id: 'x2',
        tool_name: 'explore',
        input: { task: 'Find TODOs' },
      }),
      at({ type: 'run-finished', run_id: r, finish_reason: 'approval-pending' }),
      at(started(r2, null)),
      at(later.call()),
      at(later.result()),
      at({
        type: 'tool-result',
        run_id: r2,
        tool_call_id: 'x2',
        tool_name: 'explore',
        output: answer,
        is_error: false,
      }),
      at({ type: 'run-finished', run_id: r2, finish_reason: 'stop' }),
    ];
    const whole = applyEvents(emptyTranscript, log, 0);
    const joined = prependTranscript(
      applyEvents(emptyTranscript, log.slice(0, 4), 0),
      applyEvents(emptyTranscript, log.slice(4), 0),
    );
    expect(joined.items).toEqual(whole.items);
    const cards = joined.items.filter((item) => item.kind === 'tool');
    expect(cards).toEqual([
      expect.objectContaining({
        toolCallId: 'x2',
        input: { task: 'Find TODOs' },
        output: answer,
        subCalls: [expect.objectContaining({ toolCallId: 'x2/c1', input: { pattern: 'TODO' } })],
      }),
    ]);
  });
});

describe('project instructions', () => {
  const read = (runId: string, paths: string[]): AgentEvent => ({ type: 'instructions-read', run_id: runId, paths });
  const instructionLines = (state: Transcript) =>
    state.items.flatMap((item) => (item.kind === 'instructions' ? [item.paths] : []));

  it('names a file once per turn, though each run the turn’s approvals start reads it again', () => {
    const state = foldOneByOne([
      at(started(run, 'm1')),
      at(read(run, ['AGENTS.md'])),
      at({ type: 'run-finished', run_id: run, finish_reason: 'approval-pending' }),
      at(started(run2, null)),
      at(read(run2, ['AGENTS.md'])),
      at(read(run2, ['src/AGENTS.md'])),
    ]);
    expect(instructionLines(state)).toEqual([['AGENTS.md'], ['src/AGENTS.md']]);
  });

  it('names it again in the next turn, after the next prompt', () => {
    const state = foldOneByOne([
      at(started(run, 'm1')),
      at(read(run, ['AGENTS.md'])),
      at({ type: 'run-finished', run_id: run, finish_reason: 'stop' }),
      at(started(run2, 'm2')),
      at(read(run2, ['AGENTS.md'])),
    ]);
    expect(instructionLines(state)).toEqual([['AGENTS.md'], ['AGENTS.md']]);
  });
});
