/**
 * `bastion mcp add` writes mcp.json itself, in its own process, while the running host's Settings
 * (host IPC) write it through the host's store: both read the list and write it back whole. Adds
 * made at the same moment from several processes (the host's store in each, as both writers use
 * it) must all land: each read-modify-write holds mcp.json's lock (mcp-config-store.ts).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { MCP_MAX_SERVERS } from '@bastion/protocol';
import { makeTempDir } from '@bastion/test-support';
import { McpConfigStore } from '../../src/mcp/mcp-config-store.js';
import { ensureUserData } from '../../src/user-data.js';

const ADDER = fileURLToPath(new URL('./fixtures/mcp-adder.mjs', import.meta.url));
const WRITERS = ['a', 'b', 'c', 'd'];
const EACH = MCP_MAX_SERVERS / WRITERS.length;

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  // Only a test that failed midway leaves one running.
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill();
});

/** One adder process; `output` gathers what it prints, `ready` resolves once it waits for the go. */
function startAdder(userData: string, prefix: string) {
  const child = spawn(process.execPath, [ADDER, userData, prefix, String(EACH)], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.startsWith('ready\n')) resolve();
    });
    child.once('close', () => reject(new Error(`adder ${prefix} ended before it was ready: ${output}`)));
  });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return { child, ready, closed, output: () => output };
}

describe('mcp.json edited from several processes at once', () => {
  it(`${WRITERS.length} processes each adding ${EACH} servers at the same moment: all ${MCP_MAX_SERVERS} are in mcp.json and each process said its adds landed`, async () => {
    const userData = join(makeTempDir('bastion-mcp-concurrent-'), 'home');
    ensureUserData(userData);
    const adders = WRITERS.map((prefix) => startAdder(userData, prefix));
    await Promise.all(adders.map((adder) => adder.ready));
    for (const adder of adders) adder.child.stdin.end('go\n');
    await Promise.all(adders.map((adder) => adder.closed));

    for (const adder of adders) expect(adder.output()).toBe(`ready\nadded ${EACH}\n`);
    const expected = WRITERS.flatMap((prefix) => Array.from({ length: EACH }, (_, i) => `${prefix}-${i + 1}`));
    const names = new McpConfigStore(userData).servers().map((server) => server.name);
    expect(names.sort()).toEqual(expected.sort());
  });
});
