/**
 * Why a tool call did not run, in words for its card: the daemon's code (kept visible, for bug
 * reports) read as a sentence, with the daemon's message after it where it says more.
 */
import { isToolFailureCode, type DaemonErrorCode } from '@bastion/protocol';

/** Each refusal code in words (a key that is no daemon code fails to compile). */
const REFUSAL_WORDS: Readonly<Record<string, string>> = {
  TOOL_DENIED: 'You denied this call.',
  TOOL_FAILED: 'The tool failed.',
  TOOL_INPUT_TOO_LARGE:
    'The model sent this call with more input than a call may carry, so it was not run; the agent was told to send it in smaller parts.',
  TOOL_CALLS_TOO_MANY:
    'The model asked for more tool calls at once than one step may make, so this one was not run; the agent was told to make it next.',
  FS_NOT_FOUND: 'The file or folder does not exist.',
  FS_NOT_A_FILE: 'The path is not a file.',
  FS_NOT_A_DIRECTORY: 'The path is not a folder.',
  FS_OUTSIDE_WORKSPACE: 'The path is outside the workspace, so the agent may not touch it.',
  FS_PROTECTED: 'The path is protected (secrets or Bastion’s own data), so the agent may not touch it.',
  FS_SYMLINK:
    'The path is a symbolic link Bastion does not follow (one that loops, or one swapped in as the file was opened), so it was refused.',
  FS_NO_WORKSPACE: 'This session has no workspace folder.',
  FS_TOO_LARGE: 'The file is too large for this tool.',
  FS_DISK_FULL:
    'The workspace’s disk is full, so nothing was written: the file is as it was. Free some space, then ask again.',
  FS_NAME_TOO_LONG:
    'The file name is too long: a name in the path is longer than the file system allows (255 bytes on most), or the whole path is.',
  FS_ACCESS_DENIED: 'The file system’s permissions do not let Bastion open this path.',
  FS_READ_ONLY: 'The file system holding this path is read-only, so nothing was written.',
  STORAGE_FULL: 'The disk Bastion keeps its data on is full, so nothing was written. Free some space, then ask again.',
  FS_CHANGED_SINCE_SHOWN: 'The file changed after you were shown this diff, so nothing was written.',
  EDIT_NO_MATCH: 'The text to replace does not occur in the file.',
  EDIT_AMBIGUOUS: 'The text to replace occurs more than once; the agent must give more context.',
  SHELL_UNAVAILABLE: 'Commands are not available in this session.',
  SHELL_ABORTED: 'The command was stopped.',
  SHELL_ARG_PROTECTED: 'An argument points into a protected folder, so the command was not run.',
  SHELL_CWD_PROTECTED: 'The working folder is protected, so the command was not run.',
  SHELL_CWD_OUTSIDE_WORKSPACE: 'The working folder is outside the workspace, so the command was not run.',
  SHELL_CWD_OTHER_WORKSPACE: 'The working folder belongs to another workspace, so the command was not run.',
  SHELL_HOST_REFUSED: 'The host refused to run the command.',
  MCP_UNAVAILABLE: 'MCP servers do not run here: commands are not sandboxed on this machine.',
  MCP_SERVER_UNKNOWN: 'No MCP server of that name is set up.',
  MCP_SERVER_FAILED: 'The MCP server could not be started, or stopped (Settings → MCP servers says why).',
  MCP_TOOL_UNKNOWN: 'The MCP server has no tool of that name.',
  MCP_ARGUMENTS_INVALID: 'The arguments are not what the tool takes.',
  MCP_CALL_TIMEOUT: 'The MCP server did not answer in time.',
  MCP_CALL_FAILED: 'The MCP server failed the call.',
  MCP_POLICY_DENIED: 'A policy rule denies this tool.',
  MCP_POLICY_UNAPPROVED: 'The host asked about this tool and it was not allowed.',
  MCP_BUSY: 'Too many MCP tool calls at once.',
  MCP_WORKSPACE_REFUSED: 'The host refused this session’s workspace for MCP servers.',
  EXPLORE_FAILED: 'The explorer could not finish: its model call failed.',
  EXPLORE_NO_ANSWER: 'The explorer stopped without giving an answer.',
} satisfies Partial<Record<DaemonErrorCode, string>>;

/** Codes whose message is always the same fixed sentence: the words above say it already. */
const FIXED_MESSAGE_CODES = new Set([
  'TOOL_DENIED',
  'TOOL_FAILED',
  'EXPLORE_NO_ANSWER',
  'FS_CHANGED_SINCE_SHOWN',
  'FS_SYMLINK',
  'FS_NAME_TOO_LONG',
  'FS_ACCESS_DENIED',
  'FS_READ_ONLY',
]);

/** Whether a call's error output `{ code }` says it failed rather than was refused (isToolFailureCode). */
export function isToolFailure(output: unknown): boolean {
  return isToolFailureCode(
    typeof output === 'object' && output !== null ? (output as { code?: unknown }).code : undefined,
  );
}

/** A refused call's output `{ code, message }` in words. */
export function refusalText(output: unknown): string {
  const fields = typeof output === 'object' && output !== null ? (output as { code?: unknown; message?: unknown }) : {};
  const { code, message } = fields;
  const words = typeof code === 'string' ? REFUSAL_WORDS[code] : undefined;
  const detail = typeof message === 'string' ? message : 'the tool refused';
  if (words && FIXED_MESSAGE_CODES.has(code as string)) return words;
  return words ? `${words} (${detail})` : `Refused: ${detail}.`;
}
