import { describe, expect, it } from 'vitest';
import type { TranscriptItem } from '../transcript.js';
import { pinnedPlan, planProgress, planSteps } from './plan.js';

const user = (key: string, runId = 'r1'): TranscriptItem => ({ kind: 'user', key, messageId: key, runId, eventId: 1 });
const text = (runId: string): TranscriptItem => ({ kind: 'assistant', key: `${runId}-text`, text: 'ok', runId });
const plan = (runId: string, key: string, statuses: string[], isError = false): TranscriptItem => ({
  kind: 'tool',
  key,
  runId,
  toolCallId: key,
  toolName: 'update_plan',
  input: { steps: statuses.map((status, index) => ({ step: `step ${index + 1}`, status })) },
  ...(isError ? { isError: true, output: { code: 'TOOL_FAILED' } } : {}),
});
const runEnd = (runId: string): TranscriptItem => ({
  kind: 'run-end',
  key: `${runId}-end`,
  runId,
  outcome: 'finished',
  files: [],
});

describe('pinnedPlan', () => {
  it('is the latest run’s last plan while a step of it is not done, also after the run ended', () => {
    const items = [
      user('m1'),
      plan('r1', 'p1', ['in_progress', 'pending']),
      plan('r1', 'p2', ['completed', 'in_progress']),
      text('r1'),
      runEnd('r1'),
    ];
    expect(pinnedPlan(items)).toEqual([
      { step: 'step 1', status: 'completed' },
      { step: 'step 2', status: 'in_progress' },
    ]);
  });

  it('is nothing once every step of the last plan is done', () => {
    const items = [user('m1'), plan('r1', 'p1', ['in_progress']), plan('r1', 'p2', ['completed']), runEnd('r1')];
    expect(pinnedPlan(items)).toBeUndefined();
  });

  it('is nothing once a later run has begun, though an earlier run left its plan unfinished', () => {
    const items = [user('m1'), plan('r1', 'p1', ['in_progress']), runEnd('r1'), user('m2', 'r2'), text('r2')];
    expect(pinnedPlan(items)).toBeUndefined();
    expect(pinnedPlan(items.slice(0, 4))).toBeUndefined();
    // Before the new run starts, the last run's plan still stands.
    expect(pinnedPlan(items.slice(0, 3))).toEqual([{ step: 'step 1', status: 'in_progress' }]);
  });

  it('passes over a plan call that failed for the run’s plan before it', () => {
    const items = [user('m1'), plan('r1', 'p1', ['pending', 'pending']), plan('r1', 'p2', ['bogus'], true)];
    expect(pinnedPlan(items)?.map((step) => step.status)).toEqual(['pending', 'pending']);
  });

  it('is nothing once the run that made it was rewound', () => {
    const items: TranscriptItem[] = [user('m1'), plan('r1', 'p1', ['in_progress']), runEnd('r1')];
    const rewound: TranscriptItem = {
      kind: 'rewound',
      key: 'rw',
      runId: 'r1',
      turns: 1,
      files: false,
      restored: [],
      removed: [],
      notUndone: [],
      commands: 0,
    };
    expect(pinnedPlan([...items.map((item) => ({ ...item, rewound: true as const })), rewound])).toBeUndefined();
  });

  it('is nothing in a session without a plan', () => {
    expect(pinnedPlan([])).toBeUndefined();
    expect(pinnedPlan([user('m1'), text('r1'), runEnd('r1')])).toBeUndefined();
  });
});

describe('planSteps and planProgress', () => {
  it('read the steps of any shape of input, and count the done ones', () => {
    expect(planSteps(null)).toEqual([]);
    expect(planSteps({ steps: 'x' })).toEqual([]);
    expect(planSteps({ steps: [{ step: 3 }, { step: 'b', status: 'completed' }] })).toEqual([
      { step: '', status: '' },
      { step: 'b', status: 'completed' },
    ]);
    expect(planProgress([{ step: 'a', status: 'completed' }])).toBe('1 of 1 step done');
    expect(
      planProgress(
        planSteps({
          steps: [
            { step: 'a', status: 'pending' },
            { step: 'b', status: 'completed' },
          ],
        }),
      ),
    ).toBe('1 of 2 steps done');
  });
});
