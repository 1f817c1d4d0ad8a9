import type { CommandErrorCode, ShellErrorCode } from '@bastion/protocol';

/** What the tool returns to the model when it refuses: a code and a fixed message. */
export interface ShellRefusal {
  ok: false;
  code: ShellErrorCode | CommandErrorCode;
  message: string;
}

export function shellRefusal(code: ShellRefusal['code'], message: string): ShellRefusal {
  return { ok: false, code, message };
}
