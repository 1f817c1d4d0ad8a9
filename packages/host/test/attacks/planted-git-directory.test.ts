/**
 * git-escape through the file tools: a bare git directory planted in the workspace. Git takes any
 * directory holding `HEAD`, `objects/` and `refs/` for a repository of its own before it walks up
 * to the parent's `.git`, and its `config` (`core.worktree = ..`, `core.fsmonitor = <cmd>`) runs
 * <cmd> unsandboxed on the user's next `git status` there. The host's own write path
 * (resolveWritable + writeWorkspaceFile / removeWorkspaceFile, what every file-tool write, undo and
 * rewind goes through) refuses the write that would complete one with FS_PROTECTED, in either
 * order of planting and at the workspace root, and refuses every write and removal inside an
 * existing bare repository; the refused files are not created, the existing ones keep their bytes,
 * and the host's real `git status` there afterwards leaves no marker.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from '@bastion/test-support';
import { beforeEach, expect, it } from 'vitest';
import { describeAttack } from '../../../../test/support/attack.js';
import { thrownCode } from '../../../../test/support/thrown-code.js';
import {
  removeEmptyWorkspaceDirectory,
  removeWorkspaceFile,
  resolveWritable,
  writeWorkspaceFile,
} from '../../src/workspaces/workspace-files.js';
import { hostGitFor } from '../commands/host-git.js';

let base: string;
let marker: string;
const hostGit = hostGitFor(
  () => base,
  () => marker,
);

/** The repro's git directory config: `git status` in its directory runs the marker, outside the sandbox. */
const evilConfig = () =>
  `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = "touch '${marker}'; false"\n`;

/** A file-tool write of `text` at `path` in `root` through the host's write path; its refusal code, if any. */
const write = (root: string, path: string, text: string) =>
  thrownCode(() => writeWorkspaceFile(resolveWritable(root, path), Buffer.from(text)));

beforeEach(() => {
  base = makeTempDir('bastion-planted-git-dir-');
  marker = join(base, 'MARKER');
});

/** A workspace that is a repository with one commit and a `src/` folder. */
function repositoryWorkspace(): string {
  const workspace = join(base, 'ws');
  hostGit.init(workspace);
  mkdirSync(join(workspace, 'src'));
  return workspace;
}

/** `git status` run by the user in `dir` (the host's git, unsandboxed); the marker must stay absent. */
function expectStatusRunsNothing(dir: string): void {
  hostGit(dir, ['status', '--porcelain']);
  expect(existsSync(marker)).toBe(false);
}

