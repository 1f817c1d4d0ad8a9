/**
 * SEC-004 (the watchdog): the host's own audit log, `<userData>/host/audit.jsonl` (0600, one JSON
 * line a decision). Every answer the host's policy gives — to a sidecar's `policy.check` before a
 * file tool, and to the command executor on each `run_command` it is about to run — is appended
 * here by the host itself, with the tool, the command's name (never its arguments, cwd or paths),
 * the verdict and the deciding rule. `host/` is write-denied in the sidecar's sandbox, so a
 * compromised sidecar that rewrites the audit rows in its sessions.db cannot touch this record.
 * Bounded: past HOST_AUDIT_MAX_BYTES the file rotates to `audit.jsonl.1`.
 *
 * What it does not catch: a file tool a compromised sidecar runs without asking (the host never
 * sees it), and which session a call belonged to (the hook's frame names no session).
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { basename, join } from 'node:path';
import { HOST_AUDIT_MAX_BYTES, type PolicyAnswer, type PolicyCall } from '@bastion/protocol';
import { hostOnlyDir } from '../user-data.js';

export const HOST_AUDIT_FILE_NAME = 'audit.jsonl';

/** One decision as recorded: no argument content beyond the command's program name. */
export interface HostAuditEntry {
  at: string;
  tool: string;
  command: string | null;
  verdict: PolicyAnswer['verdict'];
  rule_id: string | null;
}

export class HostAuditLog {
  readonly path: string;

  constructor(userData: string) {
    this.path = join(hostOnlyDir(userData), HOST_AUDIT_FILE_NAME);
  }

  /** Append one decision; rotates first when the file has reached its bound. */
  record(call: PolicyCall, answer: PolicyAnswer): void {
    const entry: HostAuditEntry = {
      at: new Date().toISOString(),
      tool: call.tool,
      command: call.command ? basename(call.command.name) : null,
      verdict: answer.verdict,
      rule_id: answer.rule_id ?? null,
    };
    let fd = this.#open();
    try {
      if (fstatSync(fd).size >= HOST_AUDIT_MAX_BYTES) {
        closeSync(fd);
        fd = -1;
        renameSync(this.path, `${this.path}.1`);
        fd = this.#open();
      }
      writeSync(fd, `${JSON.stringify(entry)}\n`);
    } finally {
      if (fd >= 0) closeSync(fd);
    }
  }

  /** The decisions on record, oldest first (the rotated file, then the current one). */
  entries(): HostAuditEntry[] {
    return [`${this.path}.1`, this.path].flatMap((path) => {
      let fd: number;
      try {
        fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
      let text: string;
      try {
        text = readFileSync(fd, 'utf8');
      } finally {
        closeSync(fd);
      }
      return text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as HostAuditEntry);
    });
  }

  /** Opened for append only, never through a symbolic link, created 0600. */
  #open(): number {
    return openSync(
      this.path,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
      0o600,
    );
  }
}
