/**
 * The agent's plan (`update_plan`): the checklist its tool card shows, and the bar above the
 * message box that keeps the latest plan of the latest run in sight while the transcript scrolls.
 */
import { useState } from 'react';
import type { TranscriptItem } from '../transcript.js';

export interface PlanStep {
  step: string;
  status: string;
}

/** How a plan step of each status is marked, and what a screen reader says for the mark. */
const PLAN_STATUS: Readonly<Record<string, { mark: string; label: string }>> = {
  completed: { mark: '✓', label: 'done' },
  in_progress: { mark: '▸', label: 'in progress' },
  pending: { mark: '○', label: 'to do' },
};

const statusOf = (step: PlanStep) => PLAN_STATUS[step.status] ?? { mark: '?', label: step.status };

/** The steps of an `update_plan` call's input, as far as they have the expected shape. */
export function planSteps(input: unknown): PlanStep[] {
  const steps = (input as { steps?: unknown } | null | undefined)?.steps;
  if (!Array.isArray(steps)) return [];
  return steps.map((step: unknown) => {
    const fields = (typeof step === 'object' && step !== null ? step : {}) as { step?: unknown; status?: unknown };
    return {
      step: typeof fields.step === 'string' ? fields.step : '',
      status: typeof fields.status === 'string' ? fields.status : '',
    };
  });
}

/** "2 of 5 steps done". */
export function planProgress(steps: readonly PlanStep[]): string {
  const done = steps.filter((step) => step.status === 'completed').length;
  return `${done} of ${steps.length} ${steps.length === 1 ? 'step' : 'steps'} done`;
}

/** The plan as a checklist. */
export function PlanChecklist({ steps }: { steps: readonly PlanStep[] }) {
  return (
    <ol className="plan" aria-label="Plan">
      {steps.map((step, index) => {
        const status = statusOf(step);
        return (
          <li key={index} className={`plan-step plan-${step.status}`}>
            <span className="plan-mark" aria-hidden="true">
              {status.mark}
            </span>
            <span className="visually-hidden">{status.label}: </span>
            {step.step}
          </li>
        );
      })}
    </ol>
  );
}

/**
 * The plan to keep in sight: the last `update_plan` call that succeeded (or is still running),
 * when the latest run made it and some step is not done yet. A plan an earlier run left
 * unfinished is history once a new run starts, and stays in its card only.
 */
export function pinnedPlan(items: readonly TranscriptItem[]): PlanStep[] | undefined {
  let latestRun: string | undefined;
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const item = items[index] as TranscriptItem;
    if (!('runId' in item)) continue;
    // The latest turn was rewound: its plan is no longer the agent's.
    if (item.kind === 'rewound' || item.rewound === true) return undefined;
    latestRun ??= item.runId;
    if (item.runId !== latestRun) return undefined;
    if (item.kind !== 'tool' || item.toolName !== 'update_plan' || item.isError === true) continue;
    const steps = planSteps(item.input);
    return steps.some((step) => step.status !== 'completed') ? steps : undefined;
  }
  return undefined;
}

/**
 * The latest plan above the message box: one line (how far it is, the step in progress, or the
 * next one) that opens into the whole checklist. Opened, it scrolls within a bounded height, so
 * the message box stays where it is.
 */
export function PlanBar({ steps }: { steps: readonly PlanStep[] }) {
  const [open, setOpen] = useState(false);
  const current =
    steps.find((step) => step.status === 'in_progress') ?? steps.find((step) => step.status !== 'completed');
  return (
    <section className="plan-bar" aria-label="The agent’s plan" data-testid="plan-bar">
      <button type="button" className="plan-bar-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="plan-bar-progress">Plan · {planProgress(steps)}</span>
        {!open && current !== undefined && (
          <span className="plan-bar-current">
            <span aria-hidden="true">{statusOf(current).mark} </span>
            <span className="visually-hidden">{statusOf(current).label}: </span>
            {current.step}
          </span>
        )}
        <span className="plan-bar-chevron" aria-hidden="true">
          {open ? '▾' : '▴'}
        </span>
      </button>
      {open && (
        <div className="plan-bar-list">
          <PlanChecklist steps={steps} />
        </div>
      )}
    </section>
  );
}
