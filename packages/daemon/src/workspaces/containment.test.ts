import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { thrownCode as codeOf } from '../../../../test/support/thrown-code.js';
import { workspaceWithOutside } from '../../../../test/support/workspace-fixture.js';
import { resolveContained } from './containment.js';
import { listContainedDir, readContainedFile } from './file-access.js';
import { WorkspaceRoots } from './workspace-roots.js';
import { hostWrites } from '../../test/support/host-writes.js';

let base: string;
let root: string;
let outside: string;

beforeEach(() => {
  base = makeTempDir();
  ({ root, outside } = workspaceWithOutside(base, { 'src/a.txt': 'inside' }, 'CANARY-outside'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('resolveContained', () => {
  it('resolves a relative path inside the root', () => {
    const path = resolveContained(root, 'src/a.txt');
    expect(path.relative).toBe(join('src', 'a.txt'));
    expect(path.exists).toBe(true);
  });

  it('refuses `..` that climbs out of the root', () => {
    expect(codeOf(() => resolveContained(root, '../outside/secret.txt'))).toBe('FS_OUTSIDE_WORKSPACE');
    expect(codeOf(() => resolveContained(root, 'src/../../outside/secret.txt'))).toBe('FS_OUTSIDE_WORKSPACE');
  });

  it('refuses absolute paths outside the root and accepts absolute paths inside it', () => {
    expect(codeOf(() => resolveContained(root, join(outside, 'secret.txt')))).toBe('FS_OUTSIDE_WORKSPACE');
    expect(codeOf(() => resolveContained(root, '/etc/passwd'))).toBe('FS_OUTSIDE_WORKSPACE');
    expect(resolveContained(root, join(root, 'src', 'a.txt')).exists).toBe(true);
  });

  it('refuses a sibling whose name shares the root as a string prefix', () => {
    mkdirSync(`${root}-evil`);
    writeFileSync(`${root}-evil/x`, 'x');
    expect(codeOf(() => resolveContained(root, `${root}-evil/x`))).toBe('FS_OUTSIDE_WORKSPACE');
  });

  it('refuses a symlink inside the workspace that points outside', () => {
    symlinkSync(join(outside, 'secret.txt'), join(root, 'link.txt'));
    symlinkSync(outside, join(root, 'linkdir'));
    expect(codeOf(() => resolveContained(root, 'link.txt'))).toBe('FS_OUTSIDE_WORKSPACE');
    expect(codeOf(() => resolveContained(root, 'linkdir/secret.txt'))).toBe('FS_OUTSIDE_WORKSPACE');
    // a new file under a symlinked directory is judged by the directory's real path
    expect(codeOf(() => resolveContained(root, 'linkdir/new/file.txt'))).toBe('FS_OUTSIDE_WORKSPACE');
  });

  it('treats percent-encoded and unusual names literally, never decoding them', () => {
    const encoded = resolveContained(root, '%2e%2e/%2e%2e/outside/secret.txt');
    expect(encoded.exists).toBe(false);
    expect(encoded.real.startsWith(`${root}/`)).toBe(true);
    expect(codeOf(() => resolveContained(root, '..%2f..%2fetc'))).toBeUndefined();
    expect(codeOf(() => resolveContained(root, 'a\0b'))).toBe('FS_OUTSIDE_WORKSPACE');
  });

  it('resolves a missing file by its nearest existing ancestor', () => {
    const path = resolveContained(root, 'src/new/deeper/file.ts');
    expect(path.exists).toBe(false);
    expect(path.relative).toBe(join('src', 'new', 'deeper', 'file.ts'));
  });

  it('only resolves inside granted roots', () => {
    const roots = new WorkspaceRoots([root], hostWrites({ userData: join(base, 'host-data'), workspaces: [root] }));
    expect(codeOf(() => roots.resolve(outside, 'secret.txt'))).toBe('FS_OUTSIDE_WORKSPACE');
    expect(roots.resolve(root, 'src/a.txt').exists).toBe(true);
  });
});

describe('readContainedFile', () => {
  it('reads and caps at the limit', () => {
    writeFileSync(join(root, 'big.txt'), 'x'.repeat(100));
    const read = readContainedFile(resolveContained(root, 'big.txt'), 10);
    expect(read.content.toString()).toBe('x'.repeat(10));
    expect(read).toMatchObject({ size: 100, truncated: true });
  });

  it('catches a final component swapped for a symlink between check and open (O_NOFOLLOW)', () => {
    const path = resolveContained(root, 'src/a.txt');
    const code = codeOf(() =>
      readContainedFile(path, 1024, {
        afterCheck: () => {
          rmSync(join(root, 'src', 'a.txt'));
          symlinkSync(join(outside, 'secret.txt'), join(root, 'src', 'a.txt'));
        },
      }),
    );
    expect(code).toBe('FS_SYMLINK');
  });

  it('catches a parent directory swapped for a symlink between check and open', () => {
    writeFileSync(join(outside, 'a.txt'), 'CANARY-outside');
    const path = resolveContained(root, 'src/a.txt');
    let content: string | undefined;
    const code = codeOf(() => {
      content = readContainedFile(path, 1024, {
        afterCheck: () => {
          renameSync(join(root, 'src'), join(root, 'src-old'));
          symlinkSync(outside, join(root, 'src'));
        },
      }).content.toString();
    });
    expect(code).toBe('FS_OUTSIDE_WORKSPACE');
    expect(content).toBeUndefined();
  });

  it('refuses a directory and a missing file with their codes', () => {
    expect(codeOf(() => readContainedFile(resolveContained(root, 'src')))).toBe('FS_NOT_A_FILE');
    expect(codeOf(() => readContainedFile(resolveContained(root, 'nope.txt')))).toBe('FS_NOT_FOUND');
  });
});

describe('listContainedDir', () => {
  it('lists sorted entries and caps them', () => {
    for (const name of ['c', 'a', 'b']) writeFileSync(join(root, name), name);
    const all = listContainedDir(resolveContained(root, '.'));
    expect(all.entries.map((e) => e.name)).toEqual(['a', 'b', 'c', 'src']);
    const capped = listContainedDir(resolveContained(root, '.'), 2);
    expect(capped.entries).toHaveLength(2);
    expect(capped.truncated).toBe(true);
  });

  it('refuses a directory swapped for a symlink to outside between check and open', () => {
    const path = resolveContained(root, 'src');
    const code = codeOf(() =>
      listContainedDir(path, 100, {
        afterCheck: () => {
          renameSync(join(root, 'src'), join(root, 'src-old'));
          symlinkSync(outside, join(root, 'src'));
        },
      }),
    );
    expect(code).toBe('FS_SYMLINK');
  });
});
