import { useCallback, useEffect, useRef, useState, type MouseEvent } from 'react';
import type { BastionApi, HostAuditEntry, HostAuditPage } from '@bastion/bridge';
import { AUDIT_VIEW_PAGE, HOST_ASK_CHANNEL_WORDS, HOST_ASK_RESULT_WORDS, type HostAuditStage } from '@bastion/protocol';
import { describeError, errorCode } from '../bastion.js';
import { routePath } from '../route.js';
import { groupHostAuditCalls, type HostAuditCall } from '../host-audit-calls.js';
import { Dialog } from './dialog.js';
import { LabelledTable, ToolName, VerdictLegend, VerdictText, type Column } from './labelled-table.js';

/** Where the host gave its enforcing answer, by stage. */
const ENFORCED_TEXT: Record<Exclude<HostAuditStage, 'check'>, string> = {
  command: 'as the host ran it',
  write: 'as the host wrote it',
  mcp: 'as the host called the MCP server',
};

/** When a call was checked (the column is "Checked"): before it, where the host ran it, or both. */
function stagesText(call: HostAuditCall): string {
  const enforced = call.enforced?.stage && call.enforced.stage !== 'check' ? ENFORCED_TEXT[call.enforced.stage] : '';
  if (call.check && enforced) return `before the call, and ${enforced}`;
  if (call.check) return 'before the call only';
  return enforced || '—';
}

/** The policy's answer for a call; both when the check and the enforcement answered differently. */
function CallVerdict({ call }: { call: HostAuditCall }) {
  const { check, enforced } = call;
  if (check && enforced && (check.verdict !== enforced.verdict || check.rule_id !== enforced.rule_id)) {
    return (
      <>
        <span>
          Before: <VerdictText verdict={check.verdict} ruleId={check.rule_id} />
        </span>
        <br />
        <span>
          As run: <VerdictText verdict={enforced.verdict} ruleId={enforced.rule_id} />
        </span>
      </>
    );
  }
  const line = enforced ?? call.first;
  return <VerdictText verdict={line.verdict} ruleId={line.rule_id} />;
}

/**
 * How the host's own question about the call ended, as the host saw it; "—" where the host did not
 * ask (the agent's own questions are answered to the agent, out of the host's sight).
 */
function AnswerText({ call }: { call: HostAuditCall }) {
  const answer = call.answered?.answer;
  if (answer === undefined) {
    // An ask with no end on record: still waiting, or recorded before the host kept its answers.
    return call.enforced?.verdict === 'ask' ? <span className="muted">not recorded</span> : <>—</>;
  }
  const words = HOST_ASK_RESULT_WORDS[answer.result];
  return (
    <span title={`Recorded ${new Date(call.answered?.at ?? '').toLocaleString()}`}>
      {words.charAt(0).toUpperCase()}
      {words.slice(1)}
      {answer.channel && ` ${HOST_ASK_CHANNEL_WORDS[answer.channel]}`}
      {answer.saved_rule_id && (
        <>
          {' '}
          (saved <code>{answer.saved_rule_id}</code>)
        </>
      )}
    </span>
  );
}

const CALL_COLUMNS: readonly Column<HostAuditCall>[] = [
  { label: 'When', cell: (call) => new Date(call.first.at).toLocaleString() },
  { label: 'Tool', cell: (call) => <ToolName tool={call.first.tool} command={call.first.command} /> },
  { label: 'Policy', cell: (call) => <CallVerdict call={call} /> },
  { label: 'Checked', cell: stagesText },
  { label: 'Host asked you', cell: (call) => <AnswerText call={call} /> },
];

/**
 * What the page knows of a session the log names: when it started, that no session has the id
 * now (deleted since, or never one: the id is the agent's word), or why it could not be read.
 * Never its title, which is its first prompt and may hold a command's arguments (the log names
 * programs only).
 */
type SessionLookup = { started: string } | { gone: true } | { failed: string };

/** `ses_` and the id's first six characters: enough to tell this page's sessions apart. */
const shortId = (sessionId: string) => sessionId.slice(0, 10);

