/**
 * SEC-004 (outer sandbox), `secret-read`: the Bastion temp dirs a sandboxed command or MCP server
 * must not read, named for its srt profile (command-profile.ts). Each command's and each server's
 * TMPDIR is private, but all of them are made by the same user under the same system temp dir,
 * which the sandbox leaves readable (workspaces, enclosing repositories and tools may live there,
 * so it is not denied as a whole): without this deny a command read what another command, another
 * MCP server or another Bastion's session had in its TMPDIR while it ran.
 *
 * What is denied, when the private temp dir lies in a claimed host temp root (host-temp-root.ts:
 * every CLI host claims one, in `<tmpdir>/bastion-<uid>/`): that parent, holding every root of
 * this user's hosts, those started later included. srt mounts an empty tmpfs over it and binds
 * the private temp dir, an allowWrite path, back; nothing else there is needed inside (bwrap takes
 * srt's `claude-empty-*` mount sources from outside the sandbox, and a command has no network, so
 * no relay socket). The parent always exists while a root in it does, so the mount never meets a
 * missing directory, and the profile is the same for every command of the host (the wrap cache and
 * the pre-started sandbox keep working).
 *
 * What it does not catch: a host that claimed no root (in-process hosts: tests, embedders) gets no
 * deny and is not denied to others: its temp dirs lie directly in the system temp dir among every
 * other process's; another user's hosts (their parent is theirs, 0700); anything a program writes
 * elsewhere in the system temp dir.
 */
import { basename, dirname } from 'node:path';
import { HOST_TEMP_PARENT_NAME, HOST_TEMP_ROOT_NAME } from './host-temp-root.js';

/** The claimed host temp root `privateTemp` lies in, if any. */
export function claimedTempRootOf(privateTemp: string): string | undefined {
  const root = dirname(privateTemp);
  return HOST_TEMP_ROOT_NAME.test(basename(root)) && HOST_TEMP_PARENT_NAME.test(basename(dirname(root)))
    ? root
    : undefined;
}

/** The directories to read-deny for the command or server whose private temp dir (realpath) is `privateTemp`. */
export function bastionTempReadDenies(privateTemp: string): string[] {
  const root = claimedTempRootOf(privateTemp);
  return root === undefined ? [] : [dirname(root)];
}
