import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '@bastion/test-support';
import { thrownCode as codeOf } from '../../../../test/support/thrown-code.js';
import { workspaceWithOutside } from '../../../../test/support/workspace-fixture.js';
import {
  removeEmptyWorkspaceDirectory,
  removeWorkspaceFile,
  resolveWritable,
  writeWorkspaceFile,
} from './workspace-files.js';

let root: string;
let outside: string;

beforeEach(() => {
  const base = makeTempDir('bastion-workspace-files-');
  ({ root, outside } = workspaceWithOutside(base, { 'src/a.txt': 'inside' }, 'CANARY-outside'));
});

describe('resolveWritable', () => {
  it('refuses `..`, an absolute path elsewhere, a NUL and a symlink to outside with FS_OUTSIDE_WORKSPACE', () => {
    symlinkSync(outside, join(root, 'out'));
    for (const path of ['../outside/secret.txt', outside, 'src/\0x', 'out/secret.txt', 'out/new.txt']) {
      expect(
        codeOf(() => resolveWritable(root, path)),
        path,
      ).toBe('FS_OUTSIDE_WORKSPACE');
    }
  });
});

describe('writeWorkspaceFile', () => {
  it('writes atomically, creating parents, and leaves no temp file', () => {
    const result = writeWorkspaceFile(resolveWritable(root, 'src/new/b.txt'), Buffer.from('hello'));
    expect(result).toEqual({ bytes: 5, created: true });
    expect(readFileSync(join(root, 'src/new/b.txt'), 'utf8')).toBe('hello');
    expect(readdirSync(join(root, 'src/new'))).toEqual(['b.txt']);
  });

  it('refuses protected paths and leaves their bytes unchanged', () => {
    mkdirSync(join(root, '.git'));
    writeFileSync(join(root, '.git', 'config'), 'original');
    writeFileSync(join(root, '.env'), 'KEY=1');
    for (const target of [
      '.git/config',
      '.env',
      '.GIT/config',
      'src/../.env',
      '.vscode/settings.json',
      '.vscode/tasks.json',
      '.claude/settings.json',
    ]) {
      expect(
        codeOf(() => writeWorkspaceFile(resolveWritable(root, target), Buffer.from('clobbered'))),
        target,
      ).toBe('FS_PROTECTED');
    }
    expect(readFileSync(join(root, '.git', 'config'), 'utf8')).toBe('original');
    expect(readFileSync(join(root, '.env'), 'utf8')).toBe('KEY=1');
    expect(existsSync(join(root, '.vscode'))).toBe(false);
    expect(existsSync(join(root, '.claude'))).toBe(false);
  });

  it('refuses an innocent name that is a symlink to a protected file', () => {
    mkdirSync(join(root, '.git'));
    writeFileSync(join(root, '.git', 'config'), 'original');
    symlinkSync(join(root, '.git', 'config'), join(root, 'notes.txt'));
    expect(codeOf(() => writeWorkspaceFile(resolveWritable(root, 'notes.txt'), Buffer.from('x')))).toBe('FS_PROTECTED');
    expect(readFileSync(join(root, '.git', 'config'), 'utf8')).toBe('original');
  });

  it('refuses a protected name that is a symlink to an innocent file', () => {
    writeFileSync(join(root, 'plain.txt'), 'plain');
    symlinkSync(join(root, 'plain.txt'), join(root, '.npmrc'));
    expect(codeOf(() => writeWorkspaceFile(resolveWritable(root, '.npmrc'), Buffer.from('x')))).toBe('FS_PROTECTED');
    expect(readFileSync(join(root, 'plain.txt'), 'utf8')).toBe('plain');
  });

  it('refuses over-limit content and keeps the old bytes', () => {
    expect(codeOf(() => writeWorkspaceFile(resolveWritable(root, 'src/a.txt'), Buffer.alloc(2 * 1024 * 1024)))).toBe(
      'FS_TOO_LARGE',
    );
    expect(readFileSync(join(root, 'src', 'a.txt'), 'utf8')).toBe('inside');
  });

  it('refuses when the parent is swapped for a symlink to outside, writing nothing outside', () => {
    const path = resolveWritable(root, 'src/a.txt');
    const code = codeOf(() =>
      writeWorkspaceFile(path, Buffer.from('pwned'), {
        afterCheck: () => {
          renameSync(join(root, 'src'), join(root, 'src-old'));
          symlinkSync(outside, join(root, 'src'));
        },
      }),
    );
    expect(code).toBe('FS_OUTSIDE_WORKSPACE');
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    expect(readFileSync(join(root, 'src-old', 'a.txt'), 'utf8')).toBe('inside');
  });
});

