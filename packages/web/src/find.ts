/**
 * Find in a session's transcript. The list is virtualized (only the rows near the view are in the
 * DOM), so the browser's own find cannot see most of a long session: this searches the folded
 * items themselves — prompts, replies, reasoning, notices and each tool call's name, input and
 * output (an explorer's answer with it) — case-insensitively, and names the items that hold the
 * text, in order.
 */
import { mcpToolTitle } from './mcp-tool-call.js';
import type { TranscriptItem } from './transcript.js';

/** Every string inside `value` (an object's keys too), one a line. */
function stringsIn(value: unknown, into: string[]): string[] {
  if (typeof value === 'string') into.push(value);
  else if (typeof value === 'number' || typeof value === 'boolean') into.push(String(value));
  else if (Array.isArray(value)) for (const entry of value) stringsIn(entry, into);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, entry] of Object.entries(value)) {
      into.push(key);
      stringsIn(entry, into);
    }
  }
  return into;
}

/** Items are replaced, never changed, when an event touches them: each one's text is worked out once. */
const haystacks = new WeakMap<TranscriptItem, string>();

/** The text of an item a reader may look for, lower-cased; a prompt's comes from `texts`. */
function haystackOf(item: TranscriptItem, texts: ReadonlyMap<string, string>): string {
  if (item.kind === 'user') return (texts.get(item.messageId) ?? '').toLowerCase();
  const cached = haystacks.get(item);
  if (cached !== undefined) return cached;
  let text: string;
  switch (item.kind) {
    case 'assistant':
    case 'reasoning':
      text = item.text;
      break;
    case 'tool':
      // An MCP tool is also found by the title its card shows ("memory › read_graph"); an
      // `explore` call by its task, its answer and the one line each of the explorer's calls shows
      // (what the calls read is the explorer's, not on the card until a call is opened).
      text = [
        item.toolName,
        mcpToolTitle(item.toolName) ?? '',
        ...stringsIn(item.input, []),
        ...stringsIn(item.output, []),
        ...(item.subCalls ?? []).flatMap((call) => [call.toolName, ...stringsIn(call.input, [])]),
      ].join('\n');
      break;
    case 'error':
    case 'retry':
      text = item.message;
      break;
    case 'instructions':
      text = item.paths.join('\n');
      break;
    case 'run-end':
      text = item.files.map((file) => file.path).join('\n');
      break;
    case 'undone':
    case 'rewound':
      text = [...item.restored, ...item.removed, ...item.notUndone].join('\n');
      break;
    case 'compacted':
      text = '';
      break;
  }
  const lowered = text.toLowerCase();
  haystacks.set(item, lowered);
  return lowered;
}

/** The keys of the items holding `query` (case-insensitive), in transcript order; none for an empty query. */
export function findMatches(
  items: readonly TranscriptItem[],
  texts: ReadonlyMap<string, string>,
  query: string,
): string[] {
  const needle = query.toLowerCase();
  if (needle.trim() === '') return [];
  return items.flatMap((item) => (haystackOf(item, texts).includes(needle) ? [item.key] : []));
}
