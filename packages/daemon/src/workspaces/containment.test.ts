import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { thrownCode as codeOf } from '../../../../test/support/thrown-code.js';
import { workspaceWithOutside } from '../../../../test/support/workspace-fixture.js';
import { resolveContained } from './containment.js';
import { listContainedDir, readContainedFile, readContainedLines } from './file-access.js';
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

describe('readContainedLines', () => {
  /** `count` numbered lines, `line N` each, every one ending in a newline. */
  const numbered = (count: number) => Array.from({ length: count }, (_, index) => `line ${index + 1}\n`).join('');
  const read = (
    name: string,
    start: number,
    end: number | undefined,
    bounds: Parameters<typeof readContainedLines>[2],
  ) => readContainedLines(resolveContained(root, name), { start, end }, bounds);

  it('finds a range anywhere in the file, scanning it in chunks smaller than a line, and counts all its lines', () => {
    writeFileSync(join(root, 'n.txt'), numbered(5000));
    const lines = read('n.txt', 4998, 4999, { maxBytes: 1024, chunkBytes: 3 });
    expect(lines.content.toString()).toBe('line 4998\nline 4999\n');
    expect(lines).toMatchObject({ start: 4998, end: 4999, totalLines: 5000, truncated: false });
    expect(read('n.txt', 5000, undefined, { maxBytes: 1024 }).content.toString()).toBe('line 5000\n');
  });

  it('takes the last line with no final newline as a line, and refuses a start past it with the count', () => {
    writeFileSync(join(root, 'n.txt'), 'one\ntwo');
    expect(read('n.txt', 2, 9, { maxBytes: 1024 })).toMatchObject({ end: 2, totalLines: 2, truncated: false });
    expect(read('n.txt', 2, 9, { maxBytes: 1024 }).content.toString()).toBe('two');
    expect(() => read('n.txt', 3, undefined, { maxBytes: 1024 })).toThrow(
      'start_line 3 is past the end: the file has 2 lines',
    );
  });

  it('cuts a range over maxBytes at its last whole line, saying truncated and the last line it holds', () => {
    writeFileSync(join(root, 'n.txt'), numbered(100));
    const lines = read('n.txt', 10, 90, { maxBytes: 25 });
    expect(lines.content.toString()).toBe('line 10\nline 11\nline 12\n');
    expect(lines).toMatchObject({ start: 10, end: 12, totalLines: 100, truncated: true });
  });

  it('reaches scanBytes into the file: a range past them is refused saying so, one running past them is cut, with no line count', () => {
    writeFileSync(join(root, 'n.txt'), numbered(200_000));
    const scanBytes = 1024 * 1024;
    expect(() => read('n.txt', 150_000, undefined, { maxBytes: 1024, scanBytes })).toThrow(
      /^start_line 150000 is past the first 1 MiB of the file, as far as read_file reaches \(\d+ lines there\)$/,
    );
    const lines = read('n.txt', 90_000, undefined, { maxBytes: 1024 * 1024, scanBytes });
    expect(lines.content.toString().startsWith('line 90000\n')).toBe(true);
    expect(lines.totalLines).toBeUndefined();
    expect(lines.truncated).toBe(true);
  });

  it('catches a final component swapped for a symlink between check and open, reading nothing of the outside', () => {
    const path = resolveContained(root, 'src/a.txt');
    const code = codeOf(() =>
      readContainedLines(
        path,
        { start: 1, end: undefined },
        { maxBytes: 1024 },
        {
          afterCheck: () => {
            rmSync(join(root, 'src', 'a.txt'));
            symlinkSync(join(outside, 'secret.txt'), join(root, 'src', 'a.txt'));
          },
        },
      ),
    );
    expect(code).toBe('FS_SYMLINK');
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
