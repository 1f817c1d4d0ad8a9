/**
 * SEC-004 (outer sandbox): what of the disk one srt wrap can depend on, read so that a later
 * wrap can tell, synchronously and without srt, whether any of it changed (wrap-cache.ts).
 *
 * srt's filesystem arguments follow from the profile's lists, the working directory, and the disk:
 * (1) how each named path and each directory on its way resolves (exists, is a directory, a file
 * or a symlink to somewhere), and (2) what its `rg` scan of the working directory lists: files
 * down to srt's search depth whose names it looks for (srt's dangerous file names, anything in its
 * dangerous directories and in `.git/hooks`, `.git/HEAD` and `.git/config`), `node_modules`
 * excluded (rg opens that directory but lists nothing under it). So a state holds, for (1), each
 * path's identity (device, type and mode, owner, a symlink's target: what srt decides by, since it
 * binds by name and a file made anew in the same place binds the same) and, for (2), each
 * scanned directory's identity, change time and relevant listing: every subdirectory, symlink and
 * `.git` entry, and each file srt's scan would list, with its type. Other files (sources, build
 * output, git's own index and objects) are not in it: they change nothing srt builds. A glob
 * entry's directory is kept by its whole listing, since srt expands it.
 *
 * A directory's listing cannot change without its change time moving, and no process can set a
 * change time back. The time ticks coarsely, though: one read within a tick of a change can look
 * the same as the one before it. So the time is trusted only when it lies WRAP_CACHE_RACY_MARGIN_MS
 * or more before the state was read; otherwise, and whenever the time moved, the relevant listing
 * itself is compared, which is exact for what srt lists.
 *
 * What it does not catch: file contents (srt reads none of the paths it binds); anything deeper
 * than srt's scan (srt does not look there either).
 */
import { lstatSync, readdirSync, readlinkSync, type BigIntStats, type Dirent } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { DANGEROUS_FILES, getDangerousDirectories } from '@anthropic-ai/sandbox-runtime/dist/sandbox/sandbox-utils.js';
import { WRAP_CACHE_MAX_SCAN_DIRS, WRAP_CACHE_RACY_MARGIN_MS } from '@bastion/protocol';

/** srt's `rg` scan lists files this many levels below the working directory (its depth 3, plus one). */
const SCAN_DIRECTORY_DEPTH = 3;
/** rg's `-g '!**\/node_modules/**'`: the directory is opened, nothing under it listed. */
const UNSCANNED_DIRECTORY = 'node_modules';
const GLOB_CHARACTERS = /[*?[\]{}]/;
/** srt's globs match without regard to case. */
const LISTED_FILE_NAMES: ReadonlySet<string> = new Set(DANGEROUS_FILES.map((name) => name.toLowerCase()));
/** Directories everything in which srt lists (each as path segments, lower case). */
const LISTED_DIRECTORIES = [...getDangerousDirectories(), '.git/hooks'].map((name) => name.toLowerCase().split('/'));
const LISTED_IN_GIT_DIRECTORY: ReadonlySet<string> = new Set(['head', 'config']);

interface ScannedDirectory {
  path: string;
  identity: string;
  changedNs: bigint;
  /** Relevant names and types; undefined for a directory rg does not list (node_modules). */
  listing: string | undefined;
}

export interface WrapDiskState {
  readAtNs: bigint;
  scanned: ScannedDirectory[];
  paths: Map<string, string>;
  globDirectories: Map<string, string>;
}

function errorCode(error: unknown): string {
  return `error:${(error as NodeJS.ErrnoException).code ?? 'unknown'}`;
}

/** Not the inode: a file made anew in the same place (the executor's `commondir` pin, each command) binds the same. */
function identityOf(stats: BigIntStats): string {
  return `${stats.dev}:${stats.mode}:${stats.uid}`;
}

function lstat(path: string): BigIntStats | string {
  try {
    return lstatSync(path, { bigint: true });
  } catch (error) {
    return errorCode(error);
  }
}

/** A path's identity, a symlink's with its target. */
function pathIdentity(path: string): string {
  const stats = lstat(path);
  if (typeof stats === 'string') return stats;
  if (!stats.isSymbolicLink()) return identityOf(stats);
  try {
    return `${identityOf(stats)}->${readlinkSync(path)}`;
  } catch (error) {
    return `${identityOf(stats)}->${errorCode(error)}`;
  }
}

