/**
 * Secrets discipline for the sidecar's own files in userData (auth.json, endpoints.json): a read
 * refuses a symlink, a file owned by someone else, a file with any group/other permission bit
 * (naming the `chmod 600` fix) and an oversized file; a write goes to a fresh 0600 temp file in the
 * same directory, is fsynced and renamed over the target, so a killed writer leaves the old file
 * or the new one, never a partial one.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { z } from 'zod';
import { SECRETS_MAX_FILE_BYTES } from '@bastion/protocol';
import { DaemonError } from '../errors.js';

const TEMP_SUFFIX = '.bastion-tmp';

/** What to do about a damaged file: Bastion leaves it as it is and writes nothing over it. */
const CORRUPT_FIX =
  'Bastion left it untouched and will not write over it: fix it, or move it aside out of the data folder';

/** What to do about a link or a folder where a data file should be. */
const NOT_REGULAR_FIX = 'put the file itself there, or move it out of the Bastion data folder';

export class PrivateFileError extends DaemonError {
  override readonly name = 'PrivateFileError';
}

/** Read and validate a private JSON file; `undefined` when it does not exist. */
export async function readPrivateJson<S extends z.ZodType>(path: string, schema: S): Promise<z.infer<S> | undefined> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP')
      throw new PrivateFileError(
        'SECRETS_FILE_SYMLINK',
        `${basename(path)} is a symbolic link; refusing to read it: ${NOT_REGULAR_FIX}`,
      );
    throw new PrivateFileError('SECRETS_FILE_UNREADABLE', `${basename(path)} cannot be read`, { cause: error });
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile())
      throw new PrivateFileError(
        'SECRETS_FILE_NOT_REGULAR',
        `${basename(path)} is not a regular file; refusing to read it: ${NOT_REGULAR_FIX}`,
      );
    if (typeof process.getuid === 'function' && stats.uid !== process.getuid()) {
      throw new PrivateFileError(
        'SECRETS_FILE_OWNER',
        `${basename(path)} is owned by another user; refusing to read it`,
      );
    }
    if ((stats.mode & 0o077) !== 0) {
      throw new PrivateFileError(
        'SECRETS_FILE_PERMISSIONS',
        `${path} is readable or writable by group or others; fix it with: chmod 600 ${path}`,
      );
    }
    if (stats.size > SECRETS_MAX_FILE_BYTES)
      throw new PrivateFileError('SECRETS_FILE_TOO_LARGE', `${basename(path)} is too large`);
    const text = await handle.readFile('utf8');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (cause) {
      throw new PrivateFileError('SECRETS_FILE_CORRUPT', `${basename(path)} is not valid JSON; ${CORRUPT_FIX}`, {
        cause,
      });
    }
    const checked = schema.safeParse(value);
    if (!checked.success) {
      throw new PrivateFileError(
        'SECRETS_FILE_CORRUPT',
        `${basename(path)} does not match its schema; ${CORRUPT_FIX}`,
        {
          cause: checked.error,
        },
      );
    }
    return checked.data;
  } finally {
    await handle.close();
  }
}

/** Replace a private JSON file atomically (temp 0600 + fsync + rename + directory fsync). */
export async function writePrivateJson(path: string, value: unknown): Promise<void> {
  const directory = dirname(path);
  const temp = join(directory, `.${basename(path)}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
  const payload = `${JSON.stringify(value, null, 2)}\n`;
  if (Buffer.byteLength(payload) > SECRETS_MAX_FILE_BYTES) {
    throw new PrivateFileError('SECRETS_FILE_TOO_LARGE', `${basename(path)} would be too large`);
  }
  let renamed = false;
  const handle = await open(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    try {
      await handle.chmod(0o600);
      await handle.writeFile(payload, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
    renamed = true;
    const dir = await open(directory, constants.O_RDONLY);
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  } finally {
    if (!renamed) await unlink(temp).catch(() => undefined);
  }
}

/** The exact name writePrivateJson gives a temp file of `name`: `.<name>.<12 hex>.bastion-tmp`. */
function isOwnTempName(name: string, target: string): boolean {
  const prefix = `.${target}.`;
  if (!name.startsWith(prefix) || !name.endsWith(TEMP_SUFFIX)) return false;
  return /^[0-9a-f]{12}$/.test(name.slice(prefix.length, name.length - TEMP_SUFFIX.length));
}

/**
 * Remove temp files a killed writer left next to `path` (they may hold secrets): only names of
 * writePrivateJson's exact pattern, so a look-alike that is not Bastion's stays.
 */
export async function removeStaleTemps(path: string): Promise<number> {
  let removed = 0;
  let names: string[];
  try {
    names = await readdir(dirname(path));
  } catch {
    return 0;
  }
  for (const name of names) {
    if (isOwnTempName(name, basename(path))) {
      await unlink(join(dirname(path), name)).catch(() => undefined);
      removed += 1;
    }
  }
  return removed;
}

/**
 * One writer per file: operations run strictly one after another, each reading the current file
 * itself, so concurrent updates never lose each other's changes.
 */
export class SerialWriter {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(operation, operation);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