/**
 * The sessions `entries` name, read from the daemon: all of them when the log is read anew
 * (Refresh), so a session deleted meanwhile says so, and only those not read yet when older
 * entries are added (Show older), so each page costs its own new sessions only. What was read
 * before shows until then.
 */
function useSessionLookups(bastion: BastionApi, entries: readonly HostAuditEntry[] | undefined) {
  const [lookups, setLookups] = useState<ReadonlyMap<string, SessionLookup>>(new Map());
  /** The first entry the lookups were read for: another is a log read anew. */
  const readFor = useRef<HostAuditEntry | undefined>(undefined);
  useEffect(() => {
    const anew = entries?.[0] !== readFor.current;
    readFor.current = entries?.[0];
    const named = new Set((entries ?? []).flatMap((entry) => (entry.session_id ? [entry.session_id] : [])));
    const unread = [...named].filter((sessionId) => anew || !lookups.has(sessionId));
    if (unread.length === 0) return;
    let cancelled = false;
    void Promise.all(
      unread.map((sessionId) =>
        bastion.sessions.get(sessionId).then(
          (session): [string, SessionLookup] => [sessionId, { started: session.created_at }],
          (failure: unknown): [string, SessionLookup] => [
            sessionId,
            errorCode(failure) === 'SESSION_NOT_FOUND' ? { gone: true } : { failed: describeError(failure) },
          ],
        ),
      ),
    ).then((read) => {
      if (!cancelled) setLookups((known) => new Map([...(anew ? [] : known), ...read]));
    });
    return () => {
      cancelled = true;
    };
  }, [bastion, entries, lookups]);
  return lookups;
}

/**
 * The whole log also says which session the sidecar named (its word, so the header says so): a
 * link that opens it, by its start and short id.
 */
function sessionColumn(
  lookups: ReadonlyMap<string, SessionLookup>,
  onOpenSession: ((sessionId: string) => void) | undefined,
): Column<HostAuditCall> {
  return {
    label: 'Session (as the agent reported)',
    cell: (call) => {
      const sessionId = call.first.session_id;
      if (!sessionId) return '—';
      const id = <code>{shortId(sessionId)}</code>;
      const lookup = lookups.get(sessionId);
      if (lookup === undefined) return id;
      if ('gone' in lookup) {
        return (
          <span className="muted" title="No session has this id now: deleted since, or one the agent never had">
            Deleted session · {id}
          </span>
        );
      }
      if ('failed' in lookup) return <span title={lookup.failed}>{id}</span>;
      // A link, so it opens in a new tab too; a plain click opens the session here.
      const open = (event: MouseEvent) => {
        if (!onOpenSession || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) {
          return;
        }
        event.preventDefault();
        onOpenSession(sessionId);
      };
      return (
        <a href={routePath({ page: 'session', sessionId })} onClick={open} title={sessionId}>
          Started {new Date(lookup.started).toLocaleString()} · {id}
        </a>
      );
    },
  };
}

/**
 * Decisions from the host's own audit log (`host/audit.jsonl`), read through host IPC and never
 * through the agent, newest first, AUDIT_VIEW_PAGE lines at a time and shown as calls (a check
 * and its enforcement together); with `sessionId`, only those the agent reported for that session.
 */
