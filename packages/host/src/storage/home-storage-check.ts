/**
 * Before a host takes a home: the disk holding it must take writes. A read-only file system, a
 * home this user cannot write, or a disk with less than STORAGE_START_MIN_FREE_BYTES free fails
 * the start at once with one line naming the path and the problem (STORAGE_READ_ONLY,
 * STORAGE_NOT_WRITABLE, STORAGE_FULL), instead of an fs error thrown from whichever write came
 * first (the lock, the log, SQLite) or a sidecar that dies on every respawn. Nothing is written:
 * the home is created if missing, then only checked (access(2), statfs(2)).
 */
import { accessSync, constants, mkdirSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { STORAGE_START_MIN_FREE_BYTES } from '@bastion/protocol';
import { HostError } from '../errors.js';
import { formatBytes } from '../format-bytes.js';

/** The coded one-line error for an fs failure on `path`, or undefined when it is not a storage problem. */
function storageProblem(path: string, error: unknown): HostError | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === 'EEXIST' || code === 'ENOTDIR') {
    // mkdir met a file where the home, or a folder above it, should be.
    return new HostError(
      'HOME_NOT_A_DIRECTORY',
      `${path} is not a folder (it or a folder above it is a file): give --home a folder or a new path`,
      { cause: error },
    );
  }
  if (code === 'EROFS') {
    return new HostError(
      'STORAGE_READ_ONLY',
      `${path} is on a read-only file system (EROFS): remount it read-write, or start with --home on a writable disk`,
      { cause: error },
    );
  }
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new HostError(
      'STORAGE_FULL',
      `${path}: the disk is full (${code}): free some space, or start with --home on another disk`,
      { cause: error },
    );
  }
  if (code === 'EACCES' || code === 'EPERM') {
    return new HostError(
      'STORAGE_NOT_WRITABLE',
      `${path} is not writable by this user (${code}): fix its owner or permissions, or start with --home elsewhere`,
      { cause: error },
    );
  }
  return undefined;
}

/**
 * Why a missing home could not be made: Node's recursive mkdir reports ENOENT when the real cause
 * (EROFS, EACCES) struck the first directory it tried to create, so ask the nearest one that exists.
 */
function nearestAncestorProblem(path: string): unknown {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    try {
      accessSync(dir, constants.W_OK);
      return undefined;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ENOENT' || dir === dirname(dir)) return error;
    }
  }
}

/** Create the home if it is missing, then throw a coded HostError unless its disk takes writes and has room. */
export function assertHomeStorageUsable(path: string): void {
  try {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    accessSync(path, constants.W_OK);
  } catch (error) {
    throw storageProblem(path, error) ?? storageProblem(path, nearestAncestorProblem(path)) ?? error;
  }
  const disk = statfsSync(path);
  const free = disk.bavail * disk.bsize;
  if (free < STORAGE_START_MIN_FREE_BYTES) {
    throw new HostError(
      'STORAGE_FULL',
      `${path}: the disk is full (${formatBytes(free)} free, Bastion needs ${formatBytes(STORAGE_START_MIN_FREE_BYTES)}): free some space, or start with --home on another disk`,
    );
  }
}
