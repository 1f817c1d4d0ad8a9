/** Test support: the fixture MCP server (test/fixtures/mcp-fixture-server.mjs) as a server's config. */
import { fileURLToPath } from 'node:url';
import type { McpServerConfig } from '@bastion/protocol';

export const MCP_FIXTURE = fileURLToPath(new URL('../fixtures/mcp-fixture-server.mjs', import.meta.url));

/**
 * The fixture named `name`, run in `mode`, with `marker` (an argument it ignores) last on its
 * command line, so a test file's servers are told from every other's (`processesWith`).
 */
export const mcpFixture =
  (marker: string) =>
  (name: string, mode = 'normal'): McpServerConfig => ({
    name,
    command: process.execPath,
    args: [MCP_FIXTURE, mode, marker],
  });
