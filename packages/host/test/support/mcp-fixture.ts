/** Test support: the fixture MCP server (test/fixtures/mcp-fixture-server.mjs) as a server's config. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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

/** The URIs the fixture server `server` of the host at `userData` was asked to read, in order (its reads.log). */
export function fixtureReads(userData: string, server: string): string[] {
  const log = join(userData, 'host', 'mcp-data', server, 'reads.log');
  return existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
}
