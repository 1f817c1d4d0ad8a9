/**
 * Project instructions for the system prompt: AGENTS.md (or CLAUDE.md where a directory has no
 * AGENTS.md) from the workspace root and from every directory on the way to the files the agent
 * has worked in this session. Reads go through the same containment as the file tools (a symlink
 * out of the workspace is skipped), and are bounded per file, in total and in directories.
 * Each file is read once per run.
 */
import { dirname, join, normalize } from 'node:path';
import type { ModelMessage } from 'ai';
import {
  INSTRUCTIONS_MAX_DIRECTORIES,
  INSTRUCTIONS_MAX_FILE_BYTES,
  INSTRUCTIONS_MAX_TOTAL_CHARS,
} from '@bastion/protocol';
import { readContainedFile } from '../workspaces/file-access.js';
import { INSTRUCTION_FILE_NAMES } from '../workspaces/instruction-files.js';
import type { WorkspaceRoots } from '../workspaces/workspace-roots.js';
import type { InstructionFile } from './system-prompt.js';

/** Tools whose `path` input names a directory rather than a file. */
const DIRECTORY_TOOLS: ReadonlySet<string> = new Set(['list_dir', 'search', 'find_files']);

/** The workspace-relative directory a tool call worked in, if its input names one. */
function directoryOf(toolName: string, input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const { path, workdir } = input as { path?: unknown; workdir?: unknown };
  const named = typeof path === 'string' ? path : typeof workdir === 'string' ? workdir : undefined;
  if (named === undefined) return undefined;
  const clean = normalize(named);
  if (clean.startsWith('..') || clean.startsWith('/')) return undefined;
  return DIRECTORY_TOOLS.has(toolName) || named === workdir ? clean : dirname(clean);
}

/** Every directory from the root down to each one the session's tool calls worked in: the root first, shallow before deep. */
export function workedDirectories(messages: readonly ModelMessage[]): string[] {
  const seen = new Set<string>(['.']);
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-call') continue;
      const directory = directoryOf(part.toolName, part.input);
      if (directory === undefined || directory === '.') continue;
      const segments = directory.split('/').filter((segment) => segment.length > 0 && segment !== '.');
      for (let depth = 1; depth <= segments.length; depth++) seen.add(segments.slice(0, depth).join('/'));
    }
  }
  const depth = (directory: string) => (directory === '.' ? 0 : directory.split('/').length);
  return [...seen].sort((a, b) => depth(a) - depth(b)).slice(0, INSTRUCTIONS_MAX_DIRECTORIES);
}

export class ProjectInstructions {
  readonly #roots: WorkspaceRoots;
  readonly #workspace: string | null;
  /** Per directory: its file, or null when it has none (or none that may be read). */
  readonly #cache = new Map<string, InstructionFile | null>();

  constructor(roots: WorkspaceRoots, workspace: string | null) {
    this.#roots = roots;
    this.#workspace = workspace;
  }

  #read(directory: string): InstructionFile | null {
    if (this.#workspace === null) return null;
    for (const name of INSTRUCTION_FILE_NAMES) {
      const relative = directory === '.' ? name : join(directory, name);
      try {
        const target = this.#roots.resolve(this.#workspace, relative);
        if (!target.exists) continue;
        const read = readContainedFile(target, INSTRUCTIONS_MAX_FILE_BYTES);
        if (read.content.includes(0)) return null;
        return { path: relative, text: read.content.toString('utf8'), truncated: read.truncated };
      } catch {
        // outside the workspace, not a file, unreadable: no instructions from here
        return null;
      }
    }
    return null;
  }

  /** The files for these directories, in order, within INSTRUCTIONS_MAX_TOTAL_CHARS (later ones are left out). */
  for(directories: readonly string[]): InstructionFile[] {
    const files: InstructionFile[] = [];
    let total = 0;
    for (const directory of directories) {
      let file = this.#cache.get(directory);
      if (file === undefined) {
        file = this.#read(directory);
        this.#cache.set(directory, file);
      }
      if (file === null) continue;
      if (total + file.text.length > INSTRUCTIONS_MAX_TOTAL_CHARS) break;
      total += file.text.length;
      files.push(file);
    }
    return files;
  }
}
