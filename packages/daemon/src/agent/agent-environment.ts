/**
 * What the system prompt says about the run's environment that must be looked up: the OS, and
 * whether the workspace is a git repository and on which branch. The branch is read from
 * `.git/HEAD` through workspace containment (no git process); a `.git` file (a linked worktree or
 * submodule) counts as a repository with an unknown branch.
 */
import { release } from 'node:os';
import { GIT_HEAD_MAX_BYTES } from '@bastion/protocol';
import { readContainedFile } from '../workspaces/file-access.js';
import type { WorkspaceRoots } from '../workspaces/workspace-roots.js';
import type { PromptEnvironment } from './system-prompt.js';

export function operatingSystem(): string {
  return `${process.platform} ${release()}`;
}

export function detectGit(roots: WorkspaceRoots, workspace: string | null): PromptEnvironment['git'] {
  if (workspace === null) return null;
  try {
    const dotGit = roots.resolve(workspace, '.git');
    if (!dotGit.exists) return null;
    try {
      const head = readContainedFile(roots.resolve(workspace, '.git/HEAD'), GIT_HEAD_MAX_BYTES).content.toString(
        'utf8',
      );
      const ref = /^ref: refs\/heads\/(\S+)\s*$/.exec(head);
      return { branch: ref?.[1] ?? null };
    } catch {
      return { branch: null };
    }
  } catch {
    return null;
  }
}
