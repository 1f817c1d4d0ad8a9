/**
 * SECURITY.md, MCP servers (prompts and resources): which characters of the message box an MCP
 * server's prompt wrote, kept through the person's edits, so that an `@SERVER:URI` word in them is
 * never read as the person's own attachment (mentionedResources). Zod-free: the web bundle imports it.
 *
 * An edit is taken as the one change from the longest common start and end of the texts before and
 * after it: the characters outside it keep where they came from, those inside are the person's.
 * Where the change is ambiguous (typing a character beside one like it) the characters counted as
 * typed are still the typed ones, shifted: the result is the text typing them there would give.
 */
import type { AgentRunMcp } from '@bastion/bridge';
import { MCP_PROMPT_MAX_SPANS, type TextSpan } from '@bastion/protocol';

/** `spans` of `before` moved onto `after`: each character kept from `before` keeps its origin. */
export function spansAfterEdit(spans: readonly TextSpan[], before: string, after: string): TextSpan[] {
  if (before === after) return [...spans];
  const shorter = Math.min(before.length, after.length);
  let start = 0;
  while (start < shorter && before[start] === after[start]) start += 1;
  let end = 0;
  while (end < shorter - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end += 1;
  /** `before`'s changed range, and how far what follows it moved. */
  const cutFrom = start;
  const cutTo = before.length - end;
  const shift = after.length - before.length;
  const moved: TextSpan[] = [];
  for (const [from, to] of spans) {
    if (from < cutFrom) moved.push([from, Math.min(to, cutFrom)]);
    if (to > cutTo) moved.push([Math.max(from, cutTo) + shift, to + shift]);
  }
  return joined(moved);
}

/**
 * `spans` of `draft` moved onto `draft.trim()`, the message it sends. (Not spansAfterEdit: taking
 * from both ends is two edits, which it would take as one change of the whole text.)
 */
export function spansOfTrimmed(spans: readonly TextSpan[], draft: string): TextSpan[] {
  const lead = draft.length - draft.trimStart().length;
  const length = draft.trim().length;
  return joined(spans.map(([from, to]) => [Math.max(from - lead, 0), Math.min(to - lead, length)]));
}

/**
 * `mcp` for the box's `draft` as sent (trimmed), with the ranges of it the prompt wrote
 * (`serverSpans`, of `draft`): the daemon keeps them with the message, so that brought back to the
 * box only they count as the server's. More than a message carries are left out: brought back, the
 * message then counts as the server's whole.
 */
export function withPromptSpans(
  mcp: AgentRunMcp,
  serverSpans: readonly TextSpan[] | undefined,
  draft: string,
): AgentRunMcp {
  if (mcp.prompt === undefined || serverSpans === undefined) return mcp;
  const spans = spansOfTrimmed(serverSpans, draft).map(([from, to]): [number, number] => [from, to]);
  return spans.length > MCP_PROMPT_MAX_SPANS ? mcp : { ...mcp, prompt: { ...mcp.prompt, spans } };
}

/**
 * The ranges of a stored prompt's `text` its MCP server's prompt wrote, as stored with it; the
 * whole text for a message stored without them (or with ranges not of this text).
 */
export function storedServerSpans(spans: readonly TextSpan[] | undefined, text: string): TextSpan[] {
  return spans === undefined || spans.some(([, end]) => end > text.length) ? [[0, text.length]] : [...spans];
}

/** Whether `spans` cover every character of a text of `length`. */
export function coversAll(spans: readonly TextSpan[], length: number): boolean {
  let reached = 0;
  for (const [from, to] of joined(spans)) {
    if (from > reached) return false;
    reached = Math.max(reached, to);
  }
  return reached >= length;
}

/** Sorted, without empty ranges, touching ones joined. */
function joined(spans: readonly TextSpan[]): TextSpan[] {
  const sorted = spans.filter(([from, to]) => to > from).sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [from, to] of sorted) {
    const last = out.at(-1);
    if (last !== undefined && from <= last[1]) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}
