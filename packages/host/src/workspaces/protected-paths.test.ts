import { describe, expect, it } from 'vitest';
import { isProtectedPath } from './protected-paths.js';

describe('isProtectedPath', () => {
  it.each([
    '.git/config',
    '.git/hooks/pre-commit',
    'sub/.git/HEAD',
    '.hg/hgrc',
    'vendor/.svn/entries',
    '.git',
    '.gitconfig',
    '.gitmodules',
    'pkg/.gitattributes',
    '.env',
    '.env.local',
    'app/.env.production',
    '.envrc',
    '.bashrc',
    '.zshrc',
    '.profile',
    '.bash_profile',
    '.npmrc',
    '.yarnrc',
    '.yarnrc.yml',
    '.pnpmfile.cjs',
    'package-lock.json',
    'packages/a/pnpm-lock.yaml',
    'yarn.lock',
    'bun.lockb',
    '.mcp.json',
    '.claude.json',
    '.vscode/settings.json',
    'nested/.vscode/settings.json',
    '.vscode/tasks.json',
    'app/.vscode/tasks.json',
    '.claude/settings.json',
    'pkg/.claude/settings.local.json',
    'gitdirs/app/objects/info/alternates',
    'repo.git/objects/info/http-alternates',
  ])('refuses %s', (path) => {
    expect(isProtectedPath(path)).toBe(true);
  });

  it.each(['.GIT/config', '.Env', 'Package-Lock.JSON', '.VSCode/Settings.json', './.git/x'])(
    'refuses the case variant %s',
    (path) => {
      expect(isProtectedPath(path)).toBe(true);
    },
  );

  it.each([
    'README.md',
    'src/index.ts',
    '.gitignore',
    'env',
    '.environment',
    'my.env',
    'package.json',
    '.vscode/launch.json',
    'settings.json',
    'git/config',
    'objects/info/alternates.md',
    'objects/alternates',
    '',
  ])('allows %s', (path) => {
    expect(isProtectedPath(path)).toBe(false);
  });
});