describe('a write the person was shown a diff for', () => {
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

  it('is made over the file as shown (its sha256), and over no file when none was shown (null)', () => {
    writeWorkspaceFile(resolveWritable(root, 'src/a.txt'), Buffer.from('approved'), { shownSha256: sha256('inside') });
    expect(readFileSync(join(root, 'src', 'a.txt'), 'utf8')).toBe('approved');
    writeWorkspaceFile(resolveWritable(root, 'src/new.txt'), Buffer.from('fresh'), { shownSha256: null });
    expect(readFileSync(join(root, 'src', 'new.txt'), 'utf8')).toBe('fresh');
  });

  it('is refused with FS_CHANGED_SINCE_SHOWN over a file changed, made or removed since, which keeps its bytes and gets no temp file', () => {
    const path = resolveWritable(root, 'src/a.txt');
    const changed = codeOf(() =>
      writeWorkspaceFile(path, Buffer.from('approved'), {
        shownSha256: sha256('inside'),
        afterCheck: () => writeFileSync(join(root, 'src', 'a.txt'), 'edited meanwhile'),
      }),
    );
    expect(changed).toBe('FS_CHANGED_SINCE_SHOWN');
    expect(readFileSync(join(root, 'src', 'a.txt'), 'utf8')).toBe('edited meanwhile');

    writeFileSync(join(root, 'src', 'made.txt'), 'made meanwhile');
    expect(
      codeOf(() =>
        writeWorkspaceFile(resolveWritable(root, 'src/made.txt'), Buffer.from('approved'), { shownSha256: null }),
      ),
    ).toBe('FS_CHANGED_SINCE_SHOWN');
    expect(readFileSync(join(root, 'src', 'made.txt'), 'utf8')).toBe('made meanwhile');

    writeFileSync(join(root, 'src', 'gone.txt'), 'shown');
    const gone = resolveWritable(root, 'src/gone.txt');
    rmSync(join(root, 'src', 'gone.txt'));
    expect(codeOf(() => writeWorkspaceFile(gone, Buffer.from('approved'), { shownSha256: sha256('shown') }))).toBe(
      'FS_CHANGED_SINCE_SHOWN',
    );
    expect(existsSync(join(root, 'src', 'gone.txt'))).toBe(false);
    expect(readdirSync(join(root, 'src')).sort()).toEqual(['a.txt', 'made.txt']);
  });
});

describe('a write that fails after making folders for its file', () => {
  const shownElsewhere = createHash('sha256').update('another file').digest('hex');
  /** A write of `path` refused with FS_CHANGED_SINCE_SHOWN once its folders are made (it was shown over a file now gone). */
  const failingWrite = (path: string, afterWalk?: () => void) =>
    codeOf(() =>
      writeWorkspaceFile(resolveWritable(root, path), Buffer.from('approved'), {
        shownSha256: shownElsewhere,
        ...(afterWalk ? { afterWalk } : {}),
      }),
    );

  it('removes every folder it made, and keeps the folders that were there with their files', () => {
    expect(failingWrite('src/a/b/c/new.txt', () => expect(existsSync(join(root, 'src/a/b/c'))).toBe(true))).toBe(
      'FS_CHANGED_SINCE_SHOWN',
    );
    expect(existsSync(join(root, 'src', 'a'))).toBe(false);
    expect(readdirSync(join(root, 'src'))).toEqual(['a.txt']);
    expect(readFileSync(join(root, 'src', 'a.txt'), 'utf8')).toBe('inside');

    mkdirSync(join(root, 'empty'));
    expect(failingWrite('empty/new/x.txt')).toBe('FS_CHANGED_SINCE_SHOWN');
    expect(readdirSync(join(root, 'empty'))).toEqual([]);
  });

  it('keeps a folder it made that something else put a file in meanwhile, removing the empty ones below it', () => {
    expect(failingWrite('made/deeper/x.txt', () => writeFileSync(join(root, 'made', 'other.txt'), 'theirs'))).toBe(
      'FS_CHANGED_SINCE_SHOWN',
    );
    expect(readdirSync(join(root, 'made'))).toEqual(['other.txt']);
  });

  it('keeps an empty folder swapped in under the name of one it made', () => {
    expect(
      failingWrite('made/x.txt', () => {
        renameSync(join(root, 'made'), join(root, 'moved'));
        mkdirSync(join(root, 'made'));
      }),
    ).toBe('FS_CHANGED_SINCE_SHOWN');
    expect(lstatSync(join(root, 'made')).isDirectory()).toBe(true);
    expect(readdirSync(join(root, 'made'))).toEqual([]);
  });
});

describe('removals', () => {
  it('removes a regular file and refuses a protected one, which keeps its bytes', () => {
    writeFileSync(join(root, '.envrc'), 'use nix');
    removeWorkspaceFile(resolveWritable(root, 'src/a.txt'));
    expect(existsSync(join(root, 'src', 'a.txt'))).toBe(false);
    expect(codeOf(() => removeWorkspaceFile(resolveWritable(root, '.envrc')))).toBe('FS_PROTECTED');
    expect(readFileSync(join(root, '.envrc'), 'utf8')).toBe('use nix');
  });

  it('never removes through a symlink: a created directory swapped for a link to an empty outside directory leaves both', () => {
    mkdirSync(join(outside, 'target'));
    symlinkSync(join(outside, 'target'), join(root, 'made'));
    const swapped = { root, real: join(root, 'made'), relative: 'made', requested: 'made' };
    expect(removeEmptyWorkspaceDirectory(swapped)).toBe(false);
    expect(lstatSync(join(root, 'made')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(outside, 'target')).isDirectory()).toBe(true);
  });

  it('removes an empty directory, and keeps one that holds anything', () => {
    mkdirSync(join(root, 'empty'));
    expect(removeEmptyWorkspaceDirectory(resolveWritable(root, 'empty'))).toBe(true);
    expect(existsSync(join(root, 'empty'))).toBe(false);
    expect(removeEmptyWorkspaceDirectory(resolveWritable(root, 'src'))).toBe(false);
    expect(readFileSync(join(root, 'src', 'a.txt'), 'utf8')).toBe('inside');
  });
});
