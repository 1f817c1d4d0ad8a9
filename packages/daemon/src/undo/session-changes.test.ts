import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
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
  beforeEach(() => {
    diffs.count = 0;
  });

  it('diffs only the files it lists: a changed file past SESSION_CHANGES_MAX_FILES is counted in more, not diffed', async () => {
    const root = makeTempDir();
    const kept = Array.from({ length: SESSION_CHANGES_MAX_FILES + 3 }, (_, index) => {
      const path = `f${index}.txt`;
      writeFileSync(join(root, path), `after ${index}\n`);
      return { root, path, prior: 'file' as const, priorBytes: Buffer.from(`before ${index}\n`) };
    });
    const undo = { sessionFiles: () => kept, sessionCommands: () => 0 } as unknown as UndoStore;
    const roots = new WorkspaceRoots([root], {} as WorkspaceWriter);

    const answer = await sessionChanges({ undo, roots }, { id: 'ses_0000000000000000', workspace: root });

    expect(answer.files).toHaveLength(SESSION_CHANGES_MAX_FILES);
    expect(answer.more).toBe(3);
    expect(diffs.count).toBe(SESSION_CHANGES_MAX_FILES);
  });

  /** `count` text files of `lines` lines each, every line changed since the session's first write. */
  function rewrittenFiles(count: number, lines: number) {
    const root = makeTempDir();
    const text = (word: string) => Array.from({ length: lines }, (_, i) => `${word} ${i}`).join('\n') + '\n';
    const kept = Array.from({ length: count }, (_, index) => {
      const path = `f${index}.txt`;
      writeFileSync(join(root, path), text('after'));
      return { root, path, prior: 'file' as const, priorBytes: Buffer.from(text('before')) };
    });
    const undo = { sessionFiles: () => kept, sessionCommands: () => 0 } as unknown as UndoStore;
    return { root, undo, roots: new WorkspaceRoots([root], {} as WorkspaceWriter) };
  }

  it('once the time for diffs is spent, lists each further changed file as not-compared, with no diff and none worked out', async () => {
    const { root, undo, roots } = rewrittenFiles(3, 5);

    const answer = await sessionChanges(
      { undo, roots, diffBudgetMs: 0 },
      { id: 'ses_0000000000000000', workspace: root },
    );

    expect(answer.files).toEqual(
      ['f0.txt', 'f1.txt', 'f2.txt'].map((path) => ({ path, status: 'modified', no_diff: 'not-compared' })),
    );
    expect(diffs.count).toBe(0);
  });

  it('lets other work run between one file’s diff and the next (a timer due meanwhile fires before the answer is done)', async () => {
    const { root, undo, roots } = rewrittenFiles(4, 200);
    let diffsWhenTimerFired: number | undefined;
    setTimeout(() => (diffsWhenTimerFired = diffs.count), 0);

    const answer = await sessionChanges({ undo, roots }, { id: 'ses_0000000000000000', workspace: root });

    expect(answer.files.map((file) => file.additions)).toEqual([200, 200, 200, 200]);
    expect(diffsWhenTimerFired).toBeGreaterThan(0);
    expect(diffsWhenTimerFired).toBeLessThan(4);
  });
});
