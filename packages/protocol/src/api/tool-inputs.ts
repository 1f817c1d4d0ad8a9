/**
 * Inputs of the agent's tools that the clients show to a person: `run_command`'s is checked by
 * the daemon's tool and read by every approval prompt, which displays the exact argv.
 */
import { z } from 'zod';

export const runCommandInputSchema = z.strictObject({
  command: z.string().min(1).describe('the program to run (no shell: pipes, globs and $VARS are not expanded)'),
  args: z.array(z.string()).describe('its arguments, one string each'),
  workdir: z.string().optional().describe('working directory, relative to the workspace root'),
  timeout_ms: z.number().int().positive().optional().describe('default 120000, at most 600000'),
  description: z.string().optional().describe('one line for the person approving: what and why'),
});
export type RunCommandInput = z.infer<typeof runCommandInputSchema>;
