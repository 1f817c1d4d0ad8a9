/**
 * `update_plan`: the agent's plan for a task of several steps, which the user sees as a checklist
 * (the UI's tool card, `bastion run`'s `[plan]` lines). It touches nothing: every call carries the
 * whole plan, replacing the one before, and its result only counts the steps.
 */
import { z } from 'zod';
import { PLAN_MAX_STEP_CHARS, PLAN_MAX_STEPS } from '@bastion/protocol';
import { tool } from './tool.js';

const planStepSchema = z.strictObject({
  step: z.string().trim().min(1).max(PLAN_MAX_STEP_CHARS),
  status: z.enum(['pending', 'in_progress', 'completed']),
});

export function createPlanTool() {
  return {
    update_plan: tool({
      description:
        'Show the user your plan for a task of several steps, as a checklist. Send the whole list each time a step starts or is done, with one step in_progress at a time. It changes nothing in the workspace.',
      inputSchema: z.strictObject({ steps: z.array(planStepSchema).min(1).max(PLAN_MAX_STEPS) }),
      execute: ({ steps }) => ({
        steps: steps.length,
        completed: steps.filter((step) => step.status === 'completed').length,
      }),
    }),
  };
}
