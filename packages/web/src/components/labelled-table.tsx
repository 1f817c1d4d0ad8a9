import type { ReactNode } from 'react';

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
  return <code>{command ? `${tool}: ${command}` : tool}</code>;
}
