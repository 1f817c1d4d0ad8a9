/**
 * The rule "Always allow…" offers to save for an approval, for the session's project: a
 * `run_command`'s program and exact arguments as an argv prefix (never a program with no
 * arguments: see below), or an MCP server's tool by its name (every call of it). Zod-free, for the web bundle; `alwaysAllowDraft` (policy.ts) is this
 * checked against the rule schema, and the host checks a rule it is sent against it again.
 */
import { splitMcpToolName } from './mcp-tool-name.js';
import type { PolicyRuleDraft } from './policy.js';

const REASON = 'always allowed from an approval prompt';

export function alwaysAllowRule(toolName: string, input: unknown): PolicyRuleDraft | undefined {
  if (splitMcpToolName(toolName) !== undefined) return { decision: 'allow', tools: [toolName], reason: REASON };
  if (toolName !== 'run_command' || typeof input !== 'object' || input === null) return undefined;
  const { command, args: given } = input as { command?: unknown; args?: unknown };
  const args: unknown[] = Array.isArray(given) ? given : [];
  if (typeof command !== 'string' || command === '') return undefined;
  if (!args.every((arg): arg is string => typeof arg === 'string' && arg !== '')) return undefined;
  // A program alone would be allowed with any arguments at all: `env` or `sh` run any other
  // program, `git` force-pushes main past the built-in deny (a project allow beats it), and so
  // do most programs given the right options (find -exec, make -f, tar --to-command). No list of
  // such programs is complete, so a prompt never offers one; `bastion policy add` still can.
  if (args.length === 0) return undefined;
  return { decision: 'allow', tools: ['run_command'], command, argv_prefix: args, reason: REASON };
}
