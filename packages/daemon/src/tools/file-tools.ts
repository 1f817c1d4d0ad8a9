/**
 * The agent's file tools (SEC-004): read_file, list_dir, search, find_files, write_file, edit_file.
 * All are bound to the session's granted workspace and go through the same containment code as the
 * `/workspaces/*` routes; a refusal reaches the model as `{ ok: false, code, message }` with a
 * fixed message and never the resolved path. Writes re-read the session's mode from the store on
 * every call, so a mode change (or a deleted session) takes effect immediately. A write to a
 * project instructions file (AGENTS.md, CLAUDE.md) waits for a human's approval in every mode.
 * Each write's result carries a bounded unified diff of what it changed, and goes through the
 * run's undo journal (src/undo/), which keeps the file's earlier bytes before the run's first change.
 * Writes are performed by the host (workspaces/workspace-writer.ts), which refuses protected paths
 * (FS_PROTECTED) and what its policy rules deny (POLICY_DENIED) whatever this process decided, and
 * asks the person itself where a rule says `ask` (so the guard shows no prompt of its own then).
 */
import { isUtf8 } from 'node:buffer';
import { tool } from './tool.js';
import { z } from 'zod';
import {
  permissionModeSchema,
  READ_FILE_MAX_LINE,
  scratchDirOf,
  SEARCH_MAX_GLOB_CHARS,
  SEARCH_MAX_PATTERN_CHARS,
  TOOL_MAX_OUTPUT_CHARS,
  WORKSPACE_MAX_PATH_CHARS,
  WORKSPACE_MAX_WRITE_BYTES,
} from '@bastion/protocol';
import { DaemonError, isDaemonError } from '../errors.js';
import type { ContainedPath } from '../workspaces/containment.js';
import { fingerprintOf, listContainedDir, readContainedFile, readContainedLines } from '../workspaces/file-access.js';
import { isInstructionFilePath } from '../workspaces/instruction-files.js';
import { workspaceError } from '../workspaces/workspace-error.js';
import type { WorkspaceWriteCall } from '../workspaces/workspace-writer.js';
import { boundedDiff } from './edit-diff.js';
import type { ToolFactory } from '../agent/run-manager.js';
import { withHostAsks } from '../policy/tool-guard.js';
import type { CommandClient } from '../shell/command-client.js';
import {
  hostRipgrep,
  ripgrepArgs,
  ripgrepFilesArgs,
  ripgrepInDaemon,
  RipgrepMatches,
  RipgrepPaths,
  type RipgrepRunner,
} from './ripgrep-search.js';
import type { ToolContext, ToolRefusal } from './tool-context.js';

const pathInput = z.string().min(1).max(WORKSPACE_MAX_PATH_CHARS).describe('path relative to the workspace root');

/** What read_file and list_dir add to a refusal for a path of the other kind: the tool that reads it. */
const READ_FILE_HINTS = { FS_NOT_A_FILE: 'a folder is listed with list_dir' };
const LIST_DIR_HINTS = { FS_NOT_A_DIRECTORY: 'a file is read with read_file' };
const WRITE_HINTS = {
  FS_TOO_LARGE: `write_file and edit_file write files of up to ${WORKSPACE_MAX_WRITE_BYTES / 1024} KiB: change a larger one with run_command (sed -i, a script), or write it in parts`,
};

/** `hints`: a fixed line added to the message of a refusal with that code (which tool would do instead). */
function refusal(error: unknown, hints: Partial<Record<string, string>> = {}): ToolRefusal {
  if (!isDaemonError(error)) return { ok: false, code: 'TOOL_FAILED', message: 'the tool failed' };
  const hint = hints[error.code];
  return { ok: false, code: error.code, message: hint === undefined ? error.message : `${error.message}; ${hint}` };
}

async function guarded<T>(
  run: () => T | Promise<T>,
  hints?: Partial<Record<string, string>>,
): Promise<T | ToolRefusal> {
  try {
    return await run();
  } catch (error) {
    return refusal(error, hints);
  }
}