function typeOf(entry: Dirent): string {
  if (entry.isDirectory()) return 'd';
  if (entry.isSymbolicLink()) return 'l';
  if (entry.isFile()) return 'f';
  return 'o';
}

function readEntries(path: string): Dirent[] | string {
  try {
    return readdirSync(path, { withFileTypes: true });
  } catch (error) {
    return errorCode(error);
  }
}

/** Does srt's scan list files directly in the directory with these (lower-case) segments? */
function listsEverythingIn(segments: readonly string[]): boolean {
  return LISTED_DIRECTORIES.some((listed) =>
    segments.some((_, at) => listed.every((name, offset) => segments[at + offset] === name)),
  );
}

/** The entries of `path` (relative to the scan root: `segments`) that srt's output can depend on. */
function relevantListing(entries: Dirent[] | string, segments: readonly string[]): string {
  if (typeof entries === 'string') return entries;
  const everything = listsEverythingIn(segments);
  const inGitDirectory = segments.at(-1) === '.git';
  return entries
    .filter((entry) => {
      if (everything || !entry.isFile()) return true;
      const name = entry.name.toLowerCase();
      return name === '.git' || LISTED_FILE_NAMES.has(name) || (inGitDirectory && LISTED_IN_GIT_DIRECTORY.has(name));
    })
    .map((entry) => `${entry.name}/${typeOf(entry)}`)
    .sort()
    .join('\0');
}

function wholeListing(entries: Dirent[] | string): string {
  if (typeof entries === 'string') return entries;
  return entries
    .map((entry) => `${entry.name}/${typeOf(entry)}`)
    .sort()
    .join('\0');
}

function segmentsOf(root: string, path: string): string[] {
  const rel = relative(root, path);
  return rel === '' ? [] : rel.toLowerCase().split(sep);
}

function scanListing(root: string, path: string): string {
  return relevantListing(readEntries(path), segmentsOf(root, path));
}

/** The scan's directories, shallowest first; undefined past WRAP_CACHE_MAX_SCAN_DIRS. */
function scanDirectories(root: string): ScannedDirectory[] | undefined {
  const found: ScannedDirectory[] = [];
  let level = [root];
  for (let depth = 0; depth <= SCAN_DIRECTORY_DEPTH && level.length > 0; depth += 1) {
    const next: string[] = [];
    for (const path of level) {
      if (found.length >= WRAP_CACHE_MAX_SCAN_DIRS) return undefined;
      const stats = lstat(path);
      const identity = typeof stats === 'string' ? stats : identityOf(stats);
      const changedNs = typeof stats === 'string' ? -1n : stats.ctimeNs;
      if (depth > 0 && basename(path) === UNSCANNED_DIRECTORY) {
        found.push({ path, identity, changedNs, listing: undefined });
        continue;
      }
      const entries = readEntries(path);
      found.push({ path, identity, changedNs, listing: relevantListing(entries, segmentsOf(root, path)) });
      if (typeof entries === 'string' || depth === SCAN_DIRECTORY_DEPTH) continue;
      for (const entry of entries) if (entry.isDirectory()) next.push(join(path, entry.name));
    }
    level = next;
  }
  return found;
}

/** Every path and each directory on its way to `/`. */
function withAncestors(paths: Iterable<string>): Set<string> {
  const all = new Set<string>();
  for (const path of paths) {
    for (let at = path; !all.has(at); at = dirname(at)) {
      all.add(at);
      if (dirname(at) === at) break;
    }
  }
  return all;
}

/** The deepest directory of a glob entry that holds no glob character. */
function globDirectory(pattern: string): string {
  let at = dirname(pattern);
  while (GLOB_CHARACTERS.test(at)) at = dirname(at);
  return at;
}

/**
 * Read the state now. `paths` are absolute; a glob entry among them is kept by its directory's
 * listing. Returns undefined when the scanned tree is too big to be worth checking.
 */
export function readWrapDiskState(scanRoot: string, paths: Iterable<string>): WrapDiskState | undefined {
  const readAtNs = BigInt(Date.now()) * 1_000_000n;
  const scanned = scanDirectories(scanRoot);
  if (scanned === undefined) return undefined;
  const literal: string[] = [];
  const globDirectories = new Map<string, string>();
  for (const path of paths) {
    if (!GLOB_CHARACTERS.test(path)) {
      literal.push(path);
      continue;
    }
    const directory = globDirectory(path);
    literal.push(directory);
    globDirectories.set(directory, wholeListing(readEntries(directory)));
  }
  const identities = new Map<string, string>();
  for (const path of withAncestors(literal)) identities.set(path, pathIdentity(path));
  return { readAtNs, scanned, paths: identities, globDirectories };
}

