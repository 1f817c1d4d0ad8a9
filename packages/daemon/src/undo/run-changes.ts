/**
 * The file tools' side of undo, one per run: before the run's first change to a file, what the
 * file holds is kept (read through the same descriptor walk as the write, bounded by the store's
 * per-file limit) and committed before the write; after each write, what the run left. When the
 * run ends, each file is fingerprinted again, so a command of the same run that changed a file
 * after the tool did counts as the run's own change.
 */
import { UNDO_MAX_FINGERPRINT_BYTES } from '@bastion/protocol';
import type { ContainedPath } from '../workspaces/containment.js';
import {
  fingerprintContainedFile,
  fingerprintOf,
  missingDirectories,
  readContainedFile,
  type FileFingerprint,
} from '../workspaces/file-access.js';
import type { WorkspaceRoots } from '../workspaces/workspace-roots.js';
import type { UndoStore } from './undo-store.js';

export class RunChanges {
  readonly #store: UndoStore;
  readonly #sessionId: string;
  readonly #runId: string;

  constructor(store: UndoStore, sessionId: string, runId: string) {
    this.#store = store;
    this.#sessionId = sessionId;
    this.#runId = runId;
  }

  /**
   * Write `content` to `target` with `write`, keeping the file's earlier state first if this is
   * the run's first change to it. A write that throws leaves the old bytes, so a copy kept for it
   * alone is dropped again.
   */
  async write<T>(target: ContainedPath, content: Buffer, write: () => Promise<T>): Promise<T> {
    const first = !this.#store.has(this.#runId, target.root, target.relative);
    if (first) {
      const createdDirs = target.exists ? [] : missingDirectories(target);
      this.#store.keep({ ...this.#where(target), createdDirs }, this.#prior(target));
    }
    let result: T;
    try {
      result = await write();
    } catch (error) {
      if (first) this.#store.forget(this.#runId, target.root, target.relative);
      throw error;
    }
    this.#store.recordAfter(this.#runId, target.root, target.relative, fingerprintOf(content));
    return result;
  }

  /** At the run's end: what each of its files holds now is what the run left. */
  seal(roots: WorkspaceRoots): void {
    for (const file of this.#store.files(this.#runId)) {
      let after: FileFingerprint | null = null;
      try {
        const now = fingerprintContainedFile(roots.resolve(file.root, file.path), UNDO_MAX_FINGERPRINT_BYTES);
        after = now === 'absent' ? null : now;
      } catch {
        // Unreadable now (moved out of the workspace, not a file): not known, so undo will refuse it.
      }
      this.#store.recordAfter(this.#runId, file.root, file.path, after);
    }
  }

  #where(target: ContainedPath) {
    return { sessionId: this.#sessionId, runId: this.#runId, root: target.root, path: target.relative };
  }

  #prior(target: ContainedPath): Parameters<UndoStore['keep']>[1] {
    if (!target.exists) return { kind: 'absent' };
    const read = readContainedFile(target, this.#store.limits.maxFileBytes);
    if (read.truncated) return { kind: 'too-large' };
    return { kind: 'file', bytes: read.content, sha256: fingerprintOf(read.content).sha256 };
  }
}
