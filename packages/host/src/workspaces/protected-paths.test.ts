import { describe, expect, it } from 'vitest';
import { WORKSPACE_WRITE_PROTECTED } from '../commands/command-profile.js';
import { NESTED_WRITE_PROTECTED } from '../commands/nested-protections.js';
import { isProtectedPath } from './protected-paths.js';
import { PROJECT_INSTRUCTION_FILES, STEERING_PATHS } from './steering-paths.js';

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
    '.ripgreprc',
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
    'vscode/settings.json',
    '.claude/notes.md',
    'docs/.devcontainer.md',
    'commands/deploy.md',
    'settings.json',
    'git/config',
    'objects/info/alternates.md',
    'objects/alternates',
    '',
  ])('allows %s', (path) => {
    expect(isProtectedPath(path)).toBe(false);
  });

  it.each([
    '.claude/commands/deploy.md',
    'pkg/.claude/commands/nested/review.md',
    '.claude/agents/reviewer.md',
    'app/.claude/agents/x.md',
    '.idea/workspace.xml',
    'app/.idea/runConfigurations/start.xml',
    '.vscode/launch.json',
    '.vscode/extensions.json',
    'app/.vscode/sub/anything.txt',
    '.devcontainer/devcontainer.json',
    '.devcontainer/Dockerfile',
    'svc/.devcontainer/devcontainer.json',
    '.DevContainer/devcontainer.json',
    '.vscode',
    '.claude/commands',
  ])('refuses the steering path %s (the file tools, as run_command is)', (path) => {
    expect(isProtectedPath(path)).toBe(true);
  });

  it('refuses every path run_command is write-denied (root and nested lists), at the root and nested, and anything inside a steering path; not the project instructions, which the file tools ask about', () => {
    const instructions = new Set<string>(PROJECT_INSTRUCTION_FILES);
    const commandPaths = [...WORKSPACE_WRITE_PROTECTED, ...NESTED_WRITE_PROTECTED].filter(
      (path) => !instructions.has(path),
    );
    expect(commandPaths).toEqual(expect.arrayContaining(['.devcontainer', '.claude/commands', '.idea']));
    for (const path of commandPaths) {
      expect(isProtectedPath(path), path).toBe(true);
      expect(isProtectedPath(`pkg/${path}`), `pkg/${path}`).toBe(true);
    }
    for (const path of STEERING_PATHS)
      expect(isProtectedPath(`${path}/inner/file.txt`), `${path}/inner/file.txt`).toBe(true);
    for (const path of PROJECT_INSTRUCTION_FILES) expect(isProtectedPath(path), path).toBe(false);
  });
});
