/**
 * fs-race: the daemon can read userData, so its file tools must hold while another process swaps
 * a workspace directory and a symlink into userData with renameat2(RENAME_EXCHANGE) in a tight
 * loop. Each tool runs many times on a path through the swapped name; the canary key in
 * userData's auth.json is in no result, no userData-only name is ever listed, and userData holds
 * exactly what it held before (no file, temp file or directory written there).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeAttack } from '../../../test/support/attack.js';
import { openDatabase, type SqliteDatabase } from '../src/storage/database.js';
import { SessionStore } from '../src/storage/session-store.js';
import { createFileTools, type FileTools } from '../src/tools/file-tools.js';
import { WorkspaceRoots } from '../src/workspaces/workspace-roots.js';
import { hostWrites } from './support/host-writes.js';
import { makeTempDir } from './support/temp-dir.js';

const CANARY = 'CANARY-3d9a61f0-race';
const USERDATA_ONLY = 'only-in-userdata.txt';
const RACER = resolve(import.meta.dirname, '../../../test/support/rename-exchange-racer.py');
/** Calls of each tool while the swap loops. */
const ROUNDS = 300;

let base: string;
let root: string;
let userData: string;
let db: SqliteDatabase;
let tools: FileTools;
let racer: ChildProcess | undefined;

async function call(name: keyof FileTools, input: Record<string, unknown>): Promise<string> {
  const execute = tools[name].execute as unknown as (input: unknown, options: unknown) => Promise<unknown>;
  return JSON.stringify(await execute(input, { toolCallId: 't', messages: [] }));
}

/** Every path under `dir` with its bytes (directories as names only). */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(`${path}/`, ...snapshot(path));
    else out.push(`${path}=${readFileSync(path, 'hex')}`);
  }
  return out.sort();
}

beforeEach(async () => {
  base = makeTempDir();
  root = join(base, 'ws');
  userData = join(base, 'userdata');
  mkdirSync(join(root, 'bait'), { recursive: true });
  mkdirSync(userData, { mode: 0o700 });
  writeFileSync(join(userData, 'auth.json'), `{"key":"${CANARY}"}\n`, { mode: 0o600 });
  writeFileSync(join(userData, USERDATA_ONLY), 'x');
  // Same name on both sides of the swap: a walk that follows the symlink reads userData's.
  writeFileSync(join(root, 'bait', 'auth.json'), '{"key":"decoy"}\n');
  symlinkSync(userData, join(root, 'link'));
  db = openDatabase(join(base, 'sessions.db'));
  const store = new SessionStore(db);
  const sessionId = store.sessions.create({ provider: 'demo', model: 'demo', workspace: root }).id;
  // The host's own files (its write journal) live apart here, so the snapshot shows only what the swap let through.
  const writer = hostWrites({ userData: join(base, 'host-data'), workspaces: [root] });
  tools = createFileTools({ roots: new WorkspaceRoots([root], writer), workspace: root, sessionId, store });

  const started = spawn('python3', [RACER, 'bait', 'link', '300'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  racer = started;
  await new Promise<void>((ready, fail) => {
    started.stdout.on('data', (chunk: Buffer) => (chunk.toString().includes('racing') ? ready() : undefined));
    started.on('exit', (code) => fail(new Error(`racer exited early (${code})`)));
  });
});

afterEach(async () => {
  if (racer && racer.exitCode === null) {
    const exited = new Promise((done) => racer?.once('exit', done));
    racer.kill('SIGKILL');
    await exited;
  }
  racer = undefined;
  db.close();
  rmSync(base, { recursive: true, force: true });
});

describeAttack('fs-race', 'file tools while a directory and a symlink into userData swap in a loop', () => {
  it('read_file never returns auth.json from userData', async () => {
    const results: string[] = [];
    for (let round = 0; round < ROUNDS; round += 1) results.push(await call('read_file', { path: 'bait/auth.json' }));
    expect(results.join('\n')).not.toContain(CANARY);
  });

  it('list_dir never lists userData', async () => {
    const before = snapshot(userData);
    const results: string[] = [];
    for (let round = 0; round < ROUNDS; round += 1) results.push(await call('list_dir', { path: 'bait' }));
    expect(results.join('\n')).not.toContain(USERDATA_ONLY);
    expect(snapshot(userData)).toEqual(before);
  });

  it('write_file never writes in userData: no file, temp file or directory appears there', async () => {
    const before = snapshot(userData);
    for (let round = 0; round < ROUNDS; round += 1) {
      await call('write_file', { path: `bait/made-${round % 7}/out.txt`, content: `written ${round}` });
      await call('write_file', { path: 'bait/auth.json', content: '{"key":"overwritten"}\n' });
    }
    expect(snapshot(userData)).toEqual(before);
  });

  it('edit_file never reads or rewrites auth.json in userData', async () => {
    const before = snapshot(userData);
    const results: string[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      results.push(await call('edit_file', { path: 'bait/auth.json', old_string: '"key"', new_string: '"key"' }));
    }
    expect(results.join('\n')).not.toContain(CANARY);
    expect(snapshot(userData)).toEqual(before);
  });

  it('the racer really swaps: the directory is seen as a symlink', () => {
    let seen = false;
    for (let tries = 0; tries < 100_000 && !seen; tries += 1) {
      try {
        seen = lstatSync(join(root, 'bait')).isSymbolicLink();
      } catch {
        // Between the two halves of a swap no name is missing (RENAME_EXCHANGE is atomic), but be safe.
      }
    }
    expect(seen).toBe(true);
  });
});
