/**
 * Inputs of the agent's tools that the clients show to a person: `run_command`'s is checked by
 * the daemon's tool and read by every approval prompt, which displays the exact argv.
 */
import { z } from 'zod';
import { EXPLORE_TASK_MAX_CHARS } from '../limits.js';

export const runCommandInputSchema = z.strictObject({
  command: z.string().min(1).describe('the program to run (no shell: pipes, globs and $VARS are not expanded)'),
  args: z.array(z.string()).describe('its arguments, one string each'),
  workdir: z.string().optional().describe('working directory, relative to the workspace root'),
  timeout_ms: z.number().int().positive().optional().describe('default 120000, at most 600000'),
  description: z.string().optional().describe('one line for the person approving: what and why'),
});
export type RunCommandInput = z.infer<typeof runCommandInputSchema>;

/**
 * `explore`: a read-only question handed to an explorer, a second agent loop with a fresh context
 * of its own and only read_file, list_dir, search and find_files (packages/daemon/src/agent/explore-tool.ts).
 */
export const exploreInputSchema = z.strictObject({
  task: z
    .string()
    .trim()
    .min(1)
    .max(EXPLORE_TASK_MAX_CHARS)
    .describe('what to find out and what to report back; the explorer sees nothing of this conversation but this text'),
});
export type ExploreInput = z.infer<typeof exploreInputSchema>;

/** What an `explore` call answers when the explorer finished (a refusal is `{ ok: false, code, message }`). */
export interface ExploreOutput {
  /** The explorer's findings, cut to EXPLORE_ANSWER_MAX_CHARS (`truncated`). */
  answer: string;
  truncated: boolean;
  /** Model steps it took and tool calls it made. */
  steps: number;
  tool_calls: number;
  /** `budget`: it answered early, its step or context budget spent. */
  ended: 'answered' | 'budget';
}
