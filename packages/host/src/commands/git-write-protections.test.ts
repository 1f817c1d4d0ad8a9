import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '@bastion/test-support';
import {
  GIT_DIR_WRITE_PROTECTED,
  gitWriteProtections,
  LINKED_GIT_DIR_WRITE_PROTECTED,
} from './git-write-protections.js';

let base: string;
let root: string;
const git = (cwd: string, ...args: string[]) =>
  execFileSync(
    'git',
    ['-c', 'user.name=T', '-c', 'user.email=t@example.invalid', '-c', 'protocol.file.allow=always', ...args],
    {
      cwd,
      env: { PATH: process.env.PATH, HOME: base, GIT_CONFIG_NOSYSTEM: '1' },
      stdio: 'ignore',
    },
  );

beforeEach(() => {
  base = makeTempDir('bastion-git-protections-');
  root = join(base, 'ws');
  mkdirSync(root);
});

describe('gitWriteProtections', () => {
  it('denies every configuration entry of the repository’s git directory, and none of its working state', () => {
    git(root, 'init', '-q');
    const { denyWrite, gitDirs } = gitWriteProtections(root, { home: base });
    expect(gitDirs).toEqual([join(root, '.git')]);
    expect(denyWrite).toEqual(GIT_DIR_WRITE_PROTECTED.map((entry) => join(root, '.git', entry)));
    for (const state of ['objects', 'refs', 'logs', 'index', 'HEAD', 'packed-refs', 'rebase-merge'])
      expect(denyWrite).not.toContain(join(root, '.git', state));
  });

  it('nothing for a workspace that is no repository and sits in none', () => {
    expect(gitWriteProtections(root, { home: base })).toEqual({
      denyWrite: [],
      gitDirs: [],
      scan: { repositories: [], gitDirectories: [], nestedProtected: [], complete: true },
    });
  });

  it('a submodule: its `.git` file and its git directory’s configuration denied, its working state and `.git/modules` itself not', () => {
    const upstream = join(base, 'upstream');
    mkdirSync(upstream);
    git(upstream, 'init', '-q');
    git(upstream, 'commit', '-q', '--allow-empty', '-m', 'x');
    git(root, 'init', '-q');
    git(root, 'submodule', '-q', 'add', upstream, 'sub');
    const { denyWrite, gitDirs } = gitWriteProtections(root, { home: base });
    const moduleDir = join(root, '.git', 'modules', 'sub');
    expect(gitDirs).toEqual([join(root, '.git'), moduleDir]);
    expect(denyWrite).toContain(join(root, 'sub', '.git'));
    expect(denyWrite).toEqual(expect.arrayContaining(GIT_DIR_WRITE_PROTECTED.map((entry) => join(moduleDir, entry))));
    for (const state of ['modules', 'modules/sub', 'modules/sub/objects', 'modules/sub/index', 'modules/sub/HEAD'])
      expect(denyWrite).not.toContain(join(root, '.git', state));
  });

  it('a submodule git directory that is not checked out, under a name with slashes, is found and protected', () => {
    git(root, 'init', '-q');
    const moduleDir = join(root, '.git', 'modules', 'libs', 'core');
    git(root, 'init', '-q', '--bare', moduleDir);
    const { denyWrite, gitDirs } = gitWriteProtections(root, { home: base });
    expect(gitDirs).toContain(moduleDir);
    expect(denyWrite).toEqual(expect.arrayContaining([join(moduleDir, 'config'), join(moduleDir, 'hooks')]));
    expect(denyWrite).not.toContain(join(root, '.git', 'modules', 'libs', 'config'));
  });

  it('a linked worktree in the workspace: its `.git` file and its metadata’s commondir, gitdir and config.worktree denied, its HEAD and index not', () => {
    git(root, 'init', '-q');
    git(root, 'commit', '-q', '--allow-empty', '-m', 'x');
    git(root, 'worktree', 'add', '-q', '-b', 'side', 'linked');
    const { denyWrite, gitDirs } = gitWriteProtections(root, { home: base });
    const meta = join(root, '.git', 'worktrees', 'linked');
    expect(gitDirs).toEqual([join(root, '.git')]);
    expect(denyWrite).toEqual(
      expect.arrayContaining([
        join(root, 'linked', '.git'),
        ...LINKED_GIT_DIR_WRITE_PROTECTED.map((entry) => join(meta, entry)),
      ]),
    );
    for (const state of ['worktrees', 'worktrees/linked', 'worktrees/linked/HEAD', 'worktrees/linked/index'])
      expect(denyWrite).not.toContain(join(root, '.git', state));
  });

  it('a repository nested twelve levels below the root is found', () => {
    const deep = join(root, ...'abcdefghijk'.split(''), 'deep');
    mkdirSync(deep, { recursive: true });
    git(deep, 'init', '-q');
    const { denyWrite, gitDirs } = gitWriteProtections(root, { home: base });
    expect(gitDirs).toEqual([join(deep, '.git')]);
    expect(denyWrite).toEqual(GIT_DIR_WRITE_PROTECTED.map((entry) => join(deep, '.git', entry)));
  });

  it('a repository in a package tree — a package’s own, a scoped package’s, a nested package’s and `node_modules`’ own — is found and protected; package contents are not walked', () => {
    const packages = [
      'node_modules/left-pad',
      'node_modules/@scope/pkg',
      'node_modules/a/node_modules/b',
      'node_modules',
    ];
    for (const dir of packages) {
      mkdirSync(join(root, dir), { recursive: true });
      git(join(root, dir), 'init', '-q');
    }
    // Deeper inside a package than its own directory: no one runs git there, and the scan does not look.
    const inside = join(root, 'node_modules', 'left-pad', 'lib', 'deep');
    mkdirSync(inside, { recursive: true });
    git(inside, 'init', '-q');
    const { denyWrite, gitDirs, scan } = gitWriteProtections(root, { home: base });
    expect(gitDirs.sort()).toEqual(packages.map((dir) => join(root, dir, '.git')).sort());
    for (const dir of packages)
      expect(denyWrite).toEqual(
        expect.arrayContaining([join(root, dir, '.git', 'config'), join(root, dir, '.git', 'hooks')]),
      );
    expect(gitDirs).not.toContain(join(inside, '.git'));
    expect(scan.complete).toBe(true);
  });

  it('a bare git directory of any name below the root (`git init --bare lib`) is a git directory of its own: its configuration entries denied, its working state not', () => {
    git(root, 'init', '-q');
    const lib = join(root, 'vendor', 'lib');
    git(root, 'init', '-q', '--bare', lib);
    const { denyWrite, gitDirs, scan } = gitWriteProtections(root, { home: base });
    expect(gitDirs).toEqual(expect.arrayContaining([join(root, '.git'), lib]));
    expect(scan.gitDirectories).toContainEqual({ gitDir: lib, commonDir: lib });
    expect(denyWrite).toEqual(expect.arrayContaining(GIT_DIR_WRITE_PROTECTED.map((entry) => join(lib, entry))));
    for (const state of ['objects', 'refs', 'HEAD', 'description']) expect(denyWrite).not.toContain(join(lib, state));
  });

  it('a hand-made git directory (HEAD and objects, no `.git`) at the workspace root itself: its configuration entries denied', () => {
    writeFileSync(join(root, 'HEAD'), 'ref: refs/heads/main\n');
    for (const dir of ['objects', 'refs', 'src']) mkdirSync(join(root, dir));
    const { denyWrite, gitDirs } = gitWriteProtections(root, { home: base });
    expect(gitDirs).toEqual([root]);
    expect(denyWrite).toEqual(GIT_DIR_WRITE_PROTECTED.map((entry) => join(root, entry)));
  });

  it('a directory with HEAD and a `commondir` is a linked git directory: its commondir, gitdir and config.worktree denied', () => {
    const linked = join(root, 'src');
    mkdirSync(linked);
    writeFileSync(join(linked, 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(linked, 'commondir'), '../elsewhere\n');
    const { denyWrite } = gitWriteProtections(root, { home: base });
    expect(denyWrite).toEqual(
      expect.arrayContaining(LINKED_GIT_DIR_WRITE_PROTECTED.map((entry) => join(linked, entry))),
    );
  });

  it('a package in node_modules that is a bare git directory is found and protected', () => {
    const pkg = join(root, 'node_modules', 'evil');
    mkdirSync(join(root, 'node_modules'));
    git(root, 'init', '-q', '--bare', pkg);
    const { denyWrite, gitDirs } = gitWriteProtections(root, { home: base });
    expect(gitDirs).toEqual([pkg]);
    expect(denyWrite).toEqual(expect.arrayContaining([join(pkg, 'config'), join(pkg, 'hooks')]));
  });

  it('a directory with a HEAD file but neither objects nor commondir is no git directory; nor one with objects alone', () => {
    mkdirSync(join(root, 'a'));
    writeFileSync(join(root, 'a', 'HEAD'), 'x\n');
    mkdirSync(join(root, 'b', 'objects'), { recursive: true });
    expect(gitWriteProtections(root, { home: base }).gitDirs).toEqual([]);
  });

  it('a repository below a directory that looks like a git directory is still found: the scan goes on inside it', () => {
    const bare = join(root, 'decoy');
    git(root, 'init', '-q', '--bare', bare);
    const hidden = join(bare, 'objects', 'hidden');
    mkdirSync(hidden);
    git(hidden, 'init', '-q');
    const { denyWrite, gitDirs } = gitWriteProtections(root, { home: base });
    expect(gitDirs).toEqual(expect.arrayContaining([bare, join(hidden, '.git')]));
    expect(denyWrite).toContain(join(hidden, '.git', 'config'));
  });

  it('records the entries below the root named like a nested protected path (not the root’s, not in a package tree)', () => {
    for (const dir of ['sub', 'a/b', 'node_modules/x']) mkdirSync(join(root, dir), { recursive: true });
    for (const file of [
      'AGENTS.md',
      'sub/AGENTS.md',
      'sub/.envrc',
      'a/b/CLAUDE.md',
      'node_modules/x/AGENTS.md',
      'sub/notes.md',
    ])
      writeFileSync(join(root, file), 'x\n');
    for (const dir of ['a/.vscode', 'a/b/.claude', '.idea']) mkdirSync(join(root, dir));
    const { scan } = gitWriteProtections(root, { home: base });
    expect(scan.nestedProtected.sort()).toEqual(
      ['sub/AGENTS.md', 'sub/.envrc', 'a/b/CLAUDE.md', 'a/.vscode', 'a/b/.claude']
        .map((path) => join(root, path))
        .sort(),
    );
  });

  it('a configured hooks path and include targets inside the workspace, the user config’s relative hooks path too', () => {
    git(root, 'init', '-q');
    git(root, 'config', 'include.path', '../team.gitconfig');
    writeFileSync(join(base, '.gitconfig'), '[core]\n\thooksPath = .githooks\n');
    const { denyWrite } = gitWriteProtections(root, { home: base });
    expect(denyWrite).toEqual(expect.arrayContaining([join(root, 'team.gitconfig'), join(root, '.githooks')]));
  });

  it('a workspace inside a repository: that repository’s hooks path pointing into the workspace', () => {
    const top = base;
    git(top, 'init', '-q');
    git(top, 'config', 'core.hooksPath', 'ws/hooks');
    const { denyWrite, gitDirs } = gitWriteProtections(root, { home: join(base, 'nohome') });
    expect(gitDirs).toEqual([]);
    expect(denyWrite).toEqual([join(root, 'hooks')]);
  });
});
