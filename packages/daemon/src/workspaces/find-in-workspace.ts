/**
 * Search by name across a granted workspace (POST /workspaces/find, the message box's `@`): a
 * breadth-first walk that lists each directory as the readdir route does (contained, through its
 * descriptor), never follows a symlink, skips dot directories and dependency trees, and stops at
 * WORKSPACE_FIND_MAX_DIRECTORIES. What it cannot list (gone, unreadable) it passes over. Each
 * listing is synchronous; the walk yields to the event loop between batches of them, so a search of
 * a large tree does not hold up a streaming run.
 */
import {
  WORKSPACE_FIND_FOLDERS_PER_TURN,
  WORKSPACE_FIND_MAX_CANDIDATES,
  WORKSPACE_FIND_MAX_DIRECTORIES,
  WORKSPACE_FIND_MAX_RESULTS,
  type WorkspaceFindResponse,
} from '@bastion/protocol';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { listContainedDir } from './file-access.js';
import type { WorkspaceRoots } from './workspace-roots.js';

/** Installed dependencies are not walked into: they would crowd out the project's own files (nor are dot directories, `.git` among them). */
const SKIPPED = new Set(['node_modules']);

type Match = WorkspaceFindResponse['matches'][number];

export async function findInWorkspace(
  roots: WorkspaceRoots,
  root: string,
  query: string,
): Promise<WorkspaceFindResponse> {
  // An ungranted root is refused here, before the walk passes over what it cannot list.
  roots.resolve(root, '.');
  const wanted = query.toLowerCase();
  const dotted = query.startsWith('.');
  const candidates: (Match & { starts: boolean; depth: number })[] = [];
  const queue: string[] = ['.'];
  let truncated = false;
  for (let next = 0; next < queue.length; next += 1) {
    if (next > 0 && next % WORKSPACE_FIND_FOLDERS_PER_TURN === 0) await nextTurn();
    const directory = queue[next] as string;
    let listing: ReturnType<typeof listContainedDir>;
    try {
      listing = listContainedDir(roots.resolve(root, directory));
    } catch {
      continue;
    }
    if (listing.truncated) truncated = true;
    const depth = directory === '.' ? 0 : directory.split('/').length;
    for (const entry of listing.entries) {
      const path = directory === '.' ? entry.name : `${directory}/${entry.name}`;
      const hidden = entry.name.startsWith('.');
      const at = entry.name.toLowerCase().indexOf(wanted);
      if (at >= 0 && (dotted || !hidden)) {
        if (candidates.length < WORKSPACE_FIND_MAX_CANDIDATES)
          candidates.push({ path, kind: entry.kind, starts: at === 0, depth });
        else truncated = true;
      }
      if (entry.kind !== 'directory' || hidden || SKIPPED.has(entry.name)) continue;
      if (queue.length < WORKSPACE_FIND_MAX_DIRECTORIES) queue.push(path);
      else truncated = true;
    }
  }
  candidates.sort((a, b) => Number(b.starts) - Number(a.starts) || a.depth - b.depth || a.path.localeCompare(b.path));
  return {
    matches: candidates.slice(0, WORKSPACE_FIND_MAX_RESULTS).map(({ path, kind }) => ({ path, kind })),
    truncated: truncated || candidates.length > WORKSPACE_FIND_MAX_RESULTS,
  };
}
