/**
 * `<userData>/prompts/`: the user's saved prompts, one Markdown file each, read afresh on every
 * listing (so a file saved in an editor is there the next time `/` is typed). Only regular files
 * named `NAME.md` with a name a command can have are read, each up to PROMPT_MAX_BYTES, at most
 * PROMPTS_MAX_COUNT of them; every other entry is skipped with its reason in words. A missing
 * folder lists nothing.
 */
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  BUILT_IN_COMMAND_NAMES,
  PROMPT_DESCRIPTION_MAX_CHARS,
  PROMPT_MAX_BYTES,
  PROMPTS_MAX_COUNT,
  promptNameSchema,
  type PromptListResponse,
  type SavedPrompt,
} from '@bastion/protocol';

export const PROMPTS_FOLDER = 'prompts';

/** Front matter (`---` lines) at the file's start: its `description:`, and the text after it. */
function splitFrontMatter(text: string): { description: string | undefined; body: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  if (!match) return { description: undefined, body: text };
  const line = /^description:\s*(.*)$/m.exec(match[1] ?? '');
  const description = line?.[1]?.trim().replace(/^(["'])(.*)\1$/, '$2');
  return { description, body: text.slice(match[0].length) };
}

function describe(description: string | undefined, body: string): string {
  const first = body
    .split('\n')
    .map((line) => line.replace(/^#+\s*/, '').trim())
    .find((line) => line !== '');
  const text = description ?? first ?? '';
  return text.length > PROMPT_DESCRIPTION_MAX_CHARS ? `${text.slice(0, PROMPT_DESCRIPTION_MAX_CHARS - 1)}…` : text;
}

async function readPrompt(folder: string, file: string): Promise<SavedPrompt | string> {
  const name = file.slice(0, -'.md'.length);
  if (!promptNameSchema.safeParse(name).success)
    return 'a name is lowercase letters, digits, - and _ (up to 48), starting with a letter or digit';
  if (BUILT_IN_COMMAND_NAMES.has(name)) return `/${name} is one of Bastion's own commands; rename the file`;
  const path = join(folder, file);
  const stat = await lstat(path);
  if (!stat.isFile()) return 'not a regular file (a link or a folder)';
  if (stat.size > PROMPT_MAX_BYTES) return `over ${PROMPT_MAX_BYTES / 1024} KiB`;
  const bytes = await readFile(path);
  if (bytes.byteLength > PROMPT_MAX_BYTES) return `over ${PROMPT_MAX_BYTES / 1024} KiB`;
  const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  const { description, body } = splitFrontMatter(text);
  if (body.trim() === '') return 'it is empty';
  return { name, description: describe(description, body), body: body.trim() };
}

export async function listPrompts(userData: string): Promise<PromptListResponse> {
  const folder = join(userData, PROMPTS_FOLDER);
  let files: string[];
  try {
    files = (await readdir(folder)).filter((file) => file.endsWith('.md')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { folder, prompts: [], skipped: [] };
    throw error;
  }
  const prompts: SavedPrompt[] = [];
  const skipped: PromptListResponse['skipped'] = [];
  for (const file of files) {
    if (prompts.length >= PROMPTS_MAX_COUNT) {
      skipped.push({ file, reason: `only the first ${PROMPTS_MAX_COUNT} prompts are read` });
      continue;
    }
    const read = await readPrompt(folder, file).catch((error: unknown) =>
      error instanceof TypeError
        ? 'not UTF-8 text'
        : `could not be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
    if (typeof read === 'string') skipped.push({ file, reason: read });
    else prompts.push(read);
  }
  return { folder, prompts, skipped };
}
