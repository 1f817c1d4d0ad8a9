/**
 * How `bastion run` names a file tool's call and what came back, one line each: the file, folder
 * or pattern it is about, and a count (lines read, entries listed, matches found) instead of the
 * raw JSON. An MCP server's tool keeps its JSON input and shows the first line of its answer; a tool
 * this does not know (one added later) keeps its JSON input and "done". An explore call is named by
 * its task's first line and answers with how much the explorer did.
 * A command's output and an explorer's answer are previewed in their first few lines; a plan is
 * listed step by step.
 */
import { CLI_COMMAND_PREVIEW_LINE_CHARS, CLI_COMMAND_PREVIEW_LINES, splitMcpToolName } from '@bastion/protocol';
import { terminalLine } from '@bastion/host';

interface Fields {
  [name: string]: unknown;
}

const fieldsOf = (value: unknown): Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : {};
const plural = (count: number, one: string, many: string): string => `${count} ${count === 1 ? one : many}`;

/** What a call is about, or undefined for a tool whose input is shown as JSON. */
export function toolSubject(name: string, input: unknown): string | undefined {
  const fields = fieldsOf(input);
  const path = typeof fields.path === 'string' ? fields.path : '.';
  switch (name) {
    case 'read_file': {
      const { start_line: start, end_line: end } = fields;
      if (typeof start !== 'number' && typeof end !== 'number') return path;
      return `${path}:${typeof start === 'number' ? start : 1}-${typeof end === 'number' ? end : ''}`;
    }
    case 'list_dir':
    case 'write_file':
      return path;
    case 'edit_file':
      return fields.replace_all === true ? `${path} (every occurrence)` : path;
    case 'find_files': {
      if (typeof fields.pattern !== 'string') return undefined;
      return `${JSON.stringify(fields.pattern)}${path === '.' ? '' : ` in ${path}`}`;
    }
    case 'explore': {
      if (typeof fields.task !== 'string') return undefined;
      const [first = ''] = fields.task.trim().split('\n');
      return `${outputLine(first)}${fields.task.trim().includes('\n') ? ' …' : ''}`;
    }
    case 'search': {
      if (typeof fields.pattern !== 'string') return undefined;
      const where = path === '.' ? '' : ` in ${path}`;
      const glob = typeof fields.glob === 'string' ? ` (${fields.glob})` : '';
      return `${JSON.stringify(fields.pattern)}${where}${glob}`;
    }
    default:
      return undefined;
  }
}

/** What a successful call returned, in a few words. */
export function toolResultSummary(name: string, output: unknown): string {
  const fields = fieldsOf(output);
  const cut = fields.truncated === true;
  switch (name) {
    case 'read_file': {
      if (fields.binary === true) return `binary, ${String(fields.size)} bytes, not read`;
      if (typeof fields.start_line === 'number') {
        const total =
          typeof fields.total_lines === 'number' ? `of ${fields.total_lines}` : 'of a file too long to count';
        return `lines ${fields.start_line}-${String(fields.end_line)} ${total}${cut ? ' (the range was cut)' : ''}`;
      }
      const content = typeof fields.content === 'string' ? fields.content : '';
      const lines = content === '' ? 0 : content.replace(/\n$/, '').split('\n').length;
      return `${plural(lines, 'line', 'lines')}${cut ? ' (the file was cut)' : ''}`;
    }
    case 'list_dir': {
      const entries = Array.isArray(fields.entries) ? fields.entries.length : 0;
      return `${plural(entries, 'entry', 'entries')}${cut ? ' (more not listed)' : ''}`;
    }
    case 'find_files': {
      const paths = Array.isArray(fields.paths) ? fields.paths.length : 0;
      return `${plural(paths, 'file', 'files')}${cut ? ' (more not listed)' : ''}`;
    }
    case 'search': {
      const matches = Array.isArray(fields.matches) ? fields.matches.length : 0;
      return `${plural(matches, 'match', 'matches')}${cut ? ' (more not shown)' : ''}`;
    }
    case 'explore': {
      const calls = typeof fields.tool_calls === 'number' ? fields.tool_calls : 0;
      const early = fields.ended === 'budget' ? ', early: its step or context budget was spent' : '';
      return `answered after ${plural(calls, 'tool call', 'tool calls')}${early}${cut ? ' (the answer was cut)' : ''}`;
    }
    default:
      return splitMcpToolName(name) === undefined ? 'done' : mcpAnswer(fields);
  }
}

/** An MCP server's answer: its first line (inert, cut), or that it answered with an error and its first line. */
function mcpAnswer(fields: Fields): string {
  const text = typeof fields.text === 'string' ? fields.text.trim() : '';
  const [first = ''] = text.split('\n');
  const said = first === '' ? 'no text' : `${outputLine(first)}${text.includes('\n') ? ' …' : ''}`;
  return fields.is_error === true ? `the server answered with an error: ${said}` : `answered: ${said}`;
}

/** How `bastion run` marks a plan step of each status. */
const PLAN_MARKS: Readonly<Record<string, string>> = { completed: '[x]', in_progress: '[>]', pending: '[ ]' };

/**
 * An `update_plan` call's plan: how many steps are done, then each step under its mark ([x] done,
 * [>] in progress, [ ] to do), made inert for the terminal.
 */
export function planLines(input: unknown): string[] {
  const raw = fieldsOf(input).steps;
  const steps = Array.isArray(raw) ? raw.map(fieldsOf) : [];
  const done = steps.filter((step) => step.status === 'completed').length;
  return [
    `[plan] ${done} of ${plural(steps.length, 'step', 'steps')} done`,
    ...steps.map((step) => `  ${PLAN_MARKS[String(step.status)] ?? '[?]'} ${terminalLine(String(step.step))}`),
  ];
}

/**
 * The first lines of a command's output (stdout, then stderr), each made inert for the terminal
 * and cut to a bound, then how many more there were; empty for no output.
 */
export function commandOutputPreview(output: unknown): string[] {
  const fields = fieldsOf(output);
  return textPreview(
    [fields.stdout, fields.stderr]
      .filter((part): part is string => typeof part === 'string' && part !== '')
      .map((part) => part.replace(/\n$/, ''))
      .join('\n'),
  );
}

/** The first lines of an explorer's answer, as a command's output is previewed. */
export function exploreAnswerPreview(output: unknown): string[] {
  const answer = fieldsOf(output).answer;
  return typeof answer === 'string' ? textPreview(answer.trim()) : [];
}

function textPreview(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  const shown = lines.slice(0, CLI_COMMAND_PREVIEW_LINES).map(outputLine);
  const more = lines.length - shown.length;
  return more > 0 ? [...shown, moreLines(more)] : shown;
}

/** A line of a command's output as the terminal shows it: inert, and cut past CLI_COMMAND_PREVIEW_LINE_CHARS. */
export function outputLine(line: string): string {
  const inert = terminalLine(line);
  return inert.length > CLI_COMMAND_PREVIEW_LINE_CHARS ? `${inert.slice(0, CLI_COMMAND_PREVIEW_LINE_CHARS)}…` : inert;
}

/** The line that counts the lines of a command's output not shown. */
export const moreLines = (count: number): string => `… ${plural(count, 'more line', 'more lines')}`;
