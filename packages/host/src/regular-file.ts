/**
 * A regular file's bytes, read by the unsandboxed host from a place a sandboxed command can change:
 * never through a final symlink (O_NOFOLLOW), never waiting on a FIFO put in its place
 * (O_NONBLOCK), and nothing read of a file larger than the bound.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

/** The bytes of the regular file at `path`, or undefined when there is none, it is another kind, or it is larger than `max`. */
export function readRegularFile(path: string, max: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > max) return undefined;
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}
