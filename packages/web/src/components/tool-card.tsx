import { useLayoutEffect, useMemo, useRef, useState } from 'react';
import {
  UI_EXPLORE_TASK_FOLD_CHARS,
  UI_EXPLORE_TASK_FOLD_LINES,
  UI_LIVE_OUTPUT_MAX_CHARS,
  UI_TOOL_OUTPUT_FOLD_LINES,
} from '@bastion/protocol';
import { exploreCallWords, exploreOutcome, exploreTask } from '../explore-call.js';
import { mcpArgumentsText, mcpCallOutcome, mcpToolTitle } from '../mcp-tool-call.js';
import { isToolFailure, refusalText } from '../tool-refusal.js';
import { lineCount, READ_ONLY_TOOLS, toolTitle, type ToolTitle } from '../tool-title.js';
import type { ToolView } from '../transcript.js';
import { CommandWords } from './command-words.js';
import { CopyButton } from './copy-button.js';
import { DiffView, diffFileOf, diffLines, diffOf, diffRows, type DiffFile } from './diff-view.js';
import { Markdown } from './markdown.js';
import { PlanChecklist, planSteps } from './plan.js';

interface Fields {
  [name: string]: unknown;
}

function fieldsOf(value: unknown): Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : {};
}

function argvOf(input: Fields): string[] {
  const args: unknown[] = Array.isArray(input.args) ? input.args : [];
  return [input.command, ...args].map(asText);
}

function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value, null, 2);
}

/** Text that folds when it is long, with a line-number gutter counting from `firstLine` when given. */
function Output({ label, text, firstLine, terminal = false }: OutputProps) {
  const lines = text.replace(/\n$/, '').split('\n');
  const long = lines.length > UI_TOOL_OUTPUT_FOLD_LINES;
  const [open, setOpen] = useState(!long);
  if (text === '') return null;
  const shown = open ? lines : lines.slice(0, UI_TOOL_OUTPUT_FOLD_LINES);
  return (
    <div className={terminal ? 'tool-output terminal' : 'tool-output'}>
      <div className="tool-output-head">
        <span>{label}</span>
        <span className="tool-output-actions">
          {long && (
            <button type="button" className="small" aria-expanded={open} onClick={() => setOpen(!open)}>
              {open ? 'Collapse' : `Show all ${lines.length} lines`}
            </button>
          )}
          <CopyButton text={text} name={`Copy ${label.split(',')[0]}`} />
        </span>
      </div>
      {firstLine !== undefined ? (
        <pre className="numbered" data-testid="numbered-file">
          {shown.map((line, index) => (
            <span key={index} className="numbered-line">
              <span className="line-number" aria-hidden="true">
                {firstLine + index}
              </span>
              {line}
              {'\n'}
            </span>
          ))}
        </pre>
      ) : (
        <pre>{shown.join('\n')}</pre>
      )}
    </div>
  );
}
interface OutputProps {
  label: string;
  text: string;
  firstLine?: number;
  terminal?: boolean;
}

function statusOf(tool: ToolView, runGoing: boolean): string {
  if (tool.output === undefined) {
    if (tool.approval?.state === 'pending') return 'waiting for approval';
    // Answered while other approvals of its step wait: the answers are carried out once all are in.
    if (tool.approval?.state === 'allowed') return 'allowed, not run yet';
    if (tool.approval?.state === 'denied') return 'denied';
    return runGoing ? 'running' : 'stopped';
  }
  const output = fieldsOf(tool.output);
  const mcp = mcpToolTitle(tool.toolName) === undefined ? undefined : mcpCallOutcome(tool.output);
  if (mcp?.kind === 'answer') return mcp.isError ? 'failed' : 'done';
  if (tool.isError && tool.toolName === 'explore' && String(output.code).startsWith('EXPLORE_')) return 'failed';
  if (tool.isError) return output.code === 'TOOL_DENIED' ? 'denied' : isToolFailure(tool.output) ? 'failed' : 'refused';
  if (tool.toolName === 'run_command' && typeof output.exit_code === 'number') return `exit ${output.exit_code}`;
  if (tool.toolName === 'run_command' && typeof output.signal === 'string') return `killed (${output.signal})`;
  return 'done';
}

/** A command that exited non-zero or was killed: its status is marked as its exit line is, so a folded card shows it. */
function commandFailed(tool: ToolView): boolean {
  if (tool.toolName !== 'run_command' || tool.output === undefined || tool.isError) return false;
  const output = fieldsOf(tool.output);
  return (typeof output.exit_code === 'number' && output.exit_code !== 0) || typeof output.signal === 'string';
}