describeAttack('git-escape', 'file tools planting a bare git directory the user’s git then runs', () => {
  it('HEAD first: src/HEAD is written, then src/objects/README and src/refs/README are refused with FS_PROTECTED and not created; git status in src runs nothing', () => {
    const workspace = repositoryWorkspace();
    expect(write(workspace, 'src/HEAD', 'ref: refs/heads/main\n')).toBeUndefined();
    expect(write(workspace, 'src/objects/README', 'x')).toBe('FS_PROTECTED');
    expect(write(workspace, 'src/refs/README', 'x')).toBe('FS_PROTECTED');
    expect(write(workspace, 'src/commondir', '.')).toBe('FS_PROTECTED');
    expect(write(workspace, 'src/config', evilConfig())).toBeUndefined();
    for (const name of ['objects', 'refs', 'commondir']) expect(existsSync(join(workspace, 'src', name))).toBe(false);
    expectStatusRunsNothing(join(workspace, 'src'));
  });

  it('objects first: src/objects/README, src/refs/README and src/config are written, then src/HEAD is refused with FS_PROTECTED and not created; git status in src runs nothing', () => {
    const workspace = repositoryWorkspace();
    expect(write(workspace, 'src/objects/README', 'x')).toBeUndefined();
    expect(write(workspace, 'src/refs/README', 'x')).toBeUndefined();
    expect(write(workspace, 'src/config', evilConfig())).toBeUndefined();
    expect(write(workspace, 'src/HEAD', 'ref: refs/heads/main\n')).toBe('FS_PROTECTED');
    expect(write(workspace, 'src/head', 'ref: refs/heads/main\n')).toBe('FS_PROTECTED');
    expect(existsSync(join(workspace, 'src', 'HEAD'))).toBe(false);
    expectStatusRunsNothing(join(workspace, 'src'));
  });

  it('at the root of a workspace with no `.git` of its own (a package folder in a monorepo), in either order: the completing write is refused with FS_PROTECTED; git status there runs nothing', () => {
    const monorepo = join(base, 'monorepo');
    hostGit.init(monorepo);
    const objectsFirst = join(monorepo, 'packages', 'a');
    const headFirst = join(monorepo, 'packages', 'b');
    for (const dir of [objectsFirst, headFirst]) mkdirSync(dir, { recursive: true });

    expect(write(objectsFirst, 'objects/README', 'x')).toBeUndefined();
    expect(write(objectsFirst, 'refs/README', 'x')).toBeUndefined();
    expect(write(objectsFirst, 'config', evilConfig())).toBeUndefined();
    expect(write(objectsFirst, 'HEAD', 'ref: refs/heads/main\n')).toBe('FS_PROTECTED');
    expect(existsSync(join(objectsFirst, 'HEAD'))).toBe(false);

    expect(write(headFirst, 'HEAD', 'ref: refs/heads/main\n')).toBeUndefined();
    expect(write(headFirst, 'objects/README', 'x')).toBe('FS_PROTECTED');
    expect(write(headFirst, 'refs/README', 'x')).toBe('FS_PROTECTED');
    expect(existsSync(join(headFirst, 'objects'))).toBe(false);
    expect(existsSync(join(headFirst, 'refs'))).toBe(false);

    expectStatusRunsNothing(objectsFirst);
    expectStatusRunsNothing(headFirst);
  });

  it('an existing bare repository (`git init --bare lib`): its config, a hook and any other file in it are refused with FS_PROTECTED, keep their bytes or stay absent, and nothing in it is removed', () => {
    const workspace = repositoryWorkspace();
    const lib = join(workspace, 'lib');
    execFileSync('git', ['init', '-q', '--bare', lib], { env: { PATH: process.env.PATH, HOME: base } });
    const config = readFileSync(join(lib, 'config'));
    const description = readFileSync(join(lib, 'description'));

    expect(write(workspace, 'lib/config', evilConfig())).toBe('FS_PROTECTED');
    expect(write(workspace, 'lib/hooks/post-checkout', `#!/bin/sh\ntouch '${marker}'\n`)).toBe('FS_PROTECTED');
    expect(write(workspace, 'lib/description', 'changed')).toBe('FS_PROTECTED');
    // Undo and rewind remove through the same path.
    expect(thrownCode(() => removeWorkspaceFile(resolveWritable(workspace, 'lib/description')))).toBe('FS_PROTECTED');
    expect(removeEmptyWorkspaceDirectory(resolveWritable(workspace, 'lib/refs/tags'))).toBe(false);

    expect(readFileSync(join(lib, 'config'))).toEqual(config);
    expect(readFileSync(join(lib, 'description'))).toEqual(description);
    expect(existsSync(join(lib, 'hooks', 'post-checkout'))).toBe(false);
    expect(existsSync(join(lib, 'refs', 'tags'))).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });

  it('control: ordinary files named HEAD, objects/ or refs/ alone in a folder are written', () => {
    const workspace = repositoryWorkspace();
    expect(write(workspace, 'docs/HEAD', 'a heading\n')).toBeUndefined();
    expect(write(workspace, 'model/objects/user.ts', 'export {};\n')).toBeUndefined();
    expect(write(workspace, 'model/refs/README', 'x')).toBeUndefined();
    expect(readFileSync(join(workspace, 'docs', 'HEAD'), 'utf8')).toBe('a heading\n');
  });
});
