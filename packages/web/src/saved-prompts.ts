/**
 * Saved prompts in the message box: the user's `<home>/prompts/NAME.md` files, listed after
 * Bastion's own slash commands as `/NAME`. Running one never sends it: the expansion is put in the
 * box, where the user reads it (and may edit it) before a second Enter sends it like any message
 * (SECURITY.md: the words sent in the user's name are shown first). Zod-free imports only.
 */
import type { PromptListResponse, SavedPrompt } from '@bastion/bridge';
import { BUILT_IN_COMMAND_NAMES, expandPrompt, promptCommand } from '@bastion/protocol';

/** The prompts the box offers, and the folder they were read from. */
export interface PromptList {
  folder: string;
  prompts: readonly SavedPrompt[];
}

/** What the box holds after running a saved prompt: the expansion, and the file it came from. */
export interface PromptFill {
  text: string;
  file: string;
}

/**
 * The listing as the box uses it: never a prompt named like one of Bastion's own commands (the
 * daemon already skips those; a built-in must always mean itself).
 */
export function promptListOf(answer: Pick<PromptListResponse, 'folder' | 'prompts'>): PromptList {
  return {
    folder: answer.folder,
    prompts: answer.prompts.filter((prompt) => !BUILT_IN_COMMAND_NAMES.has(prompt.name)),
  };
}

/** The prompt's file as the user would find it: `FOLDER/NAME.md`, in the folder's own separator. */
export function promptFile(folder: string, name: string): string {
  const separator = folder.includes('\\') && !folder.includes('/') ? '\\' : '/';
  const base = folder.endsWith(separator) ? folder.slice(0, -1) : folder;
  return `${base}${separator}${name}.md`;
}

/** `prompt` run with `args`: its expansion, and where it came from. */
export function fillFrom(list: PromptList, prompt: SavedPrompt, args: string): PromptFill {
  return { text: expandPrompt(prompt.body, args), file: promptFile(list.folder, prompt.name) };
}

/**
 * What Enter does with `draft` when it is `/NAME ARGS` naming a saved prompt: the fill to put in
 * the box. Undefined when it names none (a path such as `/etc/hosts is…` is sent as typed).
 */
export function fillForLine(list: PromptList, draft: string): PromptFill | undefined {
  const found = promptCommand(list.prompts, draft);
  return found === undefined ? undefined : fillFrom(list, found.prompt, found.args);
}

/**
 * Whether `draft` may name a saved prompt (`/` then a name's first character), so Enter waits for
 * the listing before deciding; anything else is sent at once.
 */
export function mayNamePrompt(draft: string): boolean {
  return /^\/[a-z0-9]/.test(draft.trim());
}