/** The end of what a running command has printed, stderr marked, kept scrolled to its last line. */
function LiveOutput({ live }: { live: NonNullable<ToolView['live']> }) {
  const ref = useRef<HTMLPreElement>(null);
  useLayoutEffect(() => {
    if (ref.current) ref.current.scrollTop = ref.current.scrollHeight;
  }, [live]);
  const pieces: { stream: 'stdout' | 'stderr'; text: string }[] = [];
  let room = UI_LIVE_OUTPUT_MAX_CHARS;
  for (let index = live.length - 1; index >= 0 && room > 0; index -= 1) {
    const piece = live[index] as { stream: 'stdout' | 'stderr'; text: string };
    pieces.unshift({ stream: piece.stream, text: piece.text.slice(-room) });
    room -= piece.text.length;
  }
  return (
    <div className="tool-output terminal" data-testid="live-output">
      <div className="tool-output-head">
        <span>output so far{room < 0 ? ' (its end)' : ''}</span>
      </div>
      <pre ref={ref}>
        {pieces.map((piece, index) =>
          piece.stream === 'stderr' ? (
            <span key={index} className="live-stderr">
              {piece.text}
            </span>
          ) : (
            <span key={index}>{piece.text}</span>
          ),
        )}
      </pre>
    </div>
  );
}

function CommandBody({ tool }: { tool: ToolView }) {
  const input = fieldsOf(tool.input);
  const output = fieldsOf(tool.output);
  const argv = argvOf(input);
  return (
    <>
      <dl className="tool-fields">
        <dt>argv</dt>
        <dd>
          <CommandWords argv={argv} />
        </dd>
        <dt>cwd</dt>
        <dd>
          {typeof input.workdir === 'string' ? <CommandWords argv={[input.workdir]} /> : <code>(workspace root)</code>}
        </dd>
        {typeof output.exit_code === 'number' && (
          <>
            <dt>exit</dt>
            <dd className={output.exit_code === 0 ? 'exit-ok' : 'exit-fail'}>{output.exit_code}</dd>
          </>
        )}
      </dl>
      {tool.output === undefined && tool.live && <LiveOutput live={tool.live} />}
      {!tool.isError && tool.output !== undefined && (
        <>
          <Output label="stdout" text={asText(output.stdout)} terminal />
          <Output label="stderr" text={asText(output.stderr)} terminal />
          {output.stdout === '' && output.stderr === '' && <p className="muted">No output.</p>}
          {output.truncated === true && <p className="flag">Output was truncated.</p>}
          {output.timed_out === true && <p className="flag">The command timed out.</p>}
          {Array.isArray(output.notices) &&
            output.notices.map((notice, index) => (
              <p key={index} className="tool-notice" role="note">
                <strong>Bastion: </strong>
                {String(notice)}
              </p>
            ))}
        </>
      )}
    </>
  );
}

/** Whether a read_file call asked for a line range (a large file read whole comes as one from line 1). */
function asksRange(input: unknown): boolean {
  const fields = fieldsOf(input);
  return fields.start_line !== undefined || fields.end_line !== undefined;
}

function ReadBody({ tool }: { tool: ToolView }) {
  const output = fieldsOf(tool.output);
  if (tool.output === undefined || tool.isError) return null;
  if (output.binary === true) return <p className="muted">Binary file ({asText(output.size)} bytes), not shown.</p>;
  // a read of a line range numbers its lines as they are in the file
  const ranged = typeof output.start_line === 'number';
  const first = ranged ? (output.start_line as number) : 1;
  const total = typeof output.total_lines === 'number' ? `of ${output.total_lines}` : 'of a file too long to count';
  return (
    <>
      <Output
        label={
          ranged ? `${asText(output.path)}, lines ${first}–${asText(output.end_line)} ${total}` : asText(output.path)
        }
        text={asText(output.content)}
        firstLine={first}
      />
      {output.truncated === true && (
        <p className="flag">
          {asksRange(tool.input)
            ? 'The range was cut; the agent saw only these lines.'
            : 'The file was cut; the agent saw only its start.'}
        </p>
      )}
    </>
  );
}

