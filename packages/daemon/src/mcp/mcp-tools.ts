/**
 * The MCP servers' tools, offered to the model as `mcp__SERVER__TOOL`: listed by the host as each
 * run begins (it starts what is not running), called through the host, which checks its policy
 * again and asks the person itself on an `ask` rule. The session's mode gates them like a
 * command outside the read-only set: `read-only` refuses them, `accept-edits` asks first, `auto`
 * runs them. A server cannot write the workspace (its sandbox has it read-only), but what it does
 * inside is its own code, so asking is the default.
 *
 * What it does not catch: what a tool's text says; the model reads it as a tool result.
 */
import type { jsonSchema as JsonSchemaOf } from '@ai-sdk/provider-utils';
import { MCP_CALL_ARGS_MAX_BYTES, mcpToolName } from '@bastion/protocol';
import type { ToolSet } from 'ai';
import type { ToolFactory } from '../agent/run-manager.js';
import { withHostAsks } from '../policy/tool-guard.js';
import { tool } from '../tools/tool.js';
import type { ToolContext } from '../tools/tool-context.js';
import type { McpClient, McpListedServer } from './mcp-client.js';

/** Whether a call must wait for a human, from the session's mode as it is now. Unknown mode: ask. */
function mcpNeedsApproval(context: ToolContext): boolean {
  const mode = context.store.sessions.currentMode(context.sessionId);
  return mode !== 'auto' && mode !== 'read-only';
}

type JsonSchema = Parameters<typeof JsonSchemaOf>[0];

function schemaOf(text: string): JsonSchema {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value;
  } catch {
    // The host sends what the server listed; one that is not an object takes any object.
  }
  return { type: 'object' };
}

function createMcpTools(
  context: ToolContext,
  client: McpClient,
  servers: readonly McpListedServer[],
  jsonSchema: typeof JsonSchemaOf,
): ToolSet {
  const tools: ToolSet = {};
  const workspace = context.workspace;
  if (workspace === null) return tools;
  for (const server of servers) {
    if (server.state !== 'ready') continue;
    for (const listed of server.tools) {
      const name = mcpToolName(server.name, listed.name);
      if (name === undefined) continue;
      const description = `${listed.description || listed.name} (a tool of the MCP server "${server.name}", run by Bastion in a sandbox with no network and the project read-only)`;
      tools[name] = withHostAsks(
        tool<unknown, unknown>({
          description,
          inputSchema: jsonSchema(schemaOf(listed.input_schema)),
          needsApproval: () => mcpNeedsApproval(context),
          execute: async (input, { abortSignal }) => {
            if (context.store.sessions.currentMode(context.sessionId) === 'read-only') {
              return {
                ok: false,
                code: 'MODE_READ_ONLY',
                message: 'the session is read-only: MCP servers\u2019 tools do not run',
              };
            }
            const args = JSON.stringify(input ?? {});
            if (Buffer.byteLength(args) > MCP_CALL_ARGS_MAX_BYTES) {
              return {
                ok: false,
                code: 'MCP_ARGUMENTS_INVALID',
                message: `the arguments are over ${MCP_CALL_ARGS_MAX_BYTES / 1024} KiB`,
              };
            }
            const outcome = await client.call(
              {
                workspaceRoot: workspace,
                server: server.name,
                tool: listed.name,
                arguments: args,
                sessionId: context.sessionId,
                runId: context.runId,
              },
              abortSignal,
            );
            return outcome.ok ? { ...outcome, server: server.name, tool: listed.name } : outcome;
          },
        }),
      );
    }
  }
  return tools;
}

/** The session tools of the workspace's MCP servers; main.ts registers this when the host runs a sandbox. */
export function mcpTools(client: McpClient): ToolFactory {
  return async (context) => {
    if (context.workspace === null) return {};
    const servers = await client.list(context.workspace);
    if (!servers.some((server) => server.state === 'ready' && server.tools.length > 0)) return {};
    // Loaded with the first server's tools, not with the sidecar.
    const { jsonSchema } = await import('@ai-sdk/provider-utils');
    return createMcpTools(context, client, servers, jsonSchema);
  };
}
