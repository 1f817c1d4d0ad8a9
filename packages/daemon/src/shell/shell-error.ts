/** Refusal codes of `run_command` before anything is spawned. Each says what was refused, never which path. */
export type ShellErrorCode =
  | 'SHELL_UNAVAILABLE'
  | 'SHELL_COMMAND_INVALID'
  | 'SHELL_ARGS_TOO_MANY'
  | 'SHELL_ARG_TOO_LONG'
  | 'SHELL_ARGV_TOO_LARGE'
  | 'SHELL_ARG_NUL'
  | 'SHELL_ARG_PROTECTED'
  | 'SHELL_ARG_UNRESOLVABLE'
  | 'SHELL_CWD_MISSING'
  | 'SHELL_CWD_NOT_DIRECTORY'
  | 'SHELL_CWD_PROTECTED'
  | 'SHELL_CWD_OTHER_WORKSPACE'
  | 'SHELL_CWD_OUTSIDE_WORKSPACE'
  | 'SHELL_HOST_REFUSED'
  | 'SHELL_ABORTED'
  | 'MODE_READ_ONLY';

/** The host's own refusal codes (`command.error`), passed through to the model as they are. */
export type HostCommandRefusalCode = `COMMAND_${string}`;

/** What the tool returns to the model when it refuses: a code and a fixed message. */
export interface ShellRefusal {
  ok: false;
  code: ShellErrorCode | HostCommandRefusalCode;
  message: string;
}

export function shellRefusal(code: ShellRefusal['code'], message: string): ShellRefusal {
  return { ok: false, code, message };
}
