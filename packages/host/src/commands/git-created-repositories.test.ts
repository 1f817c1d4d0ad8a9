import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '@bastion/test-support';
import { scanGitRepositories } from './git-write-protections.js';
import { watchCreatedRepositories } from './git-created-repositories.js';

let base: string;
let root: string;
let userData: string;
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    env: { PATH: process.env.PATH, HOME: base, GIT_CONFIG_NOSYSTEM: '1' },
    encoding: 'utf8',
  });
const realPath = (path: string) => {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
};
const watch = () =>
  watchCreatedRepositories(scanGitRepositories(root, { home: base }), {
    root,
    home: base,
    writeRoots: [root],
    userData,
    commandId: 'cmd_unit1',
    realPath,
  });

beforeEach(() => {
  base = makeTempDir('bastion-git-created-');
  root = join(base, 'ws');
  userData = join(base, 'userdata');
  mkdirSync(root);
  mkdirSync(userData);
});

describe('watchCreatedRepositories', () => {
  it('rewrites a new repository’s config to exactly its inert keys, as git reads them back, values with quotes, backslashes and newlines included', () => {
    const watcher = watch();
    git(root, 'init', '-q', '-b', 'main', 'sub');
    const sub = join(root, 'sub');
    const inert = [
      ['user.name', 'A "quoted" \\ name'],
      ['remote.we"ird\\name.url', 'https://example.invalid/a b#c;d'],
      ['remote.we"ird\\name.fetch', '+refs/heads/*:refs/remotes/x/*'],
      ['branch.main.remote', 'origin'],
      ['submodule.lib.url', 'line one\nline two'],
    ];
    for (const [key, value] of inert) git(sub, 'config', key as string, value as string);
    for (const [key, value] of [
      ['core.fsmonitor', 'touch x'],
      ['core.hooksPath', '.husky'],
      ['alias.st', '!touch x'],
      ['include.path', '../evil'],
      ['remote.we"ird\\name.uploadpack', 'touch x'],
      ['submodule.lib.update', '!touch x'],
      ['diff.evil.textconv', 'touch x'],
    ])
      git(sub, 'config', key as string, value as string);
    const before = git(sub, 'config', '--list', '--local');
    const notices = watcher.afterCommand();

    const after = git(sub, 'config', '--list', '--local', '-z')
      .split('\0')
      .filter((entry) => entry !== '')
      .map((entry) => entry.split('\n'));
    const keys = after.map(([key]) => key);
    expect(keys.filter((key) => !/^core\.|^extensions\./.test(key as string))).toEqual(inert.map(([key]) => key));
    expect(after.find(([key]) => key === 'user.name')?.[1]).toBe('A "quoted" \\ name');
    expect(
      after
        .find(([key]) => key === 'submodule.lib.url')
        ?.slice(1)
        .join('\n'),
    ).toBe('line one\nline two');
    expect(after.find(([key]) => key === 'remote.we"ird\\name.url')?.[1]).toBe('https://example.invalid/a b#c;d');
    expect(keys).toContain('core.repositoryformatversion');
    expect(notices).toHaveLength(1);
    for (const dropped of ['core.fsmonitor', 'core.hookspath', 'alias.st', 'include.path', 'submodule.lib.update'])
      expect(notices[0]).toContain(dropped);
    const [folder] = readdirSync(join(userData, 'host', 'quarantine'));
    expect(readFileSync(join(userData, 'host', 'quarantine', folder as string, '1', 'config'), 'utf8')).toContain(
      'fsmonitor',
    );
    expect(before).toContain('core.fsmonitor=touch x');
  });

  it('moves every non-sample hook to quarantine and leaves the samples', () => {
    const watcher = watch();
    git(root, 'init', '-q', 'sub');
    const hooks = join(root, 'sub', '.git', 'hooks');
    const samples = readdirSync(hooks);
    writeFileSync(join(hooks, 'pre-commit'), '#!/bin/sh\ntouch x\n', { mode: 0o755 });
    const notices = watcher.afterCommand();
    expect(readdirSync(hooks).sort()).toEqual(samples.sort());
    expect(notices[0]).toContain('hooks/pre-commit');
    const [folder] = readdirSync(join(userData, 'host', 'quarantine'));
    expect(
      readFileSync(join(userData, 'host', 'quarantine', folder as string, '1', 'hooks', 'pre-commit'), 'utf8'),
    ).toBe('#!/bin/sh\ntouch x\n');
  });

  it('removes a new repository’s `objects/info/alternates` and `http-alternates`, keeping them in quarantine', () => {
    const watcher = watch();
    git(root, 'init', '-q', 'sub');
    const info = join(root, 'sub', '.git', 'objects', 'info');
    writeFileSync(join(info, 'alternates'), '/elsewhere/objects\n');
    writeFileSync(join(info, 'http-alternates'), 'https://example.invalid/objects\n');
    const notices = watcher.afterCommand();
    expect(readdirSync(info)).toEqual([]);
    expect(notices[0]).toContain('objects/info/alternates, objects/info/http-alternates');
    const [folder] = readdirSync(join(userData, 'host', 'quarantine'));
    expect(
      readFileSync(
        join(userData, 'host', 'quarantine', folder as string, '1', 'objects', 'info', 'alternates'),
        'utf8',
      ),
    ).toBe('/elsewhere/objects\n');
  });

  it('finds and neutralises a git directory made by hand under `.git/modules/` (no worktree points at it)', () => {
    git(root, 'init', '-q');
    const watcher = watch();
    const moduleDir = join(root, '.git', 'modules', 'evil');
    git(root, 'init', '-q', '--bare', moduleDir);
    git(moduleDir, 'config', 'core.fsmonitor', 'touch x');
    writeFileSync(join(moduleDir, 'hooks', 'post-checkout'), '#!/bin/sh\ntouch x\n', { mode: 0o755 });
    const notices = watcher.afterCommand();
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(moduleDir);
    expect(readFileSync(join(moduleDir, 'config'), 'utf8')).not.toContain('fsmonitor');
    expect(existsSync(join(moduleDir, 'hooks', 'post-checkout'))).toBe(false);
  });

  it('a plain `git init` gets no notice and no quarantine folder', () => {
    const watcher = watch();
    git(root, 'init', '-q', 'sub');
    expect(watcher.afterCommand()).toEqual([]);
    expect(existsSync(join(userData, 'host', 'quarantine'))).toBe(false);
  });

  it('a repository that existed when the watch began is left alone, even with a hook and fsmonitor', () => {
    git(root, 'init', '-q', 'sub');
    const sub = join(root, 'sub');
    git(sub, 'config', 'core.fsmonitor', 'true');
    writeFileSync(join(sub, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\n', { mode: 0o755 });
    const config = readFileSync(join(sub, '.git', 'config'));
    expect(watch().afterCommand()).toEqual([]);
    expect(readFileSync(join(sub, '.git', 'config'))).toEqual(config);
    expect(existsSync(join(sub, '.git', 'hooks', 'pre-commit'))).toBe(true);
  });
});
