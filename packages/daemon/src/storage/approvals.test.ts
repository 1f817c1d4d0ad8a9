import { describe, expect, it } from 'vitest';
import { PAGE_MAX_LIMIT } from '@bastion/protocol';
import { newSession, useTempStore } from '../../test/support/temp-store.js';
import type { SessionStore } from './session-store.js';

let store: SessionStore;
useTempStore((opened) => ({ store } = opened));

describe('approvals', () => {
  function pending() {
    const session = newSession(store);
    const { runId } = store.runs.start(session.id, { provider: 'demo', model: 'demo' });
    store.approvals.recordRequest({
      sessionId: session.id,
      runId,
      approvalId: 'ap1',
      toolCallId: 'call1',
      toolName: 'run_command',
      input: {},
    });
    return session;
  }

  it('flips a pending approval once, appending the answer to the transcript, and names the run that asked', () => {
    const session = pending();
    const runId = store.sessions.get(session.id)?.last_run?.id;
    expect(runId).toBeDefined();
    expect(
      store.approvals.answer({ sessionId: session.id, approvalId: 'ap1', toolCallId: 'call1', approved: true }),
    ).toEqual({ ok: true, toolName: 'run_command', runId });
    expect(store.approvals.hasPending(session.id)).toBe(false);
    expect(store.transcript.modelContext(session.id, PAGE_MAX_LIMIT).messages.at(-1)).toEqual({
      role: 'tool',
      content: [{ type: 'tool-approval-response', approvalId: 'ap1', approved: true }],
    });
    expect(
      store.approvals.answer({ sessionId: session.id, approvalId: 'ap1', toolCallId: 'call1', approved: false }),
    ).toEqual({
      ok: false,
      refusal: 'already-answered',
    });
  });

  it('a session reads approval_pending while an approval waits (get and list), and not once it is answered or in another session', () => {
    const session = pending();
    const other = newSession(store);
    expect(store.sessions.get(session.id)?.approval_pending).toBe(true);
    expect(store.sessions.get(other.id)?.approval_pending).toBe(false);
    const listed = store.sessions.list({}).items;
    expect(listed.find((item) => item.id === session.id)?.approval_pending).toBe(true);
    expect(listed.find((item) => item.id === other.id)?.approval_pending).toBe(false);
    store.approvals.answer({ sessionId: session.id, approvalId: 'ap1', toolCallId: 'call1', approved: false });
    expect(store.sessions.get(session.id)?.approval_pending).toBe(false);
  });

  it('refuses unknown ids, other sessions, mismatched tool calls and cancelled approvals, changing nothing', () => {
    const session = pending();
    const other = newSession(store);
    const before = store.transcript.modelContext(session.id, PAGE_MAX_LIMIT).messages.length;
    expect(
      store.approvals.answer({ sessionId: session.id, approvalId: 'nope', toolCallId: 'call1', approved: true }),
    ).toMatchObject({
      refusal: 'unknown-approval',
    });
    expect(
      store.approvals.answer({ sessionId: other.id, approvalId: 'ap1', toolCallId: 'call1', approved: true }),
    ).toMatchObject({
      refusal: 'other-session',
    });
    expect(
      store.approvals.answer({ sessionId: session.id, approvalId: 'ap1', toolCallId: 'call2', approved: true }),
    ).toMatchObject({
      refusal: 'tool-call-mismatch',
    });
    expect(store.approvals.hasPending(session.id)).toBe(true);
    expect(store.transcript.modelContext(session.id, PAGE_MAX_LIMIT).messages).toHaveLength(before);
    store.approvals.cancelPending(session.id);
    expect(
      store.approvals.answer({ sessionId: session.id, approvalId: 'ap1', toolCallId: 'call1', approved: true }),
    ).toMatchObject({
      refusal: 'cancelled',
    });
  });
});
