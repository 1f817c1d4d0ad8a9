/**
 * SEC-004 (the watchdog): the host's own audit log, `<userData>/host/audit.jsonl` (0600, one JSON
 * line a decision). Every answer the host's policy gives — to a sidecar's `policy.check` before a
 * file tool, and to the command executor on each `run_command` it is about to run — is appended
 * here by the host itself, with the tool, the command's name (never its arguments, cwd or paths),
 * the verdict and the deciding rule. `host/` is write-denied in the sidecar's sandbox, so a
 * compromised sidecar that rewrites the audit rows in its sessions.db cannot touch this record.
 * Bounded: past HOST_AUDIT_MAX_BYTES the file rotates to `audit.jsonl.1`.
 *
 * Each line also carries the session and run the sidecar named on its frame, labelled as its word:
 * the host records them so a person can find a session's decisions, and decides nothing by them.
 * Where the policy said `ask` and the host put the call to the person itself (host-asks.ts), one
 * more line says how that question ended (approved, always allowed, denied, timed out, …) and
 * where it was answered: the host's own knowledge, since the answer comes from its terminal or
 * through host IPC, never through the sidecar. Questions the agent asks itself (its mode's) are
 * answered to the sidecar over a socket the host hands over unread, so they are not here.
 *
 * What it does not catch: a file tool a compromised sidecar runs without asking (the host never
 * sees it), and a sidecar naming the wrong session (or none) for a call.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { basename, join } from 'node:path';
import {
  HOST_AUDIT_DEFAULT_PAGE,
  HOST_AUDIT_MAX_BYTES,
  hostAuditEntrySchema,
  type HostAuditAnswer,
  type HostAuditEntry,
  type HostAuditPage,
  type HostAuditQuery,
  type HostAuditStage,
  type PolicyAnswer,
  type PolicyCall,
} from '@bastion/protocol';
import { HostError } from '../errors.js';
import { hostOnlyDir } from '../user-data.js';

export type { HostAuditEntry } from '@bastion/protocol';

export const HOST_AUDIT_FILE_NAME = 'audit.jsonl';

/** Where the answer was given, and the session and run the sidecar said the call was part of. */
export interface HostAuditContext {
  stage: HostAuditStage;
  /** The sidecar's word, recorded as such: the host cannot check which session a call belongs to. */
  session_id?: string | undefined;
  run_id?: string | undefined;
}

/** The lines of the log that pass the schema, oldest first, and how many did not. */
interface ReadLog {
  entries: HostAuditEntry[];
  unreadable: number;
}

export class HostAuditLog {
  readonly path: string;

  constructor(userData: string) {
    this.path = join(hostOnlyDir(userData), HOST_AUDIT_FILE_NAME);
  }

  /** Append one decision; rotates first when the file has reached its bound. */
  record(call: PolicyCall, answer: PolicyAnswer, context?: HostAuditContext): void {
    this.#append(entryOf(call, answer, context));
  }

  /**
   * Append how the host's question about `call` (asked because rule `ruleId` said `ask`) ended,
   * on a line of its own after the decision's.
   */
  recordAnswer(call: PolicyCall, ruleId: string | undefined, answer: HostAuditAnswer, context: HostAuditContext): void {
    const asked: PolicyAnswer = { verdict: 'ask', ...(ruleId === undefined ? {} : { rule_id: ruleId }) };
    this.#append({ ...entryOf(call, asked, context), answer });
  }

  #append(entry: HostAuditEntry): void {
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

  /** The decisions on record, oldest first (the rotated file, then the current one); unreadable lines skipped. */
  entries(): HostAuditEntry[] {
    return this.#read().entries;
  }

  /**
   * One page, newest first: at most `limit` decisions older than position `before` (a position
   * counts lines from the oldest kept one; a rotation renumbers them), only those reported for
   * `session_id` when it is given. `next` pages on from there; null when nothing older matches.
   */
  page(query: HostAuditQuery): HostAuditPage {
    const { entries, unreadable } = this.#read();
    const matches = (entry: HostAuditEntry) => query.session_id === undefined || entry.session_id === query.session_id;
    const limit = query.limit ?? HOST_AUDIT_DEFAULT_PAGE;
    const picked: HostAuditEntry[] = [];
    let position = Math.min(query.before ?? entries.length, entries.length);
    for (let index = position - 1; index >= 0 && picked.length < limit; index -= 1) {
      const entry = entries[index];
      if (entry === undefined || !matches(entry)) continue;
      picked.push(entry);
      position = index;
    }
    const older = entries.slice(0, position).some(matches);
    return { entries: picked, next: older ? position : null, unreadable };
  }

  /**
   * The decisions on record, oldest first, only those reported for `sessionId` when it is given,
   * and how many lines were skipped as unreadable (torn or foreign): `bastion policy audit`.
   */
  records(sessionId?: string): { entries: HostAuditEntry[]; unreadable: number } {
    const { entries, unreadable } = this.#read();
    return {
      entries: sessionId === undefined ? entries : entries.filter((entry) => entry.session_id === sessionId),
      unreadable,
    };
  }

  /** Every decision the sidecar reported for one session, oldest first (`bastion policy audit --session`). */
  entriesOf(sessionId: string): HostAuditEntry[] {
    return this.#read().entries.filter((entry) => entry.session_id === sessionId);
  }

  #read(): ReadLog {
    const log: ReadLog = { entries: [], unreadable: 0 };
    for (const path of [`${this.path}.1`, this.path]) {
      for (const line of readLines(path)) {
        const entry = parseLine(line);
        if (entry) log.entries.push(entry);
        else log.unreadable += 1;
      }
    }
    return log;
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

/** A file's non-empty lines, read without following a link; none when it does not exist. */
function readLines(path: string): string[] {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new HostError('HOST_AUDIT_UNREADABLE', `${basename(path)} cannot be read (a link or no permission)`, {
      cause: error,
    });
  }
  try {
    // A folder opens read-only without complaint; its read would throw EISDIR from here.
    if (!fstatSync(fd).isFile()) {
      throw new HostError(
        'HOST_AUDIT_UNREADABLE',
        `${basename(path)} is not a regular file (a folder?): move it out of the host folder in the Bastion data folder`,
      );
    }
    return readFileSync(fd, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
  } catch (error) {
    if (error instanceof HostError) throw error;
    throw new HostError('HOST_AUDIT_UNREADABLE', `${basename(path)} cannot be read`, { cause: error });
  } finally {
    closeSync(fd);
  }
}

/** A line for `call`: the program's name only of its arguments. */
function entryOf(call: PolicyCall, answer: PolicyAnswer, context: HostAuditContext | undefined): HostAuditEntry {
  return {
    at: new Date().toISOString(),
    tool: call.tool,
    command: call.command ? basename(call.command.name) : null,
    verdict: answer.verdict,
    rule_id: answer.rule_id ?? null,
    ...(context === undefined ? {} : { stage: context.stage }),
    ...(context?.session_id === undefined ? {} : { session_id: context.session_id }),
    ...(context?.run_id === undefined ? {} : { run_id: context.run_id }),
  };
}

function parseLine(line: string): HostAuditEntry | undefined {
  try {
    const checked = hostAuditEntrySchema.safeParse(JSON.parse(line));
    return checked.success ? checked.data : undefined;
  } catch {
    return undefined;
  }
}
