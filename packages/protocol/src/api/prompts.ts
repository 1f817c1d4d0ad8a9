/**
 * Saved prompts: Markdown files the user keeps in `<home>/prompts/` (`fix-issue.md`), run as a
 * slash command (`/fix-issue 123`) in the message box and in `bastion chat`. Only the user's own
 * folder is read, never the workspace: a file the agent could write would be a way to put words in
 * the user's mouth later.
 */
import { z } from 'zod';
import { PROMPT_DESCRIPTION_MAX_CHARS } from '../limits.js';

/** A prompt's name is its file's name without `.md`: what follows the `/`. */
export const promptNameSchema = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,47}$/);

export const savedPromptSchema = z.strictObject({
  name: promptNameSchema,
  /** The front matter's `description:`, else the body's first line, cut to PROMPT_DESCRIPTION_MAX_CHARS. */
  description: z.string().max(PROMPT_DESCRIPTION_MAX_CHARS),
  /** The text sent, the front matter taken off; `$ARGUMENTS` stands for what follows the command. */
  body: z.string(),
});
export type SavedPrompt = z.infer<typeof savedPromptSchema>;

/** `GET /prompts`: the folder's prompts by name, and each file left out with why, in words. */
export const promptListResponseSchema = z.strictObject({
  folder: z.string(),
  prompts: z.array(savedPromptSchema),
  skipped: z.array(z.strictObject({ file: z.string(), reason: z.string() })),
});
export type PromptListResponse = z.infer<typeof promptListResponseSchema>;
