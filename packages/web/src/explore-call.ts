/**
 * The `explore` tool's card, the pure part: the task it was given, what its output says once the
 * explorer answered, and what the explorer's calls do, in words for the card's progress line.
 */
import type { ExploreOutput } from '@bastion/protocol';
import type { ToolView } from './transcript.js';

interface Fields {
  [name: string]: unknown;
}

function fieldsOf(value: unknown): Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : {};
}

const textOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The task an `explore` call's input hands the explorer ('' while its input has none). */
export function exploreTask(input: unknown): string {
  return textOf(fieldsOf(input).task)?.trim() ?? '';
}

/** An `explore` call's output when the explorer answered; undefined while it runs, for a refusal or another shape. */
export function exploreOutcome(output: unknown): ExploreOutput | undefined {
  const fields = fieldsOf(output);
  const answer = textOf(fields.answer);
  if (answer === undefined || fields.ok === false) return undefined;
  const count = (value: unknown) => (typeof value === 'number' ? value : 0);
  return {
    answer,
    truncated: fields.truncated === true,
    steps: count(fields.steps),
    tool_calls: count(fields.tool_calls),
    ended: fields.ended === 'budget' ? 'budget' : 'answered',
  };
}

/** " in PATH" when a call names a folder other than the workspace's root. */
function within(input: Fields): string {
  const path = textOf(input.path);
  return path === undefined || path === '.' || path === '' ? '' : ` in ${path}`;
}

/**
 * What an explorer's call does, in words: "reading src/app.ts", "listing src", "searching for
 * TODO in src", "finding files *.test.ts". A tool an explorer does not have is named as it is.
 */
export function exploreCallWords(call: Pick<ToolView, 'toolName' | 'input'>): string {
  const input = fieldsOf(call.input);
  const pattern = textOf(input.pattern) ?? '';
  switch (call.toolName) {
    case 'read_file':
      return `reading ${textOf(input.path) ?? 'a file'}`;
    case 'list_dir':
      return `listing ${textOf(input.path) ?? '.'}`;
    case 'search':
      return `searching for ${pattern}${within(input)}`;
    case 'find_files':
      return `finding files ${pattern}${within(input)}`;
    default:
      return call.toolName;
  }
}
