import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { SESSION_CHANGES_MAX_FILES } from '@bastion/protocol';
import { makeTempDir } from '../../test/support/temp-dir.js';
import type * as EditDiff from '../tools/edit-diff.js';
import type { WorkspaceWriter } from '../workspaces/workspace-writer.js';
import { WorkspaceRoots } from '../workspaces/workspace-roots.js';
import { sessionChanges } from './session-changes.js';
import type { UndoStore } from './undo-store.js';

const diffs = vi.hoisted(() => ({ count: 0 }));
vi.mock('../tools/edit-diff.js', async (original) => {
  const actual = await original<typeof EditDiff>();
  return {
    ...actual,
    boundedDiff: (...args: Parameters<typeof actual.boundedDiff>) => {
      diffs.count += 1;
      return actual.boundedDiff(...args);
    },
  };
});

describe('sessionChanges', () => {
  it('diffs only the files it lists: a changed file past SESSION_CHANGES_MAX_FILES is counted in more, not diffed', () => {
    const root = makeTempDir();
    const kept = Array.from({ length: SESSION_CHANGES_MAX_FILES + 3 }, (_, index) => {
      const path = `f${index}.txt`;
      writeFileSync(join(root, path), `after ${index}\n`);
      return { root, path, prior: 'file' as const, priorBytes: Buffer.from(`before ${index}\n`) };
    });
    const undo = { sessionFiles: () => kept, sessionCommands: () => 0 } as unknown as UndoStore;
    const roots = new WorkspaceRoots([root], {} as WorkspaceWriter);

    const answer = sessionChanges({ undo, roots }, { id: 'ses_0000000000000000', workspace: root });

    expect(answer.files).toHaveLength(SESSION_CHANGES_MAX_FILES);
    expect(answer.more).toBe(3);
    expect(diffs.count).toBe(SESSION_CHANGES_MAX_FILES);
  });
});
