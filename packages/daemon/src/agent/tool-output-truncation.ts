/**
 * What the model sees of a tool's result: a result whose JSON is longer than
 * TOOL_MODEL_OUTPUT_MAX_CHARS has its longest strings cut in the middle (head and tail kept) with
 * a note saying how much was left out and how to see it. Only the copy sent to the model is cut:
 * the stored transcript, the events and the UI keep the tool's whole (already bounded) output.
 */
import type { ModelMessage } from 'ai';
import { TOOL_MODEL_OUTPUT_MAX_CHARS } from '@bastion/protocol';

type ToolMessage = Extract<ModelMessage, { role: 'tool' }>;
type ToolOutput = Extract<ToolMessage['content'][number], { type: 'tool-result' }>['output'];

/** Room kept for each note inside the bound. */
const NOTE_ALLOWANCE_CHARS = 400;

export function truncationNote(omitted: number): string {
  return `\n[... ${omitted} characters cut here for the model's context; the user sees the whole output. To see this part, ask for less at a time: read_file with start_line and end_line, a narrower search, or run the command with a filter (grep, head, tail, sed -n 'A,Bp').]\n`;
}

/** `text` cut to about `keep` characters: its head and tail around a note. */
export function cutMiddle(text: string, keep: number): string {
  if (text.length <= keep) return text;
  const head = Math.ceil(keep / 2);
  const tail = Math.max(0, keep - head);
  return `${text.slice(0, head)}${truncationNote(text.length - head - tail)}${text.slice(text.length - tail)}`;
}

interface StringLeaf {
  text: string;
  /** Its length as JSON (escapes included). */
  size: number;
  replace: (text: string) => void;
}

function collectStrings(value: unknown, leaves: StringLeaf[]): unknown {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    const copy: unknown[] = value.map((item) => collectStrings(item, leaves));
    copy.forEach((item, index) => {
      if (typeof item === 'string')
        leaves.push({ text: item, size: JSON.stringify(item).length, replace: (text) => (copy[index] = text) });
    });
    return copy;
  }
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      copy[key] = collectStrings(item, leaves);
      const kept = copy[key];
      if (typeof kept === 'string')
        leaves.push({ text: kept, size: JSON.stringify(kept).length, replace: (text) => (copy[key] = text) });
    }
    return copy;
  }
  return value;
}

/** Tries at shrinking a cut string until its JSON fits: each one measures the last. */
const FIT_ATTEMPTS = 6;

/**
 * `text` (`size` characters as JSON) cut in the middle so its JSON fits `share` characters, as
 * nearly as escapes allow. Escapes make JSON longer than the text, and unevenly (a head of short
 * lines holds more newlines than the average), so each cut is measured and, when over, cut again
 * by the share it overshot.
 */
function cutToJsonSize(text: string, size: number, share: number): string {
  let keep = Math.floor(((share - NOTE_ALLOWANCE_CHARS) * text.length) / size);
  let cut = cutMiddle(text, Math.max(0, keep));
  for (let attempt = 0; attempt < FIT_ATTEMPTS && keep > 0; attempt += 1) {
    const over = JSON.stringify(cut).length - share;
    if (over <= 0) break;
    keep = Math.floor((keep * (share - NOTE_ALLOWANCE_CHARS)) / (share - NOTE_ALLOWANCE_CHARS + over));
    cut = cutMiddle(text, Math.max(0, keep));
  }
  return cut;
}

/**
 * `value` with its strings cut so its JSON fits `max` characters: each string gets a fair share of
 * what the rest of the value leaves (short strings keep theirs whole, the long ones share the rest).
 * Undefined when cutting strings cannot make it fit (a value of many small parts).
 */
function fitStrings(value: unknown, max: number): unknown {
  const leaves: StringLeaf[] = [];
  const copy = collectStrings(value, leaves);
  if (typeof copy === 'string') {
    const cut = cutMiddle(copy, Math.max(0, max - NOTE_ALLOWANCE_CHARS));
    return JSON.stringify(cut).length <= max ? cut : undefined;
  }
  const total = JSON.stringify(copy).length;
  const fixed = total - leaves.reduce((sum, leaf) => sum + leaf.size, 0);
  let remaining = max - fixed;
  const bySize = [...leaves].sort((a, b) => a.size - b.size);
  for (const [index, leaf] of bySize.entries()) {
    const share = Math.floor(remaining / (bySize.length - index));
    if (leaf.size <= share) {
      remaining -= leaf.size;
      continue;
    }
    leaf.replace(cutToJsonSize(leaf.text, leaf.size, share));
    remaining -= share;
  }
  return JSON.stringify(copy).length <= max ? copy : undefined;
}

/** A tool result's output as the model is given it (unchanged when it fits). */
export function truncateToolOutput(output: ToolOutput, max: number = TOOL_MODEL_OUTPUT_MAX_CHARS): ToolOutput {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value.length <= max
        ? output
        : { ...output, value: cutMiddle(output.value, max - NOTE_ALLOWANCE_CHARS) };
    case 'json':
    case 'error-json': {
      const json = JSON.stringify(output.value);
      if (json.length <= max) return output;
      const fitted = fitStrings(output.value, max);
      if (fitted !== undefined) return { type: output.type, value: fitted as typeof output.value };
      // Nothing long enough to cut: the JSON itself, as text, cut in the middle.
      return {
        type: output.type === 'json' ? 'text' : 'error-text',
        value: cutMiddle(json, max - NOTE_ALLOWANCE_CHARS),
      };
    }
    case 'content':
    case 'execution-denied':
      return output;
  }
}

/**
 * `messages` with every tool result's output as the model is given it, each at most `max`
 * characters; a message that needs no cut is the same object.
 */
export function truncateToolResults(
  messages: readonly ModelMessage[],
  max: number = TOOL_MODEL_OUTPUT_MAX_CHARS,
): ModelMessage[] {
  return messages.map((message) => {
    if (message.role !== 'tool') return message;
    let changed = false;
    const content = message.content.map((part) => {
      if (part.type !== 'tool-result') return part;
      const output = truncateToolOutput(part.output, max);
      if (output === part.output) return part;
      changed = true;
      return { ...part, output };
    });
    return changed ? { ...message, content } : message;
  });
}