/** write_file / edit_file: the change as a diff (`diff`: worked out once by the card, undefined when too large). */
function WriteBody({ tool, diff }: { tool: ToolView; diff: string | undefined }) {
  if (tool.isError) return null;
  // An edit with replace_all: before it runs, its input shows one replacement of many.
  const replaced = fieldsOf(tool.output).replacements;
  const every =
    fieldsOf(tool.input).replace_all === true ? (
      <p className="muted">
        {typeof replaced === 'number'
          ? `Every occurrence replaced (${replaced}).`
          : 'Every occurrence of this text in the file is to be replaced.'}
      </p>
    ) : null;
  // A write without a diff (diffOf): the file as it was is not shown, so its content is, not a new file's diff.
  const content = fieldsOf(tool.input).content;
  if (diff === undefined && tool.toolName === 'write_file' && typeof content === 'string') {
    return (
      <>
        <p className="muted" data-testid="write-old-unknown">
          {tool.output === undefined
            ? 'The file as it is now is not shown; this is all the write gives it.'
            : 'The file’s earlier content is not shown; this is all the write gave it.'}
        </p>
        <Output label={`content, ${plural(lineCount(content), 'line', 'lines')}`} text={content} firstLine={1} />
      </>
    );
  }
  return (
    <>
      {every}
      {diff === undefined ? <p className="muted">The change is too large to show here.</p> : <DiffView diff={diff} />}
    </>
  );
}

/** How an entry of each kind is marked in a listing, as `ls -F` marks it. */
const ENTRY_MARKS: Readonly<Record<string, string>> = { directory: '/', symlink: '@', other: '?' };

function ListBody({ tool }: { tool: ToolView }) {
  const output = fieldsOf(tool.output);
  if (tool.output === undefined || tool.isError) return null;
  const entries = Array.isArray(output.entries) ? output.entries.map(fieldsOf) : [];
  if (entries.length === 0) return <p className="muted">The folder is empty.</p>;
  const names = entries.map((entry) => `${asText(entry.name)}${ENTRY_MARKS[asText(entry.kind)] ?? ''}`);
  return (
    <>
      <Output label={plural(entries.length, 'entry', 'entries')} text={names.join('\n')} />
      {output.truncated === true && <p className="flag">The folder has more entries than the agent saw.</p>}
    </>
  );
}

function FindBody({ tool }: { tool: ToolView }) {
  const output = fieldsOf(tool.output);
  if (tool.output === undefined || tool.isError) return null;
  const paths = Array.isArray(output.paths) ? output.paths.map(asText) : [];
  if (paths.length === 0) return <p className="muted">No file matches.</p>;
  return (
    <>
      <Output label={plural(paths.length, 'file', 'files')} text={paths.join('\n')} />
      {output.truncated === true && <p className="flag">More files match than the agent saw.</p>}
    </>
  );
}

function SearchBody({ tool }: { tool: ToolView }) {
  const output = fieldsOf(tool.output);
  if (tool.output === undefined || tool.isError) return null;
  const matches = Array.isArray(output.matches) ? output.matches.map(fieldsOf) : [];
  if (matches.length === 0) return <p className="muted">No matches.</p>;
  const lines = matches.map((match) => `${asText(match.path)}:${asText(match.line)}: ${asText(match.text)}`);
  return (
    <>
      <Output label={plural(matches.length, 'match', 'matches')} text={lines.join('\n')} />
      {output.truncated === true && <p className="flag">There were more matches than the agent saw.</p>}
    </>
  );
}

/** The agent's plan as a checklist: the whole plan, as this call set it. */
function PlanBody({ tool }: { tool: ToolView }) {
  const steps = planSteps(tool.input);
  if (tool.isError || steps.length === 0) return null;
  return <PlanChecklist steps={steps} />;
}

/**
 * An MCP server's tool: the arguments the agent gave it and the text the server answered, a
 * failure the server reported shown as one. What the text says is the server's word.
 */
function McpBody({ tool }: { tool: ToolView }) {
  const outcome = mcpCallOutcome(tool.output);
  return (
    <>
      <Output label="arguments" text={mcpArgumentsText(tool.input)} />
      {outcome?.kind === 'answer' && (
        <>
          {outcome.text === '' ? (
            <p className="muted">The server answered with no text.</p>
          ) : (
            <Output label={outcome.isError ? 'the server’s error' : 'result'} text={outcome.text} />
          )}
          {outcome.isError && (
            <p className="refusal" role="note">
              The server says the call failed.
            </p>
          )}
          {outcome.truncated && <p className="flag">The result was cut; the agent saw only its start.</p>}
        </>
      )}
    </>
  );
}

const plural = (count: number, one: string, many: string): string => `${count} ${count === 1 ? one : many}`;

/** How an explorer's call ended, as its line marks it, and what a screen reader says for the mark. */
function callMark(call: ToolView): { mark: string; label: string; state: string } {
  if (call.output === undefined) return { mark: '…', label: 'running', state: 'running' };
  if (call.isError) return { mark: '✗', label: isToolFailure(call.output) ? 'failed' : 'refused', state: 'refused' };
  return { mark: '✓', label: 'done', state: 'done' };
}