function resolveIn(context: ToolContext, path: string): ContainedPath {
  if (context.workspace === null) throw workspaceError('FS_NO_WORKSPACE');
  return context.roots.resolve(context.workspace, path);
}

/** Every write re-validates the session's current mode; read-only, an unknown mode or a gone session fails closed. */
function assertWriteAllowed(context: ToolContext): void {
  const mode = context.store.sessions.currentMode(context.sessionId);
  if (mode === 'read-only')
    throw new DaemonError('MODE_READ_ONLY', 'the session is read-only: files cannot be written');
  if (mode === undefined || !permissionModeSchema.safeParse(mode).success) {
    throw new DaemonError('MODE_REFUSED', 'the session does not allow writes');
  }
}

/**
 * Whether a write of `path` waits for a human: every write when the session asks before writes,
 * and an instructions file (by the name asked or by where it really lands) in every mode. A
 * read-only session refuses the write itself, and a path that does not resolve is refused by the
 * write, so neither asks.
 */
export function writeNeedsApproval(context: ToolContext, path: string): boolean {
  if (context.store.sessions.currentMode(context.sessionId) === 'read-only') return false;
  if (context.store.sessions.asksBeforeWrites(context.sessionId) || isInstructionFilePath(path)) return true;
  try {
    return isInstructionFilePath(resolveIn(context, path).relative);
  } catch {
    return false;
  }
}

/** The file's text before a write: null when there is none, undefined when it is binary or too large to show. */
function previousText(target: ContainedPath): string | null | undefined {
  if (!target.exists) return null;
  try {
    const read = readContainedFile(target);
    if (read.truncated || read.content.includes(0)) return undefined;
    return read.content.toString('utf8');
  } catch {
    return undefined;
  }
}

/**
 * The tools' write, performed by the host (which refuses protected paths and what its rules deny),
 * through the run's undo journal (which keeps the earlier bytes first) when there is one. When the
 * person was asked about this call with its diff, the host writes only over the file that diff
 * was worked out against.
 */
function writeUndoably(
  context: ToolContext,
  call: { tool: WorkspaceWriteCall['tool']; toolCallId: string },
  target: ContainedPath,
  bytes: Buffer,
) {
  const shownSha256 = context.store.approvals.shown(context.sessionId, call.toolCallId);
  const write = () =>
    context.roots.writer.write(target, bytes, {
      tool: call.tool,
      sessionId: context.sessionId,
      runId: context.runId,
      shownSha256,
    });
  return context.changes ? context.changes.write(target, bytes, write) : write();
}

function clipText(text: string): { text: string; clipped: boolean } {
  return text.length > TOOL_MAX_OUTPUT_CHARS
    ? { text: text.slice(0, TOOL_MAX_OUTPUT_CHARS), clipped: true }
    : { text, clipped: false };
}

const lineNumber = z.number().int().min(1).max(READ_FILE_MAX_LINE);

const readFileInput = z
  .strictObject({
    path: pathInput,
    start_line: lineNumber.optional().describe('first line to read (1-based); default 1'),
    end_line: lineNumber.optional().describe('last line to read, included; default the last line'),
  })
  .refine(
    (input) => input.start_line === undefined || input.end_line === undefined || input.end_line >= input.start_line,
    {
      message: 'end_line must be at least start_line',
      path: ['end_line'],
    },
  );

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count += 1;
  return count;
}

/** ASCII whitespace, as a run: what `looseText` makes one space. */
const WHITESPACE_RUN = /[ \t\n\v\f\r]+/g;

/** `text` with each run of ASCII whitespace as one space and none at either end, as a reader sees it. */
const looseText = (text: string): string => text.replace(WHITESPACE_RUN, ' ').trim();

/** The line (from 1) of `text` that holds the character at `at` in its looseText. */
function lineOfLoose(text: string, at: number): number {
  let line = 1;
  let loose = -1;
  let space = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 32 || (code >= 9 && code <= 13)) {
      if (code === 10) line += 1;
      space = loose >= 0;
      continue;
    }
    loose += space ? 2 : 1;
    space = false;
    if (loose >= at) return line;
  }
  return line;
}