/** Is the disk, as far as srt's output can tell, as `state` found it? */
export function wrapDiskStateHolds(state: WrapDiskState): boolean {
  const root = state.scanned[0]?.path ?? '/';
  const trustedBefore = state.readAtNs - BigInt(WRAP_CACHE_RACY_MARGIN_MS) * 1_000_000n;
  for (const directory of state.scanned) {
    const stats = lstat(directory.path);
    const identity = typeof stats === 'string' ? stats : identityOf(stats);
    if (identity !== directory.identity) return false;
    if (typeof stats === 'string' || directory.listing === undefined) continue;
    if (stats.ctimeNs === directory.changedNs && directory.changedNs < trustedBefore) continue;
    if (scanListing(root, directory.path) !== directory.listing) return false;
  }
  for (const [path, identity] of state.paths) if (pathIdentity(path) !== identity) return false;
  for (const [directory, listing] of state.globDirectories)
    if (wholeListing(readEntries(directory)) !== listing) return false;
  return true;
}

/**
 * Did the disk go from `before` to `after` (read over the same paths) only by srt making the mount
 * points `made`? A directory whose time moved while its relevant listing stayed the same, and in
 * which no mount point was made, changed by something else (perhaps a file made and removed again
 * across srt's scan), so it does not count as unchanged.
 */
export function changedOnlyBy(before: WrapDiskState, after: WrapDiskState, made: ReadonlySet<string>): boolean {
  const earlier = new Map(before.scanned.map((directory) => [directory.path, directory]));
  for (const directory of after.scanned) {
    const was = earlier.get(directory.path);
    if (was === undefined) {
      if (!made.has(directory.path)) return false;
      continue;
    }
    earlier.delete(directory.path);
    if (was.identity !== directory.identity) return false;
    if (was.listing === directory.listing) {
      const madeHere = [...made].some((path) => dirname(path) === directory.path);
      if (was.changedNs !== directory.changedNs && !madeHere) return false;
      continue;
    }
    if (was.listing === undefined || directory.listing === undefined) return false;
    const old = new Set(was.listing.split('\0'));
    const now = new Set(directory.listing.split('\0'));
    if ([...old].some((entry) => !now.has(entry))) return false;
    const added = [...now].filter((entry) => !old.has(entry));
    if (!added.every((entry) => made.has(join(directory.path, entry.slice(0, entry.lastIndexOf('/')))))) return false;
  }
  if (earlier.size > 0) return false;
  for (const [path, identity] of after.paths) if (before.paths.get(path) !== identity && !made.has(path)) return false;
  for (const [directory, listing] of after.globDirectories)
    if (before.globDirectories.get(directory) !== listing) return false;
  return true;
}

/** More paths' identities, read now (paths srt's output named that the profile did not). */
export function addWrapDiskPaths(state: WrapDiskState, paths: Iterable<string>): void {
  for (const path of withAncestors(paths)) if (!state.paths.has(path)) state.paths.set(path, pathIdentity(path));
}

/**
 * Which inodes `state`'s paths and scanned directories are now, for a sandbox whose mounts were
 * made from them earlier (prestarted-sandbox.ts). A mount holds the dentry it was made on, not the
 * name: once the name is renamed over, or the file unlinked and another made in its place, the
 * mount no longer covers what the name holds on the host, which a fresh wrap would cover. So a
 * path's device and inode, and for anything but a directory its change time too (a hard link made
 * and its first name unlinked keeps the inode at the name, but not the time).
 */
export function readMountIdentity(state: WrapDiskState): string {
  const identities: string[] = [];
  const read = (path: string) => {
    const stats = lstat(path);
    if (typeof stats === 'string') return identities.push(`${path}\0${stats}`);
    const time = stats.isDirectory() ? '' : `:${stats.ctimeNs}`;
    return identities.push(`${path}\0${stats.dev}:${stats.ino}${time}`);
  };
  for (const directory of state.scanned) read(directory.path);
  for (const path of state.paths.keys()) read(path);
  return identities.join('\0\0');
}
