/**
 * Space held back on the data disk so that a run can always record how it ended. The reserve is a
 * file of STORAGE_RESERVE_BYTES random bytes in userData (random, so a compressing file system
 * stores all of it). When a write fails because the disk is full, the run manager releases it
 * (deletes the file), the final events of the runs in progress commit into the space it gave
 * back, and `ensure()` takes the space again once the disk has room: a run starts only while the
 * reserve is whole. A reserve that cannot be made whole keeps what it has (the disk is full either way).
 */
import { randomFillSync } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { STORAGE_RESERVE_BYTES } from '@bastion/protocol';

export const STORAGE_RESERVE_FILE = 'storage-reserve';

export class StorageReserve {
  readonly #path: string;
  readonly #bytes: number;
  #whole = false;

  constructor(userData: string, bytes = STORAGE_RESERVE_BYTES) {
    this.#path = join(userData, STORAGE_RESERVE_FILE);
    this.#bytes = bytes;
  }

  /** Grow the reserve to its full size if it is not; true when it is whole. Never throws. */
  ensure(): boolean {
    if (this.#whole) return true;
    let fd: number;
    try {
      fd = openSync(
        this.#path,
        constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW,
        0o600,
      );
    } catch {
      return false;
    }
    try {
      let size = fstatSync(fd).size;
      const chunk = Buffer.alloc(Math.min(64 * 1024, this.#bytes));
      while (size < this.#bytes) {
        const part = chunk.subarray(0, Math.min(chunk.length, this.#bytes - size));
        randomFillSync(part);
        size += writeSync(fd, part);
      }
      this.#whole = true;
    } catch {
      // ENOSPC (or EROFS, EIO): keep what was written; the next ensure() tries again.
    } finally {
      closeSync(fd);
    }
    return this.#whole;
  }

  /** Give the reserve's space back to the disk. Never throws. */
  release(): void {
    this.#whole = false;
    try {
      unlinkSync(this.#path);
    } catch {
      // Already gone, or the disk no longer takes even an unlink (read-only): nothing to give back.
    }
  }
}