/**
 * Why `old_string` does not occur, when it nearly does: the file's lines end in CRLF where its
 * end in LF, or it occurs with other whitespace (indentation, tabs, line breaks), from the line
 * named. The model's usual slip, said so that it copies the text again rather than guessing.
 */
function noMatchMessage(text: string, old: string): string {
  const none = 'old_string does not occur in the file';
  if (text.includes('\r\n') && !old.includes('\r\n') && text.includes(old.replaceAll('\n', '\r\n'))) {
    return `${none}: its lines end in \\r\\n, and old_string's in \\n`;
  }
  const wanted = looseText(old);
  const at = wanted === '' ? -1 : looseText(text).indexOf(wanted);
  if (at === -1) return none;
  return `${none} as written, but does with other whitespace from line ${lineOfLoose(text, at)}: copy it exactly as read_file shows it, indentation included`;
}

interface EditInput {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

/** The file's bytes and text now and as edit_file would leave it, or the tool's refusal. */
function editedText(
  target: ContainedPath,
  edit: EditInput,
): { bytes: Buffer; text: string; updated: string; count: number } {
  const read = readContainedFile(target);
  if (read.truncated) throw workspaceError('FS_TOO_LARGE');
  // The edit is made on the decoded text and written back as UTF-8: bytes that are not UTF-8
  // (another encoding, a binary file) would come back as U+FFFD on every line, not only the edited one.
  if (read.content.includes(0) || !isUtf8(read.content))
    throw new DaemonError(
      'EDIT_NOT_TEXT',
      'edit_file changes UTF-8 text, and this file is not: it holds a NUL byte or bytes that are not UTF-8 (a binary file, or another encoding such as Latin-1), which an edit would rewrite; leave it, or tell the user',
    );
  const text = read.content.toString('utf8');
  const count = countOccurrences(text, edit.old_string);
  if (count === 0) throw new DaemonError('EDIT_NO_MATCH', noMatchMessage(text, edit.old_string));
  if (count > 1 && edit.replace_all !== true)
    throw new DaemonError(
      'EDIT_AMBIGUOUS',
      'old_string occurs more than once; include more context, or set replace_all to replace every one',
    );
  const at = text.indexOf(edit.old_string);
  const updated =
    edit.replace_all === true
      ? text.split(edit.old_string).join(edit.new_string)
      : `${text.slice(0, at)}${edit.new_string}${text.slice(at + edit.old_string.length)}`;
  return { bytes: read.content, text, updated, count };
}

/** What a question about a write shows: its diff, and the file it was worked out against (sha256, null for none). */
export interface PendingWrite {
  diff: string;
  shownSha256: string | null;
}

/**
 * The diff a write_file or edit_file call waiting for an answer (its approval, or the host's own
 * question) would make to the file as it is now, worked out as the tool itself does (boundedDiff,
 * the same containment), for the question to show what it allows: a write over an existing file
 * as the lines it replaces, not as a new file. Undefined for any other tool, an input the tool
 * would refuse, or a file it cannot read as text. The file may still change before the answer:
 * `shownSha256` lets the host write only over the file the diff was worked out against.
 */
export function pendingWrite(context: ToolContext, toolName: string, input: unknown): PendingWrite | undefined {
  if (toolName !== 'write_file' && toolName !== 'edit_file') return undefined;
  if (typeof input !== 'object' || input === null) return undefined;
  const fields = input as Record<string, unknown>;
  if (typeof fields.path !== 'string') return undefined;
  try {
    const target = resolveIn(context, fields.path);
    if (toolName === 'write_file' && typeof fields.content === 'string') {
      if (!target.exists) return { diff: boundedDiff(target.requested, null, fields.content), shownSha256: null };
      const read = readContainedFile(target);
      if (read.truncated || read.content.includes(0)) return undefined;
      return {
        diff: boundedDiff(target.requested, read.content.toString('utf8'), fields.content),
        shownSha256: fingerprintOf(read.content).sha256,
      };
    }
    if (
      toolName === 'edit_file' &&
      typeof fields.old_string === 'string' &&
      fields.old_string !== '' &&
      typeof fields.new_string === 'string'
    ) {
      const { bytes, text, updated } = editedText(target, {
        old_string: fields.old_string,
        new_string: fields.new_string,
        replace_all: fields.replace_all === true,
      });
      if (text.includes('\0')) return undefined;
      return { diff: boundedDiff(target.requested, text, updated), shownSha256: fingerprintOf(bytes).sha256 };
    }
  } catch {
    // Out of the workspace, unreadable, or an edit that would not apply: the tool will say so.
  }
  return undefined;
}

/** `search` and `find_files`, run by `runner`: in the daemon, or by the host as a command. */
function createRipgrepTools(context: ToolContext, runner: RipgrepRunner) {
  return { search: createSearchTool(context, runner), find_files: createFindFilesTool(context, runner) };
}

function createFindFilesTool(context: ToolContext, runner: RipgrepRunner) {
  return tool({
    description:
      'Find files in the workspace by a glob on their path from the workspace root, e.g. *.test.ts or src/**/*.tsx (a glob without / matches at any depth); path narrows where to look. Hidden files, and in a git repository the ones git ignores, are left out.',
    inputSchema: z.strictObject({
      pattern: z.string().min(1).max(SEARCH_MAX_GLOB_CHARS).describe('the glob the file paths must match'),
      path: pathInput.default('.'),
    }),
    execute: ({ pattern, path }, { abortSignal }) =>
      guarded(async () => {
        const target = resolveIn(context, path);
        if (!target.exists) throw workspaceError('FS_NOT_FOUND');
        const args = ripgrepFilesArgs({ glob: pattern, target: target.relative || '.' });
        return runner(target.root, args, new RipgrepPaths(), abortSignal);
      }),
  });
}

function createSearchTool(context: ToolContext, runner: RipgrepRunner) {
  return tool({
    description:
      'Search file contents in the workspace with a regular expression (ripgrep). Files over 64 MiB, binary files and those git ignores are skipped.',
    inputSchema: z.strictObject({
      pattern: z.string().min(1).max(SEARCH_MAX_PATTERN_CHARS),
      path: pathInput.default('.'),
      glob: z
        .string()
        .min(1)
        .max(SEARCH_MAX_GLOB_CHARS)
        .optional()
        .describe('only files matching this glob, e.g. *.ts'),
      fixed_strings: z.boolean().optional().describe('treat the pattern as a literal string'),
    }),
    execute: ({ pattern, path, glob, fixed_strings }, { abortSignal }) =>
      guarded(async () => {
        const target = resolveIn(context, path);
        if (!target.exists) throw workspaceError('FS_NOT_FOUND');
        const args = ripgrepArgs({ pattern, target: target.relative || '.', glob, fixed: fixed_strings });
        return runner(target.root, args, new RipgrepMatches(), abortSignal);
      }),
  });
}

/**
 * Where the host runs commands, `search` and `find_files` are among them, under the per-command
 * kernel profile (ripgrep-search.ts says why); main.ts registers this factory then, and its tools
 * replace the in-daemon ones.
 */
export function hostSearchTools(client: CommandClient, userData: string): ToolFactory {
  return (context) => createRipgrepTools(context, hostRipgrep(client, scratchDirOf(userData, context.sessionId)));
}

export function createFileTools(context: ToolContext) {
  return {
    read_file: tool({
      description:
        'Read a UTF-8 text file in the workspace. A large file comes as its first lines (truncated: true, end_line the last one given, total_lines how many it has); start_line and end_line read just those lines, from anywhere in its first 64 MiB.',
      inputSchema: readFileInput,
      execute: ({ path, start_line, end_line }) =>
        guarded(() => {
          const target = resolveIn(context, path);
          if (start_line === undefined && end_line === undefined) {
            const read = readContainedFile(target);
            if (read.content.includes(0))
              return { path, size: read.size, truncated: read.truncated, binary: true, content: '' };
            const { text, clipped } = clipText(read.content.toString('utf8'));
            if (!read.truncated && !clipped)
              return { path, size: read.size, truncated: false, binary: false, content: text };
            // Too long to give whole: its first lines as a range from line 1, which says where the rest begins.
          }
          // At most as many bytes as the model may be handed characters, so no line range is clipped.
          const range = readContainedLines(
            target,
            { start: start_line ?? 1, end: end_line },
            { maxBytes: TOOL_MAX_OUTPUT_CHARS },
          );
          if (range.content.includes(0))
            return { path, size: range.size, truncated: range.truncated, binary: true, content: '' };
          return {
            path,
            size: range.size,
            truncated: range.truncated,
            binary: false,
            start_line: range.start,
            end_line: range.end,
            ...(range.totalLines === undefined ? {} : { total_lines: range.totalLines }),
            content: range.content.toString('utf8'),
          };
        }, READ_FILE_HINTS),
    }),
    list_dir: tool({
      description: 'List the entries of a directory in the workspace.',
      inputSchema: z.strictObject({ path: pathInput.default('.') }),
      execute: ({ path }) => guarded(() => ({ path, ...listContainedDir(resolveIn(context, path)) }), LIST_DIR_HINTS),
    }),
    ...createRipgrepTools(context, ripgrepInDaemon),
    // The host performs the write and puts a policy `ask` to the person itself (host workspace-writes.ts).
    write_file: withHostAsks(
      tool({
        description: 'Create or overwrite a text file in the workspace (atomic). Protected files are refused.',
        inputSchema: z.strictObject({ path: pathInput, content: z.string() }),
        needsApproval: ({ path }) => writeNeedsApproval(context, path),
        execute: ({ path, content }, { toolCallId }) =>
          guarded(async () => {
            assertWriteAllowed(context);
            const bytes = Buffer.from(content, 'utf8');
            if (bytes.length > WORKSPACE_MAX_WRITE_BYTES) throw workspaceError('FS_TOO_LARGE');
            const target = resolveIn(context, path);
            const before = previousText(target);
            const written = await writeUndoably(context, { tool: 'write_file', toolCallId }, target, bytes);
            return { path, ...written, diff: boundedDiff(target.requested, written.created ? null : before, content) };
          }, WRITE_HINTS),
      }),
    ),
    edit_file: withHostAsks(
      tool({
        description:
          'Replace exactly one occurrence of old_string with new_string in a workspace file, or every occurrence with replace_all (e.g. to rename). old_string must match the file exactly, whitespace and indentation included: copy it from what read_file showed. Fails if old_string does not occur, or occurs several times without replace_all.',
        inputSchema: z.strictObject({
          path: pathInput,
          old_string: z.string().min(1),
          new_string: z.string(),
          replace_all: z.boolean().optional().describe('replace every occurrence, not exactly one'),
        }),
        needsApproval: ({ path }) => writeNeedsApproval(context, path),
        execute: ({ path, old_string, new_string, replace_all }, { toolCallId }) =>
          guarded(async () => {
            assertWriteAllowed(context);
            const target = resolveIn(context, path);
            const { text, updated, count } = editedText(target, { old_string, new_string, replace_all });
            const bytes = Buffer.from(updated, 'utf8');
            if (bytes.length > WORKSPACE_MAX_WRITE_BYTES) throw workspaceError('FS_TOO_LARGE');
            return {
              path,
              ...(await writeUndoably(context, { tool: 'edit_file', toolCallId }, target, bytes)),
              replacements: count,
              diff: boundedDiff(target.requested, text, updated),
            };
          }, WRITE_HINTS),
      }),
    ),
  };
}

export type FileTools = ReturnType<typeof createFileTools>;
