/**
 * Saved prompts run as slash commands: which names are Bastion's own, and what `/NAME ARGS` sends.
 * No zod here, so the web app can import it without the schemas (see image-format.ts).
 */
import type { SavedPrompt } from './api/prompts.js';

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
  'mcp',
  'help',
  'exit',
]);

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
