import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuthStore, KEEP, type AuthEntry } from './auth-store.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bastion-auth-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;

describe('AuthStore', () => {
  it('writes auth.json with mode 0600 after every write', async () => {
    const store = new AuthStore(dir);
    await store.set('openai', { type: 'api', key: 'sk-one' });
    expect(mode(store.path)).toBe(0o600);
    await store.set('anthropic', { type: 'api', key: 'sk-two' });
    expect(mode(store.path)).toBe(0o600);
    await store.delete('openai');
    expect(mode(store.path)).toBe(0o600);
    expect(await store.apiKey('anthropic')).toBe('sk-two');
    expect(await store.has('openai')).toBe(false);
  });

  it('refuses to read a file with group or other bits, naming chmod 600, and leaves it untouched', async () => {
    const store = new AuthStore(dir);
    await store.set('openai', { type: 'api', key: 'sk-one' });
    const before = readFileSync(store.path);
    for (const loose of [0o640, 0o604, 0o660, 0o666]) {
      chmodSync(store.path, loose);
      await expect(store.get('openai')).rejects.toMatchObject({
        code: 'SECRETS_FILE_PERMISSIONS',
        message: expect.stringContaining(`chmod 600 ${store.path}`),
      });
      await expect(store.set('openai', { type: 'api', key: 'sk-new' })).rejects.toMatchObject({
        code: 'SECRETS_FILE_PERMISSIONS',
      });
      expect(readFileSync(store.path).equals(before)).toBe(true);
    }
  });

  it('refuses a symlinked auth.json', async () => {
    const target = join(dir, 'elsewhere.json');
    writeFileSync(target, JSON.stringify({ version: 1, entries: {} }), { mode: 0o600 });
    symlinkSync(target, join(dir, 'auth.json'));
    await expect(new AuthStore(dir).get('openai')).rejects.toMatchObject({ code: 'SECRETS_FILE_SYMLINK' });
  });

  it('refuses a corrupt file instead of treating it as empty', async () => {
    writeFileSync(join(dir, 'auth.json'), '{"version":1,"entries":{"openai":{"type":"api"}}}', { mode: 0o600 });
    await expect(new AuthStore(dir).get('openai')).rejects.toMatchObject({ code: 'SECRETS_FILE_CORRUPT' });
  });

  it('concurrent sets keep every key', async () => {
    const store = new AuthStore(dir);
    const ids = Array.from({ length: 40 }, (_, i) => `endpoint-${i}`);
    await Promise.all(ids.map((id) => store.set(id, { type: 'api', key: `key-${id}` })));
    for (const id of ids) expect(await store.apiKey(id)).toBe(`key-${id}`);
  });

  it('compare-and-swap only replaces the entry it expected (a late refresh never overwrites a sign-out)', async () => {
    const store = new AuthStore(dir);
    const first: AuthEntry = { type: 'oauth', access: 'a1', refresh: 'r1', expires: 1, account_id: 'acct' };
    const rotated: AuthEntry = { ...first, access: 'a2', refresh: 'r2', expires: 2 };
    await store.set('chatgpt', first);
    expect(await store.compareAndSwap('chatgpt', first, rotated)).toBe(true);
    // A stale writer still holding `first` loses.
    expect(await store.compareAndSwap('chatgpt', first, { ...first, access: 'stale' })).toBe(false);
    expect(await store.get('chatgpt')).toEqual(rotated);
    await store.delete('chatgpt');
    expect(await store.compareAndSwap('chatgpt', rotated, { ...rotated, access: 'late' })).toBe(false);
    expect(await store.has('chatgpt')).toBe(false);
  });

  it('an entry named constructor (an object property, and a valid endpoint id) holds no key until one is set, and none after it is deleted', async () => {
    const store = new AuthStore(dir);
    await store.set('openai', { type: 'api', key: 'sk-one' });
    for (const name of ['constructor']) {
      expect(await store.has(name)).toBe(false);
      expect(await store.get(name)).toBeUndefined();
      await store.set(name, { type: 'api', key: `sk-${name}` });
      expect(await store.apiKey(name)).toBe(`sk-${name}`);
      await store.delete(name);
      expect(await store.has(name)).toBe(false);
      const file = JSON.parse(readFileSync(store.path, 'utf8')) as { entries: Record<string, unknown> };
      expect(Object.hasOwn(file.entries, name)).toBe(false);
    }
    expect(await store.apiKey('openai')).toBe('sk-one');
  });

  it('KEEP writes nothing', async () => {
    const store = new AuthStore(dir);
    await store.update('openai', () => KEEP);
    expect(() => statSync(store.path)).toThrow();
  });
});
