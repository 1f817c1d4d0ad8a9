import { useState } from 'react';
import type { ToolView } from '../transcript.js';

const COLLAPSE_LINES = 16;
const COLLAPSE_CHARS = 2_000;

interface CommandInput {
  command?: unknown;
  args?: unknown;
  workdir?: unknown;
}
interface CommandOutput {
  exit_code?: unknown;
  signal?: unknown;
  stdout?: unknown;
  stderr?: unknown;
  truncated?: unknown;
  timed_out?: unknown;
  code?: unknown;
  message?: unknown;
  type?: unknown;
  reason?: unknown;
}

function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value, null, 2);
}

function Output({ label, text }: { label: string; text: string }) {
  const long = text.length > COLLAPSE_CHARS || text.split('\n').length > COLLAPSE_LINES;
  const [open, setOpen] = useState(!long);
  if (text === '') return null;
  const shown = open ? text : text.split('\n').slice(0, COLLAPSE_LINES).join('\n').slice(0, COLLAPSE_CHARS);
  return (
    <div className="tool-output">
      <div className="tool-output-head">
        <span>{label}</span>
        {long && (
          <button type="button" className="small" aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? 'Collapse' : 'Show all'}
          </button>
        )}
      </div>
      <pre>{shown}</pre>
    </div>
  );
}

/** One tool call: what it asked to do, whether it was approved, and what came back. */
export function ToolCard({ tool }: { tool: ToolView }) {
  const input = (typeof tool.input === 'object' && tool.input !== null ? tool.input : {}) as CommandInput;
  const output = (typeof tool.output === 'object' && tool.output !== null ? tool.output : {}) as CommandOutput;
  const isCommand = tool.toolName === 'run_command';
  const args = Array.isArray(input.args) ? input.args.map(asText) : [];
  const status =
    tool.output === undefined
      ? tool.approval?.state === 'pending'
        ? 'waiting for approval'
        : 'running'
      : tool.isError
        ? output.code === 'TOOL_DENIED'
          ? 'denied'
          : 'refused'
        : isCommand && typeof output.exit_code === 'number'
          ? `exit ${output.exit_code}`
          : 'done';
  return (
    <article className={`tool-card${tool.isError ? ' tool-error' : ''}`} aria-label={`Tool ${tool.toolName}`}>
      <header className="tool-head">
        <span className="tool-name">{tool.toolName}</span>
        <span className="tool-status" data-testid="tool-status">
          {status}
        </span>
      </header>
      {isCommand ? (
        <dl className="tool-fields">
          <dt>command</dt>
          <dd>
            <code>{asText(input.command)}</code>
          </dd>
          <dt>args</dt>
          <dd>
            {args.length === 0 ? (
              <span className="muted">none</span>
            ) : (
              args.map((arg, index) => <code key={index}>{arg}</code>)
            )}
          </dd>
          <dt>cwd</dt>
          <dd>
            <code>{typeof input.workdir === 'string' ? input.workdir : '(workspace root)'}</code>
          </dd>
          {typeof output.exit_code === 'number' && (
            <>
              <dt>exit code</dt>
              <dd>{output.exit_code}</dd>
            </>
          )}
        </dl>
      ) : (
        <Output label="input" text={asText(tool.input)} />
      )}
      {isCommand && !tool.isError && tool.output !== undefined ? (
        <>
          <Output label="stdout" text={asText(output.stdout)} />
          <Output label="stderr" text={asText(output.stderr)} />
          {output.truncated === true && <p className="flag">Output was truncated.</p>}
          {output.timed_out === true && <p className="flag">The command timed out.</p>}
        </>
      ) : (
        tool.output !== undefined && <Output label={tool.isError ? 'refused' : 'output'} text={asText(tool.output)} />
      )}
    </article>
  );
}