function HostDecisions({
  bastion,
  sessionId,
  onOpenSession,
}: {
  bastion: BastionApi;
  sessionId?: string;
  onOpenSession?: (sessionId: string) => void;
}) {
  const [entries, setEntries] = useState<HostAuditEntry[]>();
  const [next, setNext] = useState<number | null>(null);
  const [unreadable, setUnreadable] = useState(0);
  const [error, setError] = useState<string>();

  const load = useCallback(
    (before: number | undefined) =>
      bastion.policy
        .audit({
          limit: AUDIT_VIEW_PAGE,
          ...(before === undefined ? {} : { before }),
          ...(sessionId === undefined ? {} : { session_id: sessionId }),
        })
        .then((page: HostAuditPage) => {
          setEntries((shown) => (before === undefined ? page.entries : [...(shown ?? []), ...page.entries]));
          setNext(page.next);
          setUnreadable(page.unreadable);
          setError(undefined);
        })
        .catch((failure: unknown) => setError(describeError(failure))),
    [bastion, sessionId],
  );
  useEffect(() => {
    void load(undefined);
  }, [load]);
  const lookups = useSessionLookups(bastion, sessionId === undefined ? entries : undefined);

  return (
    <>
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
      {unreadable > 0 && (
        <p className="inline-error" role="status">
          {unreadable} {unreadable === 1 ? 'line' : 'lines'} of the log could not be read and{' '}
          {unreadable === 1 ? 'is' : 'are'} not shown.
        </p>
      )}
      <div className="row">
        <button type="button" onClick={() => void load(undefined)}>
          Refresh
        </button>
      </div>
      {entries && entries.length === 0 && <p className="muted">The host has recorded no decision here yet.</p>}
      {entries && entries.length > 0 && (
        <>
          {/* Folded (each verdict's badge says its meaning on hover): open, the notes and legend took a 400 px window's height before the first row. */}
          <details className="audit-how-to-read">
            <summary>How to read the rows</summary>
            <p className="muted">
              A row is a call, as far as its lines can be matched. A command, a file write or an MCP tool is checked
              twice: the agent asks the host before the call, and the host checks again as it runs it itself. Reads and
              searches the agent runs itself, so they are checked before only. A call the agent asked you about (its
              mode’s question) has two rows: the run that asked, checked before the call only, and the run that carried
              it out after your answer. So has a call whose second check before it gave another answer than its first (a
              rule changed in between). Where a rule said to ask, the host asked you itself (at its terminal or in this
              page, never through the agent): “Host asked you” is how that ended. The agent’s own questions (its mode’s,
              such as Ask before edits) are answered to the agent, out of the host’s sight: their answers are in the
              session audit log.
            </p>
            <VerdictLegend />
          </details>
          <LabelledTable
            rows={groupHostAuditCalls(entries)}
            columns={sessionId === undefined ? [...CALL_COLUMNS, sessionColumn(lookups, onOpenSession)] : CALL_COLUMNS}
            rowKey={(call, index) => `${call.first.at}-${index}`}
            label="Host decisions, newest first"
          />
        </>
      )}
      {next !== null && (
        <button type="button" onClick={() => void load(next)}>
          Show older decisions
        </button>
      )}
    </>
  );
}

/** Settings: the host's whole audit log; `onOpenSession` opens a session it names. */
export function HostAuditView({
  bastion,
  onOpenSession,
}: {
  bastion: BastionApi;
  onOpenSession?: (sessionId: string) => void;
}) {
  return (
    <section className="card" aria-labelledby="host-audit-title">
      <h2 id="host-audit-title">Host audit log</h2>
      <p className="muted">
        The host’s own record of every answer its policy gave, and of how each question it asked you ended, kept in{' '}
        <code>host/audit.jsonl</code>, which the agent cannot write. It names a command’s program, never its arguments.
        The session is the one the agent named for the call: the host records it but cannot check it.
      </p>
      <HostDecisions bastion={bastion} onOpenSession={onOpenSession} />
    </section>
  );
}

/** A session's view: the decisions the host recorded for calls the agent said were this session's. */
export function HostRecordDialog({
  bastion,
  sessionId,
  onClose,
}: {
  bastion: BastionApi;
  sessionId: string;
  onClose: () => void;
}) {
  return (
    <Dialog title="The host’s record of this session" onCancel={onClose} wide>
      <p className="muted">
        Every answer the host’s policy gave, and how each question it asked you ended, for a call the agent said was
        part of this session, from the host’s own log (<code>host/audit.jsonl</code>), which the agent cannot write. The
        decisions are the host’s; which session a call belonged to is the agent’s word.
      </p>
      <HostDecisions bastion={bastion} sessionId={sessionId} />
      <div className="row dialog-actions">
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
