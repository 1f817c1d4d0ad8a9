/**
 * The rule "Always allow…" on the agent's approval prompt offers to save, for the session's
 * project: a `run_command`'s program and exact arguments as an argv prefix, or an MCP server's
 * tool by its name (every call of it). The page's own copy of protocol's `alwaysAllowDraft`
 * (which validates with zod, kept out of the web bundle); a test holds the two to the same rules.
 * The host checks whatever is sent against its schema again.
 */
import { splitMcpToolName } from '@bastion/protocol';
import type { PolicyRuleDraft } from '@bastion/bridge';

const REASON = 'always allowed from an approval prompt';

export function alwaysAllowRuleOf(toolName: string, input: unknown): PolicyRuleDraft | undefined {
  if (splitMcpToolName(toolName) !== undefined) return { decision: 'allow', tools: [toolName], reason: REASON };
  if (toolName !== 'run_command' || typeof input !== 'object' || input === null) return undefined;
  const { command, args: given } = input as { command?: unknown; args?: unknown };
  const args: unknown[] = Array.isArray(given) ? given : [];
  if (typeof command !== 'string' || command === '') return undefined;
  if (!args.every((arg): arg is string => typeof arg === 'string' && arg !== '')) return undefined;
  return {
    decision: 'allow',
    tools: ['run_command'],
    command,
    ...(args.length > 0 ? { argv_prefix: args } : {}),
    reason: REASON,
  };
}
