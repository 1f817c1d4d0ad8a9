/**
 * SEC-004 (outer sandbox), `secret-read`: the Bastion temp dirs a sandboxed command or MCP server
 * must not read, named for its srt profile (command-profile.ts). Each command's and each server's
 * TMPDIR is private, but all of them are made by the same user under the same system temp dir,
 * which the sandbox leaves readable (workspaces, enclosing repositories and tools may live there,
 * so it is not denied as a whole): without these denies a command read what another command,
 * another MCP server or another Bastion's session had in its TMPDIR while it ran.
 *
 * What is denied, as listed at wrap time, when the private temp dir lies in a claimed host temp
 * root (host-temp-root.ts: every CLI host claims one): that root itself, where srt mounts an empty
 * tmpfs and binds the private temp dir, an allowWrite path, back over it (nothing else there is
 * needed inside: bwrap takes srt's `claude-empty-*` mount sources from outside the sandbox, and a
 * command has no network, so no relay socket); and every other `bastion-host-*` directory in the
 * system temp dir that is a directory (a symbolic link is not followed: it would deny its target).
 * The system temp dir is listed once a wrap (its entries, no stat), within the bench's targets.
 *
 * A changed listing is a new profile, so a kept wrap or a pre-started sandbox made before another
 * Bastion's root appeared is not used for the next command (wrap-cache.ts keys on the profile,
 * prestarted-sandbox.ts compares the fresh wrap's argv word for word): that command pays srt's
 * full wrap once, and every later one is kept again.
 *
 * What it does not catch: a Bastion started after the command's wrap (the system temp dir is
 * bound live, and the listing is not read again while the command runs or its pre-started sandbox
 * waits); a host that claimed no root (in-process hosts: tests, embedders) gets no deny and is
 * not denied to others: its temp dirs lie directly in the system temp dir among every other
 * process's, whose listing changes with every command anywhere, so denying them made nearly every
 * wrap a miss and failed bwrap when one vanished before it mounted there; anything a program
 * writes elsewhere in the system temp dir. A root that vanishes between the listing and bwrap's
 * mounts (its host stopping in that instant) fails that command's start (COMMAND_SANDBOX_FAILED
 * or srt's error; a retry runs).
 */
import { readdirSync, type Dirent } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { HOST_TEMP_ROOT_NAME } from './host-temp-root.js';

/** A directory's entries, as readdirSync's withFileTypes gives them (tests pass their own). */
export type ListDirectory = (dir: string) => Array<Pick<Dirent, 'name' | 'isDirectory'>>;

const listDirectory: ListDirectory = (dir) => readdirSync(dir, { withFileTypes: true });

/**
 * The directories to read-deny for the command or server whose private temp dir (realpath) is
 * `privateTemp`, sorted: none when it lies in no claimed root. A listing that fails throws, and
 * the caller refuses the command (fail closed).
 */
export function bastionTempReadDenies(privateTemp: string, list: ListDirectory = listDirectory): string[] {
  const ownRoot = claimedTempRootOf(privateTemp);
  if (ownRoot === undefined) return [];
  const systemTemp = dirname(ownRoot);
  const roots = list(systemTemp)
    .filter((entry) => entry.isDirectory() && HOST_TEMP_ROOT_NAME.test(entry.name))
    .map((entry) => join(systemTemp, entry.name));
  return [...new Set([ownRoot, ...roots])].sort();
}

/** The claimed host temp root `privateTemp` lies in, if any (its own deny, bound back by srt). */
export function claimedTempRootOf(privateTemp: string): string | undefined {
  const parent = dirname(privateTemp);
  return HOST_TEMP_ROOT_NAME.test(basename(parent)) ? parent : undefined;
}