/** One of an explorer's calls: a line (how it ended, the tool, its path or pattern) that opens into its card. */
function ExploreCall({ call }: { call: ToolView }) {
  const [open, setOpen] = useState(false);
  const mark = callMark(call);
  const title = toolTitle(call, mark.state === 'done');
  return (
    <li className={`explore-call call-${mark.state}`}>
      <button type="button" className="explore-call-line" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="explore-call-mark" aria-hidden="true">
          {mark.mark}
        </span>
        <span className="visually-hidden">{mark.label}: </span>
        <span className="explore-call-tool" title={call.toolName}>
          {title.action}
        </span>
        <code className="explore-call-subject">{title.subject}</code>
        {title.detail}
      </button>
      {open && <ToolCard tool={call} initiallyOpen />}
    </li>
  );
}

/** The task as the explorer got it, wrapped; a long one folded to its start. */
function ExploreTask({ task }: { task: string }) {
  const long = task.split('\n').length > UI_EXPLORE_TASK_FOLD_LINES || task.length > UI_EXPLORE_TASK_FOLD_CHARS;
  const [open, setOpen] = useState(false);
  if (task === '') return null;
  return (
    <div className="explore-task">
      <p className={long && !open ? 'plain-text folded' : 'plain-text'}>{task}</p>
      {long && (
        <button type="button" className="small" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Show less' : 'Show the whole task'}
        </button>
      )}
    </div>
  );
}

/**
 * `explore`: the task, while the explorer works a progress line (its calls so far, the latest in
 * words) over the list of its calls, kept scrolled to the newest; once it answered, its answer as
 * markdown with the list folded to "N tool calls". `runGoing`: the run has not ended, so an
 * explorer without an answer is still at work.
 */
function ExploreBody({ tool, runGoing }: { tool: ToolView; runGoing: boolean }) {
  const calls = tool.subCalls ?? [];
  const outcome = exploreOutcome(tool.output);
  const working = tool.output === undefined && runGoing;
  /** The reader's choice; until they make one the list is open while the explorer works. */
  const [chosen, setChosen] = useState<boolean>();
  const open = chosen ?? working;
  const list = useRef<HTMLOListElement>(null);
  useLayoutEffect(() => {
    if (working && list.current) list.current.scrollTop = list.current.scrollHeight;
  }, [working, calls]);
  const latest = calls.at(-1);
  const count = plural(calls.length, 'tool call', 'tool calls');
  const progress = (
    <>
      {working && <span className="spinner" aria-hidden="true" />}
      <span className="explore-count">{working ? `Exploring…${calls.length === 0 ? '' : ` ${count}`}` : count}</span>
      {working && latest && <span className="explore-latest"> · {exploreCallWords(latest)}</span>}
    </>
  );
  return (
    <>
      <ExploreTask task={exploreTask(tool.input)} />
      {calls.length === 0 ? (
        working && (
          <p className="explore-progress" data-testid="explore-progress">
            {progress}
          </p>
        )
      ) : (
        <>
          <button
            type="button"
            className="explore-progress"
            data-testid="explore-progress"
            aria-expanded={open}
            onClick={() => setChosen(!open)}
          >
            {progress}
            <span className="explore-chevron" aria-hidden="true">
              {open ? '▾' : '▸'}
            </span>
          </button>
          {open && (
            <ol
              ref={list}
              className={working ? 'explore-calls working' : 'explore-calls'}
              aria-label="Explorer’s calls"
            >
              {calls.map((call) => (
                <ExploreCall key={call.toolCallId} call={call} />
              ))}
            </ol>
          )}
        </>
      )}
      {tool.output === undefined &&
        !runGoing &&
        (tool.approval === undefined || tool.approval.state === 'answered') && (
          <p className="muted">The run ended before the explorer answered.</p>
        )}
      {outcome && (
        <div className="explore-answer" data-testid="explore-answer">
          <Markdown text={outcome.answer} />
          {outcome.truncated && (
            <p className="flag">(cut) The answer was longer: this is its start, all the agent saw.</p>
          )}
          {outcome.ended === 'budget' && (
            <p className="muted">The explorer answered early: its step or context budget was spent.</p>
          )}
        </div>
      )}
    </>
  );
}

