/**
 * auth.json atomicity with a real process killed mid-write: whatever instant SIGKILL lands, the
 * file afterwards is the old content or a complete new one, never a partial one, still 0600.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { AuthStore } from '../../src/secrets/auth-store.js';

const builtStore = pathToFileURL(resolve(import.meta.dirname, '../../dist/secrets/auth-store.js')).href;
const PAD = 'x'.repeat(4_000);
/** Other entries make every write a few hundred KiB, so a kill often lands inside one. */
const FILLER = Array.from({ length: 80 }, (_, i) => `endpoint-${i}`);

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function writerLoop(userData: string): ReturnType<typeof spawn> {
  const script = `
    const { AuthStore } = await import(${JSON.stringify(builtStore)});
    const store = new AuthStore(${JSON.stringify(userData)});
    process.stdout.write('ready\\n');
    for (let i = 1; ; i += 1) await store.set('openai', { type: 'api', key: 'key-' + i + '-' + ${JSON.stringify(PAD)} });
  `;
  return spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
}

it('a writer killed at random moments leaves the old or the new auth.json, never a partial one', async () => {
  dir = mkdtempSync(join(tmpdir(), 'bastion-kill-'));
  const store = new AuthStore(dir);
  const seed = Object.fromEntries(
    [['openai', `key-0-${PAD}`], ...FILLER.map((id) => [id, `${id}-${PAD}`])].map(([id, key]) => [
      id,
      { type: 'api', key },
    ]),
  );
  writeFileSync(store.path, JSON.stringify({ version: 1, entries: seed }), { mode: 0o600 });
  for (let round = 0; round < 8; round += 1) {
    const child = writerLoop(dir);
    await new Promise<void>((ready) => child.stdout?.once('data', () => ready()));
    await new Promise((wait) => setTimeout(wait, 20 + Math.floor(Math.random() * 150)));
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGKILL');
    await exited;
    const key = await store.apiKey('openai');
    expect(key).toMatch(/^key-\d+-x+$/);
    expect(key?.length).toBeGreaterThan(PAD.length);
    expect(key?.endsWith(PAD)).toBe(true);
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
    const entries = (JSON.parse(readFileSync(store.path, 'utf8')) as { entries: Record<string, { key: string }> })
      .entries;
    for (const id of FILLER) expect(entries[id]?.key).toBe(`${id}-${PAD}`);
  }
  // The next write sweeps any temp file a killed writer left behind (it may hold a key).
  await store.set('anthropic', { type: 'api', key: 'sk-after' });
  expect(readdirSync(dir).filter((name) => name.endsWith('.bastion-tmp'))).toEqual([]);
}, 60_000);
