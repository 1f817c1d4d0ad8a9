/**
 * SEC-004 (outer sandbox, git-escape): what the sidecar's own sandbox write-denies inside each
 * granted workspace, so a compromised sidecar cannot plant what the user's own tools later run
 * outside the sandbox. The sidecar never writes git state (its file tools refuse `.git`, and git
 * runs only in run_command sandboxes the host starts), so every git directory found in the
 * workspace (git-write-protections.ts's scan: nested repositories, submodules, linked worktrees,
 * at any depth) is denied whole, existing paths need no placeholder; so are every `.git` pointer
 * file, every configured `core.hooksPath` and included config file inside the workspace (a
 * missing one gets no placeholder: the launcher has the placeholder warden guard it for the
 * sidecar's lifetime), each existing protected name of command-profile.ts at the root, and each
 * existing one nested-protections.ts names below it (`sub/AGENTS.md`, `app/.vscode`…).
 *
 * What it does not catch: a repository, hooks path or include set up after the sidecar started
 * (protected from its next start: a workspace grant respawns it); a missing `.vscode`, `.idea`,
 * `.envrc`, `AGENTS.md` or other protected name created by a compromised sidecar (guarding those
 * for a whole session would move the user's own editor folders; its file tools refuse them);
 * a workspace past the scan's bound (only what was found is denied: the sidecar must keep writing).
 */
import { lstatSync } from 'node:fs';
import { workspaceWriteProtections } from '../commands/command-profile.js';
import { scanGitRepositories } from '../commands/git-write-protections.js';
import { nestedProtections } from '../commands/nested-protections.js';
import { isAtOrUnder } from './sandbox-policy-check.js';

export function sidecarWorkspaceProtections(workspaces: readonly string[], home: string): string[] {
  const deny = new Set<string>();
  const exists = (path: string) => lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  for (const root of workspaces) {
    const inside = (path: string) => isAtOrUnder(path, root);
    const scan = scanGitRepositories(root, { home });
    for (const { gitDir, commonDir } of scan.gitDirectories)
      for (const dir of [gitDir, commonDir]) if (inside(dir)) deny.add(dir);
    for (const repository of scan.repositories) {
      if (repository.dotGitIsFile && inside(repository.dotGit)) deny.add(repository.dotGit);
      for (const path of [...repository.configFiles, ...repository.hooksDirs]) if (inside(path)) deny.add(path);
    }
    for (const path of workspaceWriteProtections(root, exists)) deny.add(path);
    for (const path of nestedProtections(scan).denyWrite) deny.add(path);
  }
  // A path inside another denied directory is denied with it: one mount fewer.
  const sorted = [...deny].sort();
  return sorted.filter(
    (path, index) => !sorted.slice(0, index).some((other) => path !== other && isAtOrUnder(path, other)),
  );
}
