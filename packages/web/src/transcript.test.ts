import { describe, expect, it } from 'vitest';
import type { AgentStreamEvent } from '@bastion/bridge';
import { applyEvent, emptyTranscript, type Transcript } from './transcript.js';

const run = 'run_aaaaaaaa';
const events: AgentStreamEvent[] = [
  {
    id: 1,
    event: {
      type: 'run-started',
      run_id: run,
      session_id: 'ses_aaaaaaaa',
      message_id: 'm1',
      provider: 'demo',
      model: 'demo',
    },
  },
  { id: 2, event: { type: 'text-delta', run_id: run, text: 'Run' } },
  { id: 3, event: { type: 'text-delta', run_id: run, text: 'ning' } },
  {
    id: 4,
    event: {
      type: 'tool-call',
      run_id: run,
      tool_call_id: 't1',
      tool_name: 'run_command',
      input: { command: 'touch' },
    },
  },
  {
    id: 5,
    event: {
      type: 'tool-approval-request',
      run_id: run,
      approval_id: 'a1',
      tool_call_id: 't1',
      tool_name: 'run_command',
      input: { command: 'touch' },
    },
  },
  { id: 6, event: { type: 'run-finished', run_id: run, finish_reason: 'approval-pending' } },
];

function fold(list: AgentStreamEvent[], start: Transcript = emptyTranscript): Transcript {
  return list.reduce((state, event) => applyEvent(state, event, new Map([['m1', 'touch x']])), start);
}

describe('transcript fold', () => {
  it('joins text deltas, attaches the approval to its tool card and exposes it as pending', () => {
    const state = fold(events);
    expect(state.items.map((item) => item.kind)).toEqual(['user', 'assistant', 'tool']);
    expect(state.items[0]).toMatchObject({ text: 'touch x' });
    expect(state.items[1]).toMatchObject({ text: 'Running' });
    expect(state.pending).toMatchObject({ toolCallId: 't1', approval: { approvalId: 'a1', state: 'pending' } });
    expect(state.running).toBe(false);
    expect(state.lastEventId).toBe(6);
  });

  it('ignores events replayed after a reconnect', () => {
    const once = fold(events);
    expect(fold(events, once)).toBe(once);
  });

  it('clears the pending approval when its result arrives', () => {
    const state = fold([
      ...events,
      {
        id: 7,
        event: {
          type: 'run-started',
          run_id: 'run_bbbbbbbb',
          session_id: 'ses_aaaaaaaa',
          message_id: null,
          provider: 'demo',
          model: 'demo',
        },
      },
      {
        id: 8,
        event: {
          type: 'tool-result',
          run_id: 'run_bbbbbbbb',
          tool_call_id: 't1',
          tool_name: 'run_command',
          output: { exit_code: 0 },
          is_error: false,
        },
      },
    ]);
    expect(state.pending).toBeUndefined();
    expect(state.items.filter((item) => item.kind === 'tool')).toHaveLength(1);
    expect(state.running).toBe(true);
  });
});
