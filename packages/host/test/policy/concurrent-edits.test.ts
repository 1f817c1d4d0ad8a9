/**
 * `bastion mcp add` and `bastion policy add` write mcp.json and policy.json themselves, in their
 * own process, while the running host writes them through its own store (Settings over host IPC,
 * "Always allow…"): each reads the whole file and writes it back. Adds made at the same moment
 * from several processes (the host's store in each, as every writer uses it) must all land: each
 * read-modify-write holds the file's lock (file-lock.ts).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { MCP_MAX_SERVERS } from '@bastion/protocol';
import { makeTempDir } from '@bastion/test-support';
import { takeFileLock } from '../../src/file-lock.js';
import { McpConfigStore } from '../../src/mcp/mcp-config-store.js';
import { PolicyStore } from '../../src/policy/policy-store.js';
import { ensureUserData } from '../../src/user-data.js';

const ADDER = fileURLToPath(new URL('../fixtures/store-adder.mjs', import.meta.url));
const WRITERS = ['a', 'b', 'c', 'd'];
const EACH = MCP_MAX_SERVERS / WRITERS.length;

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  // Only a test that failed midway leaves one running.
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill();
});

/** One adder process; `output` gathers what it prints, `ready` resolves once it waits for the go. */
function startAdder(kind: 'mcp' | 'policy', userData: string, prefix: string) {
  const child = spawn(process.execPath, [ADDER, kind, userData, prefix, String(EACH)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
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

/** Every writer adds EACH entries at the same moment; answers the names the file holds afterwards. */
async function addAtOnce(kind: 'mcp' | 'policy', userData: string): Promise<string[]> {
  const adders = WRITERS.map((prefix) => startAdder(kind, userData, prefix));
  await Promise.all(adders.map((adder) => adder.ready));
  for (const adder of adders) adder.child.stdin.end('go\n');
  await Promise.all(adders.map((adder) => adder.closed));
  for (const adder of adders) expect(adder.output()).toBe(`ready\nadded ${EACH}\n`);
  return kind === 'mcp'
    ? new McpConfigStore(userData).servers().map((server) => server.name)
    : new PolicyStore(userData).read().global.map((rule) => rule.id);
}

const expected = WRITERS.flatMap((prefix) => Array.from({ length: EACH }, (_, i) => `${prefix}-${i + 1}`)).sort();

describe('host-owned files edited from several processes at once', () => {
  for (const [kind, file] of [
    ['mcp', 'mcp.json'],
    ['policy', 'policy.json'],
  ] as const) {
    it(`${WRITERS.length} processes each adding ${EACH} entries to ${file} at the same moment: all ${expected.length} are there and each process said its adds landed`, async () => {
      const userData = join(makeTempDir(`bastion-${kind}-concurrent-`), 'home');
      ensureUserData(userData);
      expect((await addAtOnce(kind, userData)).sort()).toEqual(expected);
    });
  }

  it('an add while another connection holds policy.json’s lock for longer than the wait is refused FILE_EDIT_BUSY, the file keeping its bytes', () => {
    const userData = join(makeTempDir('bastion-policy-busy-'), 'home');
    ensureUserData(userData);
    const store = new PolicyStore(userData);
    store.add({ kind: 'global' }, { id: 'kept', decision: 'deny', command: 'kept' });
    const path = join(userData, 'host', 'policy.json');
    const before = readFileSync(path);
    const held = takeFileLock(`${path}.lock`, 0);
    expect(held).toBeDefined();
    try {
      expect(() => store.add({ kind: 'global' }, { id: 'late', decision: 'deny', command: 'late' })).toThrow(
        expect.objectContaining({ code: 'FILE_EDIT_BUSY' }),
      );
    } finally {
      held?.release();
    }
    expect(readFileSync(path).equals(before)).toBe(true);
    // Once the lock is free the same add goes through.
    store.add({ kind: 'global' }, { id: 'late', decision: 'deny', command: 'late' });
    expect(new PolicyStore(userData).read().global.map((rule) => rule.id)).toEqual(['kept', 'late']);
  });
});
