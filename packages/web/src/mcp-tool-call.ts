/**
 * A call of an MCP server's tool as the transcript shows it: its title ("memory › read_graph",
 * from the model-facing `mcp__memory__read_graph`), and what the daemon stored as its result —
 * the server's answer `{ ok: true, server, tool, text, is_error, truncated }`, or a refusal
 * `{ ok: false, code, message }` (the host ran no tool, or the server failed). Read field by
 * field: the transcript is the daemon's word, shown, never trusted to have a shape.
 */
import { splitMcpToolName } from '@bastion/protocol';

/** How an MCP tool is titled in the UI: the server, then the tool. */
export const MCP_TITLE_SEPARATOR = ' › ';

/** "SERVER › TOOL" for an MCP tool's model-facing name; undefined for every other tool. */
export function mcpToolTitle(toolName: string): string | undefined {
  const split = splitMcpToolName(toolName);
  return split && `${split.server}${MCP_TITLE_SEPARATOR}${split.tool}`;
}

export type McpCallOutcome =
  | { kind: 'answer'; text: string; isError: boolean; truncated: boolean }
  | { kind: 'refusal'; code: string; message: string | undefined };

/** What a finished MCP call's stored output says; undefined while it runs or when it is neither shape. */
export function mcpCallOutcome(output: unknown): McpCallOutcome | undefined {
  if (typeof output !== 'object' || output === null || Array.isArray(output)) return undefined;
  const fields = output as Record<string, unknown>;
  if (fields.ok === true && typeof fields.text === 'string') {
    return {
      kind: 'answer',
      text: fields.text,
      isError: fields.is_error === true,
      truncated: fields.truncated === true,
    };
  }
  if (typeof fields.code === 'string') {
    return {
      kind: 'refusal',
      code: fields.code,
      message: typeof fields.message === 'string' ? fields.message : undefined,
    };
  }
  return undefined;
}

/** A call's arguments as the card shows them: pretty JSON, or nothing for none. */
export function mcpArgumentsText(input: unknown): string {
  if (input === undefined || input === null) return '';
  if (typeof input === 'object' && !Array.isArray(input) && Object.keys(input).length === 0) return '{}';
  return JSON.stringify(input, null, 2);
}
