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
  it('makes a step of two calls alike, each checked twice before both run, two calls of two checks and a run each, newest first', () => {
    // Oldest first: A and B checked (whether to ask), checked again (as they run), run; the log pages newest first.
    const at = (second: number) => `2025-01-01T00:00:0${second}.000Z`;
    const [checkA, checkB, againA, againB] = [1, 2, 3, 4].map((second) => line('check', { at: at(second) }));
    const runA = line('command', { at: at(5) });
    const runB = line('command', { at: at(6) });
    // Calls alike cannot be told apart: each run takes the nearest checks.
    expect(groupHostAuditCalls([runB, runA, againB, againA, checkB, checkA].map((entry) => entry!))).toEqual([
      { first: againA, check: againB, enforced: runB },
      { first: checkA, check: checkB, enforced: runA },
    ]);
  });

  it('makes one call of a read the agent checked twice and ran itself, and of a call it checked twice before the host ran it', () => {
    const read = (extra: Partial<HostAuditEntry>) => line('check', { tool: 'read_file', command: null, ...extra });
    const first = read({ at: '2025-01-01T00:00:01.000Z' });
    const second = read({ at: '2025-01-01T00:00:02.000Z' });
    const checked = line('check', { at: '2025-01-01T00:00:03.000Z' });
    const again = line('check', { at: '2025-01-01T00:00:04.000Z' });
    const ran = line('command', { at: '2025-01-01T00:00:05.000Z' });
    expect(groupHostAuditCalls([ran, again, checked, second, first])).toEqual([
      { first: checked, check: again, enforced: ran },
      { first, check: second },
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

  it('makes two calls of a call the agent asked about: the asking run’s check alone, then the answering run’s checks and run', () => {
    // As the log holds it (08:01, `$ touch y` allowed on the page): the agent's question ends its run, and
    // the run that carries out the answer checks the call again, twice, before the host runs it.
    const asked = line('check', { at: '2025-01-01T00:00:01.000Z', run_id: 'run_asked' });
    const [checked, again, ran] = (['check', 'check', 'command'] as const).map((stage, index) =>
      line(stage, { at: `2025-01-01T00:00:0${index + 2}.000Z`, run_id: 'run_answered' }),
    );
    expect(groupHostAuditCalls([ran!, again!, checked!, asked])).toEqual([
      { first: checked, check: again, enforced: ran },
      { first: asked, check: asked },
    ]);
  });

  it('makes two calls of a call whose second check answered otherwise than its first (a rule added in between)', () => {
    const before = line('check', { at: '2025-01-01T00:00:01.000Z' });
    const after = line('check', { at: '2025-01-01T00:00:02.000Z', verdict: 'allow', rule_id: 'allow-touch' });
    const ran = line('command', { at: '2025-01-01T00:00:03.000Z', verdict: 'allow', rule_id: 'allow-touch' });
    expect(groupHostAuditCalls([ran, after, before])).toEqual([
      { first: after, check: after, enforced: ran },
      { first: before, check: before },
    ]);
  });

  it('shows a line from before stages were recorded on its own', () => {
    const old = line(undefined);
    expect(groupHostAuditCalls([line('check'), old])).toEqual([
      { first: line('check'), check: line('check') },
      { first: old },
    ]);
  });
});

describe('groupHostAuditCalls: the end of the host’s question', () => {
  const asked = { verdict: 'ask', rule_id: 'ask-touch' } as const;

  it('puts each answer line with the enforcement that asked and its check, in one call', () => {
    const check = line('check', { ...asked, at: '2025-01-01T00:00:01.000Z' });
    const enforced = line('command', { ...asked, at: '2025-01-01T00:00:02.000Z' });
    const answered = line('command', { ...asked, at: '2025-01-01T00:00:09.000Z', answer: { result: 'approved' } });
    expect(groupHostAuditCalls([answered, enforced, check])).toEqual([{ first: check, check, enforced, answered }]);
  });

  it('gives each answer one question when two calls alike (tool, program, session, run, rule) were asked at once, nearest first, and never a check made after the question', () => {
    // Oldest first: A and B checked twice, run (each asks), C checked twice (a later call), B answered, A answered.
    const at = (second: number) => `2025-01-01T00:00:${String(second).padStart(2, '0')}.000Z`;
    const [checkA, checkB, againA, againB] = [1, 2, 3, 4].map((second) => line('check', { ...asked, at: at(second) }));
    const runA = line('command', { ...asked, at: at(5) });
    const runB = line('command', { ...asked, at: at(6) });
    const checkC = line('check', { ...asked, at: at(7) });
    const againC = line('check', { ...asked, at: at(8) });
    const answerB = line('command', { ...asked, at: at(9), answer: { result: 'denied', channel: 'desktop' } });
    const answerA = line('command', { ...asked, at: at(10), answer: { result: 'approved', channel: 'terminal' } });
    expect(
      groupHostAuditCalls(
        [answerA, answerB, againC, checkC, runB, runA, againB, againA, checkB, checkA].map((entry) => entry!),
      ),
    ).toEqual([
      { first: againA, check: againB, enforced: runB, answered: answerA },
      { first: checkA, check: checkB, enforced: runA, answered: answerB },
      { first: checkC, check: againC },
    ]);
  });

  it('shows an answer alone while its question’s lines lie on a page not read yet, and not with another rule’s or stage’s', () => {
    const answered = line('command', { ...asked, answer: { result: 'timed-out' } });
    expect(groupHostAuditCalls([answered])).toEqual([{ first: answered, answered }]);
    const otherRule = line('command', { verdict: 'ask', rule_id: 'another' });
    const otherStage = line('write', { ...asked });
    expect(groupHostAuditCalls([answered, otherRule, otherStage])).toEqual([
      { first: answered, answered },
      { first: otherRule, enforced: otherRule },
      { first: otherStage, enforced: otherStage },
    ]);
  });
});
