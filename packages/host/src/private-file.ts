/**
 * SEC-004 secrets discipline for the host's own files in userData (policy.json, and auth.json read
 * for the egress guard): the host cannot import the daemon's private-json-file.ts, so this is the
 * host's synchronous counterpart with the same rules. A read refuses a symlink, a non-regular
 * file, another user's file, any group/other permission bit (naming the `chmod 600` fix) and an
 * oversized file; a write goes to a fresh 0600 temp file in the same directory, is fsynced and
 * renamed over the target, so a killed writer leaves the old file or the new one.
 *
 * What it does not catch: two processes writing the same file at once (the last rename wins).
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isDiskFullError } from '@bastion/protocol';
import type { z } from 'zod';
import { HostError } from './errors.js';

const TEMP_SUFFIX = '.bastion-tmp';

/** What identifies one version of a file on disk; a different stamp means the file changed. */
export type FileStamp = string;

function fileStamp(stats: Stats): FileStamp {
  return `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

/** The stamp of the file at `path` now (not following a link), or undefined when there is none. */
export function currentStamp(path: string): FileStamp | undefined {
  try {
    return fileStamp(lstatSync(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new HostError('PRIVATE_FILE_UNREADABLE', `${basename(path)} cannot be read`, { cause: error });
  }
}

/**
 * A private file's JSON text checked against its schema; `code` (the file's own) names a file that
 * is not JSON or not of the schema, with the first place it differs.
 */
export function parsePrivateJson<T>(
  text: string,
  schema: z.ZodType<T>,
  name: string,
  code: 'POLICY_FILE_INVALID' | 'MCP_CONFIG_INVALID',
): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new HostError(code, `${name} is not valid JSON`, { cause });
  }
  const checked = schema.safeParse(value);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new HostError(
      code,
      `${name} does not match its schema at ${issue?.path.join('.') || '(top)'}: ${issue?.message ?? ''}`,
    );
  }
  return checked.data;
}

/** Read a private file whole: its text and stamp, or `undefined` when it does not exist. */
export function readPrivateFile(path: string, maxBytes: number): { text: string; stamp: FileStamp } | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new HostError('PRIVATE_FILE_SYMLINK', `${basename(path)} is a symbolic link`);
    throw new HostError('PRIVATE_FILE_UNREADABLE', `${basename(path)} cannot be read`, { cause: error });
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new HostError('PRIVATE_FILE_NOT_REGULAR', `${basename(path)} is not a regular file`);
    if (typeof process.getuid === 'function' && stats.uid !== process.getuid()) {
      throw new HostError('PRIVATE_FILE_OWNER', `${basename(path)} is owned by another user`);
    }
    if ((stats.mode & 0o077) !== 0) {
      throw new HostError(
        'PRIVATE_FILE_PERMISSIONS',
        `${path} is readable or writable by group or others; fix it with: chmod 600 ${path}`,
      );
    }
    if (stats.size > maxBytes) throw new HostError('PRIVATE_FILE_TOO_LARGE', `${basename(path)} is too large`);
    return { text: readFileSync(fd, 'utf8'), stamp: fileStamp(stats) };
  } finally {
    closeSync(fd);
  }
}

/**
 * Replace a private file atomically (temp 0600 + fsync + rename + directory fsync). A disk with no
 * room is STORAGE_FULL naming the file; the old file keeps its bytes and the temp file is removed.
 */
export function writePrivateFile(path: string, text: string, maxBytes: number): void {
  if (Buffer.byteLength(text) > maxBytes) {
    throw new HostError('PRIVATE_FILE_TOO_LARGE', `${basename(path)} would be too large`);
  }
  try {
    replaceFile(path, text);
  } catch (error) {
    if (!isDiskFullError(error)) throw error;
    throw new HostError(
      'STORAGE_FULL',
      `the disk holding ${path} is full: free some space and try again; ${basename(path)} was left as it was`,
      { cause: error },
    );
  }
}

function replaceFile(path: string, text: string): void {
  const directory = dirname(path);
  const temp = join(directory, `.${basename(path)}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  let renamed = false;
  try {
    try {
      fchmodSync(fd, 0o600);
      writeFileSync(fd, text, 'utf8');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
    renamed = true;
    const dirFd = openSync(directory, constants.O_RDONLY);
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  } finally {
    if (!renamed) {
      try {
        unlinkSync(temp);
      } catch {
        // Already gone.
      }
    }
  }
}

/**
 * Remove the temps a killed writer left beside `path` (issue 16 §4): only writePrivateFile's exact
 * name, `.<name>.<12 hex>.bastion-tmp`, so a look-alike that is not Bastion's stays. Returns how many.
 */
export function removeStaleTempFiles(path: string): number {
  const directory = dirname(path);
  const prefix = `.${basename(path)}.`;
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith(TEMP_SUFFIX)) continue;
    if (!/^[0-9a-f]{12}$/.test(name.slice(prefix.length, name.length - TEMP_SUFFIX.length))) continue;
    try {
      unlinkSync(join(directory, name));
      removed += 1;
    } catch {
      // Already gone, or the disk refuses: the next start tries again.
    }
  }
  return removed;
}
