/**
 * Daemon HTTP DTOs of `POST /agent/rewind`: take a session back to before one of its prompts. That
 * prompt and every turn after it leave what the model is sent from then on (the transcript keeps
 * them, marked rewound); with `files`, every file those turns wrote with write_file/edit_file is
 * put back as it was before them, newest run first, or nothing is done when one changed since.
 * `dry_run` answers with the same plan and touches nothing, for a confirmation step.
 */
import { z } from 'zod';
import { runIdSchema } from './agent.js';
import { mcpPromptOriginSchema } from './mcp.js';
import { sessionIdSchema } from './sessions.js';
import { undoFileSchema } from './undo.js';

export const agentRewindRequestSchema = z.strictObject({
  session_id: sessionIdSchema,
  /** The run whose prompt the session goes back to before; absent: the latest prompt still in the conversation. */
  run_id: runIdSchema.optional(),
  /** Also put back the files the rewound turns wrote. */
  files: z.boolean(),
  dry_run: z.boolean().optional(),
});
export type AgentRewindRequest = z.infer<typeof agentRewindRequestSchema>;

export const agentRewindResponseSchema = z.strictObject({
  run_id: runIdSchema,
  dry_run: z.boolean(),
  /** Prompts that leave the conversation: this run's and each later one's. */
  turns: z.number().int().positive(),
  /** The text of this run's prompt, for the user to edit and send again. */
  prompt: z.string(),
  /**
   * The MCP server's prompt that text came from, when it did: a client that cannot tell the
   * server's characters from the person's once edited (a terminal line) does not put it back as the
   * person's (an `@SERVER:URI` word in it would attach a resource nobody chose).
   */
  mcp_prompt: mcpPromptOriginSchema.optional(),
  /**
   * With `files`: each file the rewound turns wrote, once, with what putting it back does (the
   * state before the earliest of them that wrote it); empty without `files`.
   */
  files: z.array(undoFileSchema),
  /** Commands the rewound turns ran: what they changed is never put back. */
  commands: z.number().int().nonnegative(),
});
export type AgentRewindResponse = z.infer<typeof agentRewindResponseSchema>;
