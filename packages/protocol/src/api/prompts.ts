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

/**
 * The names of Bastion's own slash commands, in the UI and in `bastion chat`: a saved prompt cannot
 * take one (it is listed as a problem instead), so `/help` always means Bastion's help.
 */
export const BUILT_IN_COMMAND_NAMES: ReadonlySet<string> = new Set([
  'new',
  'compact',
  'init',
  'undo',
  'rewind',
  'export',
  'model',
  'mode',
  'reasoning',
  'image',
  'plan',
  'help',
  'exit',
]);

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

/**
 * The message `/name ARGS` sends: the body with every `$ARGUMENTS` replaced by ARGS (trimmed); a
 * body without the placeholder gets ARGS after a blank line, so nothing typed is dropped.
 */
export function expandPrompt(body: string, args: string): string {
  const given = args.trim();
  if (body.includes('$ARGUMENTS')) return body.replaceAll('$ARGUMENTS', given);
  return given === '' ? body : `${body}\n\n${given}`;
}

/**
 * `/name ARGS` split into the saved prompt it names and ARGS, or undefined when `line` names none
 * (Bastion's own commands are never prompts).
 */
export function promptCommand(
  prompts: readonly SavedPrompt[],
  line: string,
): { prompt: SavedPrompt; args: string } | undefined {
  const match = /^\/([a-z0-9][a-z0-9_-]*)(?:\s+([\s\S]*))?$/.exec(line.trim());
  if (!match) return undefined;
  const prompt = prompts.find((candidate) => candidate.name === match[1]);
  return prompt === undefined ? undefined : { prompt, args: match[2] ?? '' };
}
