import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '@bastion/test-support';
import { GIT_LISTING_CACHE_MAX_ROOTS, WRAP_CACHE_RACY_MARGIN_MS } from '@bastion/protocol';
import { DirectoryListingCache } from './directory-listing-cache.js';

let root: string;

beforeEach(() => {
  root = makeTempDir('bastion-listing-cache-');
  mkdirSync(join(root, 'dir', 'sub'), { recursive: true });
  writeFileSync(join(root, 'dir', 'file'), '');
});

/** Let the fixtures' change times fall behind the margin, so their listings may be kept. */
function olderThanTheMargin(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, WRAP_CACHE_RACY_MARGIN_MS * 2));
}

/** One scan of `root` reading `dir`: its entries' names, sorted, and the array itself. */
function scan(cache: DirectoryListingCache, dir: string, scanRoot = root) {
  const reader = cache.begin(scanRoot);
  const entries = reader.read(dir);
  reader.end();
  return {
    entries,
    names: entries?.map((entry) => entry.name).sort(),
    typed: entries?.map((entry) => `${entry.name}/${entry.isDirectory() ? 'd' : 'f'}`).sort(),
  };
}

describe('directory listing cache', () => {
  it('serves the kept listing to the next scan while the directory is unchanged', async () => {
    const cache = new DirectoryListingCache();
    await olderThanTheMargin();
    const first = scan(cache, join(root, 'dir'));
    const second = scan(cache, join(root, 'dir'));
    expect(first.names).toEqual(['file', 'sub']);
    expect(second.entries).toBe(first.entries);
  });

  it.each([
    ['an entry created in it', (dir: string) => writeFileSync(join(dir, '.git'), ''), ['.git/f', 'file/f', 'sub/d']],
    ['an entry removed from it', (dir: string) => rmSync(join(dir, 'file')), ['sub/d']],
    [
      'a directory renamed into it',
      (dir: string) => {
        mkdirSync(join(root, 'elsewhere'));
        renameSync(join(root, 'elsewhere'), join(dir, 'moved'));
      },
      ['file/f', 'moved/d', 'sub/d'],
    ],
    [
      'a file replaced by a directory of the same name',
      (dir: string) => {
        rmSync(join(dir, 'file'));
        mkdirSync(join(dir, 'file'));
      },
      ['file/d', 'sub/d'],
    ],
  ])('reads the directory again after %s, at once after the kept read', async (_name, change, expected) => {
    const cache = new DirectoryListingCache();
    const dir = join(root, 'dir');
    await olderThanTheMargin();
    const kept = scan(cache, dir);
    change(dir);
    const after = scan(cache, dir);
    expect(after.entries).not.toBe(kept.entries);
    expect(after.typed).toEqual(expected);
  });

  it('reads again a directory replaced by another at the same path', async () => {
    const cache = new DirectoryListingCache();
    const dir = join(root, 'dir');
    await olderThanTheMargin();
    const kept = scan(cache, dir);
    renameSync(dir, join(root, 'old'));
    mkdirSync(dir);
    writeFileSync(join(dir, 'other'), '');
    const after = scan(cache, dir);
    expect(after.entries).not.toBe(kept.entries);
    expect(after.names).toEqual(['other']);
  });

  it('keeps no listing of a directory changed within the margin before it was read (a change in the same clock tick might not move its time): the next scan reads it again', () => {
    const cache = new DirectoryListingCache();
    const dir = join(root, 'fresh');
    mkdirSync(dir);
    const first = scan(cache, dir);
    const second = scan(cache, dir);
    expect(second.entries).not.toBe(first.entries);
    writeFileSync(join(dir, '.git'), '');
    expect(scan(cache, dir).names).toEqual(['.git']);
  });

  it('reads a symlink to a directory afresh each time, following it', async () => {
    const cache = new DirectoryListingCache();
    const link = join(root, 'link');
    symlinkSync(join(root, 'dir'), link);
    await olderThanTheMargin();
    const first = scan(cache, link);
    const second = scan(cache, link);
    expect(second.entries).not.toBe(first.entries);
    expect(second.names).toEqual(['file', 'sub']);
  });

  it('answers undefined for a path that is gone or no directory', () => {
    const cache = new DirectoryListingCache();
    expect(scan(cache, join(root, 'missing')).entries).toBeUndefined();
    expect(scan(cache, join(root, 'dir', 'file')).entries).toBeUndefined();
  });

  it("keeps only what a root's last scan read, and listings of at most GIT_LISTING_CACHE_MAX_ROOTS roots", async () => {
    const cache = new DirectoryListingCache();
    const dir = join(root, 'dir');
    await olderThanTheMargin();
    const kept = scan(cache, dir);
    // A scan of the same root that does not read `dir` drops it.
    scan(cache, join(root, 'dir', 'sub'));
    expect(scan(cache, dir).entries).not.toBe(kept.entries);
    const again = scan(cache, dir);
    for (let i = 0; i < GIT_LISTING_CACHE_MAX_ROOTS; i += 1) scan(cache, dir, `/other-root-${i}`);
    expect(scan(cache, dir).entries).not.toBe(again.entries);
  });
});