/** The card's title: what the call does and its key argument, an edit's lines added and removed after it. */
function ToolHeading({ title, name, stat }: { title: ToolTitle; name: string; stat: DiffFile | undefined }) {
  return (
    <>
      <span className="tool-name" title={mcpToolTitle(name) === undefined ? `Tool ${name}` : `MCP server tool ${name}`}>
        {title.action}
      </span>
      {title.subject !== '' &&
        (title.code ? (
          <code className={name === 'run_command' ? 'tool-subject tool-subject-argv' : 'tool-subject'}>
            {title.subject}
          </code>
        ) : (
          <span className="tool-subject">{title.subject}</span>
        ))}
      {title.detail !== '' && <span className="tool-detail">{title.detail}</span>}
      {stat && (
        <span className="tool-stat" data-testid="tool-stat">
          <span className="diff-add-count">+{stat.added}</span> <span className="diff-del-count">−{stat.removed}</span>
        </span>
      )}
    </>
  );
}

/**
 * One tool call: its title (what it did, to what), how it went, and a click away what it asked
 * and what came back. `runGoing`: whether a call without a result is still at work (its run goes,
 * or the answer to its approval starts the run that carries it out); otherwise it was stopped. A
 * call that only looks (READ_ONLY_TOOLS) opens folded unless `initiallyOpen`; a refusal shows
 * folded or not.
 */
export function ToolCard({
  tool,
  runGoing = true,
  initiallyOpen,
}: {
  tool: ToolView;
  runGoing?: boolean;
  initiallyOpen?: boolean;
}) {
  const name = tool.toolName;
  const [open, setOpen] = useState(initiallyOpen ?? !READ_ONLY_TOOLS.has(name));
  const mcpTitle = mcpToolTitle(name);
  // An MCP server's answer is shown whole, a failure it reported marked as one; only a refusal is in words below.
  const mcpOutcome = mcpTitle === undefined ? undefined : mcpCallOutcome(tool.output);
  const answered = mcpOutcome?.kind === 'answer';
  const failed = answered ? mcpOutcome.isError : tool.isError === true;
  const writes = name === 'write_file' || name === 'edit_file';
  // Worked out once per input and output, not on each render of a streaming transcript.
  const preview = tool.previewDiff;
  const diff = useMemo(
    () => (writes ? diffOf(name, tool.input, tool.output, preview) : undefined),
    [writes, name, tool.input, tool.output, preview],
  );
  const stat = useMemo(() => (diff === undefined ? undefined : diffFileOf(diffRows(diffLines(diff)))), [diff]);
  const title = toolTitle(tool, tool.output !== undefined && !failed);
  const body =
    mcpTitle !== undefined ? (
      <McpBody tool={tool} />
    ) : name === 'run_command' ? (
      <CommandBody tool={tool} />
    ) : name === 'read_file' ? (
      <ReadBody tool={tool} />
    ) : writes ? (
      <WriteBody tool={tool} diff={diff} />
    ) : name === 'list_dir' ? (
      <ListBody tool={tool} />
    ) : name === 'search' ? (
      <SearchBody tool={tool} />
    ) : name === 'find_files' ? (
      <FindBody tool={tool} />
    ) : name === 'update_plan' ? (
      <PlanBody tool={tool} />
    ) : name === 'explore' ? (
      <ExploreBody tool={tool} runGoing={runGoing} />
    ) : (
      <>
        <Output label="input" text={asText(tool.input)} />
        {!tool.isError && <Output label="output" text={asText(tool.output)} />}
      </>
    );
  return (
    <article
      className={`tool-card${failed ? ' tool-error' : ''}${open ? ' open' : ''}`}
      aria-label={`Tool ${mcpTitle ?? name}`}
      id={`tool-${tool.key}`}
    >
      <header className="tool-head">
        <button type="button" className="tool-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
          <span className="fold-mark" aria-hidden="true">
            {open ? '▾' : '▸'}
          </span>
          {/* A created file's lines are its title's "(N lines)" already; a diff not worked out has none to count. */}
          <ToolHeading
            title={title}
            name={name}
            stat={tool.isError || stat?.status === 'added' || stat?.counted === false ? undefined : stat}
          />
          <span className={`tool-status${commandFailed(tool) ? ' exit-fail' : ''}`} data-testid="tool-status">
            {statusOf(tool, runGoing)}
          </span>
        </button>
      </header>
      {open && (
        <div className="tool-body">
          {body}
          <p className="tool-raw-name">
            Tool <code>{name}</code>
          </p>
        </div>
      )}
      {tool.isError && !answered && (
        <p className="refusal" role="note">
          {refusalText(tool.output)}
        </p>
      )}
    </article>
  );
}
