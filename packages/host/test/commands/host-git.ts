/**
 * Test support for the git-escape tests: the host's own git (unsandboxed, the test's HOME, no
 * system config), as the user would run it after a command, and the check that it ran nothing
 * a command planted.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';

export const IDENTITY = ['-c', 'user.name=Test', '-c', 'user.email=test@example.invalid'];

export interface HostGit {
  (cwd: string, args: string[]): string;
  /** A repository at `dir` with one commit. */
  init(dir: string): void;
  /** `git status` and `git commit` in each repository; the marker must stay absent. */
  expectNothingPlantedRuns(repositories: string[]): void;
}

export function hostGitFor(home: () => string, marker: () => string): HostGit {
  const git = (cwd: string, args: string[]) =>
    execFileSync('git', [...IDENTITY, '-c', 'protocol.file.allow=always', ...args], {
      cwd,
      env: { PATH: process.env.PATH, HOME: home(), GIT_CONFIG_NOSYSTEM: '1' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  return Object.assign(git, {
    init(dir: string) {
      mkdirSync(dir, { recursive: true });
      git(dir, ['init', '-q', '-b', 'main']);
      writeFileSync(join(dir, 'README'), 'hello\n');
      git(dir, ['add', 'README']);
      git(dir, ['commit', '-q', '-m', 'first']);
    },
    expectNothingPlantedRuns(repositories: string[]) {
      for (const dir of repositories) {
        git(dir, ['status', '--porcelain']);
        git(dir, ['commit', '-q', '--allow-empty', '-m', 'host commit']);
      }
      expect(existsSync(marker())).toBe(false);
    },
  });
}
