import { describe, expect, it } from 'vitest';
import type { HostAuditEntry } from '@bastion/protocol';
import { groupHostAuditCalls } from './host-audit-calls.js';

const line = (stage: HostAuditEntry['stage'], extra: Partial<HostAuditEntry> = {}): HostAuditEntry => ({
  at: '2025-01-01T00:00:00.000Z',
  tool: 'run_command',
  command: 'touch',
  verdict: 'none',
  rule_id: null,
  ...(stage === undefined ? {} : { stage }),
  session_id: 'ses_a',
  run_id: 'run_a',
  ...extra,
});

describe('groupHostAuditCalls (the host audit log as calls)', () => {
  it('pairs each enforcement with its own check, newest first, when checks of a step come before its runs', () => {
    // Oldest first: check A, check B, run A, run B; the log pages newest first.
    const checkA = line('check', { at: '2025-01-01T00:00:01.000Z' });
    const checkB = line('check', { at: '2025-01-01T00:00:02.000Z' });
    const runA = line('command', { at: '2025-01-01T00:00:03.000Z' });
    const runB = line('command', { at: '2025-01-01T00:00:04.000Z' });
    expect(groupHostAuditCalls([runB, runA, checkB, checkA])).toEqual([
      { first: checkB, check: checkB, enforced: runB },
      { first: checkA, check: checkA, enforced: runA },
    ]);
  });

  it('keeps a check alone when another tool, program, session or run was enforced, or the check refused the call', () => {
    const enforced = line('command');
    for (const other of [
      line('check', { tool: 'write_file', command: null }),
      line('check', { command: 'rm' }),
      line('check', { session_id: 'ses_b' }),
      line('check', { run_id: 'run_b' }),
      line('check', { verdict: 'deny', rule_id: 'no-touch' }),
    ]) {
      expect(groupHostAuditCalls([enforced, other])).toEqual([
        { first: enforced, enforced },
        { first: other, check: other },
      ]);
    }
  });

  it('shows a line from before stages were recorded on its own', () => {
    const old = line(undefined);
    expect(groupHostAuditCalls([line('check'), old])).toEqual([
      { first: line('check'), check: line('check') },
      { first: old },
    ]);
  });
});
