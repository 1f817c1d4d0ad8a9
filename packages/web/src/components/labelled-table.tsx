import type { ReactNode } from 'react';
import type { PolicyVerdict } from '@bastion/protocol';

/** One column: its header, which is also the cell's label on a narrow screen (styles.css). */
export interface Column<T> {
  label: string;
  cell: (row: T) => ReactNode;
}

/** A table of records whose rows become small labelled cards on a narrow screen (the audit logs). */
export function LabelledTable<T>({
  rows,
  columns,
  rowKey,
  label,
}: {
  rows: readonly T[];
  columns: readonly Column<T>[];
  rowKey: (row: T, index: number) => string;
  label?: string;
}) {
  return (
    <table className="policy-table" aria-label={label}>
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column.label} scope="col">
              {column.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, index) => (
          <tr key={rowKey(row, index)}>
            {columns.map((column) => (
              <td key={column.label} data-label={column.label}>
                {column.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A tool call as the audit logs name it: the tool, and for a command its program only. */
export function ToolName({ tool, command }: { tool: string; command: string | null }) {
  return <code className="tool-name">{command ? `${tool}: ${command}` : tool}</code>;
}

/** What the policy's verdict on a call meant, in words: `none` is the mode deciding, not a refusal. */
const VERDICT_MEANING: Record<PolicyVerdict, string> = {
  none: 'no rule matched: the session’s mode decided (and may have asked you)',
  allow: 'a rule allowed it without asking',
  ask: 'a rule said to ask you first',
  deny: 'a rule refused it',
  'hard-deny': 'a rule refused it; nothing can override that',
};

/** The words the audit logs' legends use for each verdict (VERDICT_MEANING), badge first. */
export function VerdictLegend() {
  return (
    <ul className="verdict-legend">
      {(Object.keys(VERDICT_MEANING) as PolicyVerdict[]).map((verdict) => (
        <li key={verdict}>
          <VerdictBadge verdict={verdict} /> {VERDICT_MEANING[verdict]}
        </li>
      ))}
    </ul>
  );
}

function VerdictBadge({ verdict }: { verdict: PolicyVerdict }) {
  return <span className={`badge decision-${verdict}`}>{verdict === 'none' ? 'no rule' : verdict}</span>;
}

/** A policy verdict in an audit row: its badge (its meaning on hover) and the deciding rule, or "mode decided". */
export function VerdictText({ verdict, ruleId }: { verdict: PolicyVerdict; ruleId: string | null }) {
  return (
    <span title={VERDICT_MEANING[verdict]}>
      <VerdictBadge verdict={verdict} />{' '}
      {ruleId ? <code>{ruleId}</code> : verdict === 'none' && <span className="muted">mode decided</span>}
    </span>
  );
}
