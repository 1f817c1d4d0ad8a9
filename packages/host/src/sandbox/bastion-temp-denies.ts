/**
 * SEC-004 (outer sandbox), `secret-read`: the Bastion temp dirs no sandboxed process may read but
 * its own, named for its srt profile: the sidecar's (sidecar-sandbox-policy.ts) and a command's or
 * MCP server's (command-profile.ts). Each of their TMPDIRs is private, but all of them are made by
 * the same user under the same system temp dir, which the sandbox leaves readable (workspaces,
 * enclosing repositories and tools may live there, so it is not denied as a whole): without this
 * deny a command, or a compromised sidecar, read what another command, another MCP server (its
 * fd-3 variables' shell, its files) or another Bastion's session had in its TMPDIR while it ran.
 *
 * What is denied, for every such process of every host: the parent of this user's host temp roots,
 * `<tmpdir>/bastion-<uid>/` (host-temp-root.ts: every host claims its root there, a CLI host and
 * an in-process one alike, and makes its private temp dirs in it), holding every root, those
 * claimed later included. srt mounts an empty tmpfs over it and binds the process's own private
 * temp dir, an allowWrite path, back. Nothing else there is needed inside: bwrap takes srt's
 * `claude-empty-*` mount sources from outside the sandbox, and every wrap asks for no proxy route
 * (srt-session.ts), so neither the sidecar nor a command uses srt's sockets in the root. The
 * parent is made whenever a private temp dir is (ensureBastionTempParent; a host's root, which
 * holds them, keeps it in place while the host runs): srt mounts nothing over a deny that is
 * missing, and a host claiming a root there afterwards would have made it readable. It is never
 * removed, so the mount never meets a missing directory, and the profile is the same for every
 * command of the host (the wrap cache and the pre-started sandbox keep working). A private temp
 * dir made outside any root (a command executor built without a host, in tests) gets the parent
 * beside it denied the same way.
 *
 * What it does not catch: another user's hosts (their parent is theirs, 0700); hosts of this user
 * under another system temp dir (another TMPDIR); what srt makes for an in-process host's process
 * in that process's own temp dir; anything a program writes elsewhere in the system temp dir.
 */
import { basename, dirname, join } from 'node:path';
import { ensureHostTempParent, HOST_TEMP_PARENT_NAME, HOST_TEMP_ROOT_NAME } from './host-temp-root.js';

/** The claimed host temp root `privateTemp` lies in, if any. */
export function claimedTempRootOf(privateTemp: string): string | undefined {
  const root = dirname(privateTemp);
  return HOST_TEMP_ROOT_NAME.test(basename(root)) && HOST_TEMP_PARENT_NAME.test(basename(dirname(root)))
    ? root
    : undefined;
}

/**
 * The directory to read-deny for the sandboxed process whose private temp dir (realpath) is
 * `privateTemp`: its claimed root's parent, or, for a host that claimed none, `bastion-<uid>` in
 * the system temp dir it made the private one in.
 */
export function bastionTempParentOf(privateTemp: string): string {
  const root = claimedTempRootOf(privateTemp);
  return root === undefined ? join(dirname(privateTemp), `bastion-${process.getuid?.() ?? 0}`) : dirname(root);
}

/** Make bastionTempParentOf(`privateTemp`) when missing (0700); HOST_TEMP_UNSAFE when it is not this user's private directory. */
export function ensureBastionTempParent(privateTemp: string): void {
  ensureHostTempParent(dirname(bastionTempParentOf(privateTemp)));
}
