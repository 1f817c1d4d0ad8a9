/**
 * The workspace roots the host granted in the bootstrap frame (SEC-004). The daemon never opens a
 * root the host did not grant: every route and tool names its root, which must be one of these.
 * Writes in them are the host's (`writer`): the daemon's own view of them is read-only.
 */
import { realpathSync } from 'node:fs';
import { basename } from 'node:path';
import type { Workspace } from '@bastion/protocol';
import { resolveContained, type ContainedPath } from './containment.js';
import { workspaceError } from './workspace-error.js';
import type { WorkspaceWriter } from './workspace-writer.js';

export class WorkspaceRoots {
  readonly #roots: readonly string[];
  /** What performs every write in these roots: the host (workspace-writer.ts). */
  readonly writer: WorkspaceWriter;

  /** Roots that no longer exist are left out; the rest are kept as real paths. */
  constructor(granted: readonly string[], writer: WorkspaceWriter) {
    this.writer = writer;
    const roots: string[] = [];
    for (const root of granted) {
      try {
        const real = realpathSync.native(root);
        if (!roots.includes(real)) roots.push(real);
      } catch {
        // a granted root that vanished is simply not available
      }
    }
    this.#roots = roots;
  }

  list(): Workspace[] {
    return this.#roots.map((root) => ({ root, name: basename(root) }));
  }

  /** The first granted root, the default workspace of a new session. */
  get default(): string | undefined {
    return this.#roots[0];
  }

  isGranted(root: string): boolean {
    return this.#roots.includes(root);
  }

  /** Resolve `path` inside the granted `root`; an ungranted root is outside by definition. */
  resolve(root: string, path: string): ContainedPath {
    if (!this.isGranted(root)) throw workspaceError('FS_OUTSIDE_WORKSPACE');
    return resolveContained(root, path);
  }
}
