/**
 * A workspace write on a full disk (a real tmpfs filled to ENOSPC; mounting needs root, elsewhere
 * the suite is skipped, saying so): the workspace's disk full is FS_DISK_FULL, userData's (where
 * the temp file is journaled first) STORAGE_FULL; either way the file keeps its bytes, no temp file
 * or journal entry is left, no folder the write made for its file, and once space is freed the
 * same write goes through.
 */
import { mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '@bastion/test-support';
import { thrownCode } from '../../../../test/support/thrown-code.js';
import { canMount, fillDisk, mountTmpfs, type Tmpfs } from '../../../../test/support/tmpfs.js';
import { TempFileJournal } from './temp-file-journal.js';
import { resolveWritable, writeWorkspaceFile } from './workspace-files.js';

const NEW_BYTES = Buffer.alloc(64 * 1024, 0x61);

let disk: Tmpfs | undefined;
afterEach(() => {
  disk?.unmount();
  disk = undefined;
});

/** A workspace holding notes.txt ('original') under `base`. */
function workspaceIn(base: string): string {
  const root = join(realpathSync(base), 'workspace');
  mkdirSync(root);
  writeFileSync(join(root, 'notes.txt'), 'original');
  return root;
}

describe.skipIf(!canMount)(
  'a workspace write on a full disk (skipped unless root: mounting a tmpfs needs root)',
  () => {
    it('the workspace disk full: FS_DISK_FULL, the file keeps its bytes, no temp file or journal entry; after freeing space it is written', () => {
      disk = mountTmpfs('1m');
      const root = workspaceIn(disk.path);
      const hostDir = join(makeTempDir('bastion-full-disk-host-'), 'host');
      const journal = new TempFileJournal(hostDir);
      const filler = join(disk.path, 'filler');
      fillDisk(filler);

      expect(thrownCode(() => writeWorkspaceFile(resolveWritable(root, 'notes.txt'), NEW_BYTES, { journal }))).toBe(
        'FS_DISK_FULL',
      );
      expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('original');
      expect(readdirSync(root)).toEqual(['notes.txt']);
      expect(readdirSync(join(hostDir, 'pending-writes'))).toEqual([]);

      rmSync(filler);
      expect(writeWorkspaceFile(resolveWritable(root, 'notes.txt'), NEW_BYTES, { journal })).toEqual({
        bytes: NEW_BYTES.byteLength,
        created: false,
      });
      expect(readFileSync(join(root, 'notes.txt')).equals(NEW_BYTES)).toBe(true);
    });

    it('the userData disk full: STORAGE_FULL before the workspace is touched, and no half journal entry is left', () => {
      disk = mountTmpfs('1m');
      const root = workspaceIn(makeTempDir('bastion-full-disk-workspace-'));
      const hostDir = join(disk.path, 'host');
      const journal = new TempFileJournal(hostDir);
      const filler = join(disk.path, 'filler');
      fillDisk(filler);

      expect(thrownCode(() => writeWorkspaceFile(resolveWritable(root, 'notes.txt'), NEW_BYTES, { journal }))).toBe(
        'STORAGE_FULL',
      );
      expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('original');
      expect(readdirSync(root)).toEqual(['notes.txt']);
      expect(readdirSync(join(hostDir, 'pending-writes'))).toEqual([]);

      rmSync(filler);
      writeWorkspaceFile(resolveWritable(root, 'notes.txt'), NEW_BYTES, { journal });
      expect(readFileSync(join(root, 'notes.txt')).equals(NEW_BYTES)).toBe(true);
      expect(readdirSync(join(hostDir, 'pending-writes'))).toEqual([]);
    });

    it('a write to a new nested path refused for a full disk (the workspace’s, then userData’s) leaves none of the folders it made, and the one that was there', () => {
      disk = mountTmpfs('1m');
      const root = workspaceIn(disk.path);
      mkdirSync(join(root, 'src'));
      const hostDisk = mountTmpfs('1m');
      try {
        const journal = new TempFileJournal(join(hostDisk.path, 'host'));
        const write = () => writeWorkspaceFile(resolveWritable(root, 'src/a/b/c/new.txt'), NEW_BYTES, { journal });

        fillDisk(join(disk.path, 'filler'));
        expect(thrownCode(write)).toBe('FS_DISK_FULL');
        expect(readdirSync(join(root, 'src'))).toEqual([]);
        rmSync(join(disk.path, 'filler'));

        fillDisk(join(hostDisk.path, 'filler'));
        expect(thrownCode(write)).toBe('STORAGE_FULL');
        expect(readdirSync(join(root, 'src'))).toEqual([]);
      } finally {
        hostDisk.unmount();
      }
      expect(readdirSync(root).sort()).toEqual(['notes.txt', 'src']);
    });

    it('a write whose second new folder finds no inode left: FS_DISK_FULL, and the first one it made is gone', () => {
      // Four inodes: the tmpfs root, the workspace, notes.txt and one more folder.
      disk = mountTmpfs('1m', { inodes: 4 });
      const root = workspaceIn(disk.path);
      const journal = new TempFileJournal(join(makeTempDir('bastion-full-disk-host-'), 'host'));
      expect(thrownCode(() => writeWorkspaceFile(resolveWritable(root, 'a/b/new.txt'), NEW_BYTES, { journal }))).toBe(
        'FS_DISK_FULL',
      );
      expect(readdirSync(root)).toEqual(['notes.txt']);
    });
  },
);
