/**
 * SEC-004 (workspace file access, git-escape): what a protected name links to. A symlink carrying
 * a protected name (`AGENTS.md → docs/guide.md`, `.envrc → cfg/dev.envrc`, `.vscode → cfg/vs`)
 * makes its target as good as that name: an editor, direnv, git or the next run's system prompt
 * reads it through the link. run_command's profile write-denies the real paths such links point
 * to (srt binds them read-only); the file tools are refused them here, by the host, with
 * FS_PROTECTED: a write, edit or removal whose real path is, or lies inside, the real path a
 * protected name resolves to through a symlink (the final one or a directory's on the way).
 *
 * The protected names are those run_command's profile denies, found by the same bounded scan
 * (git-write-protections.ts, with a DirectoryListingCache so a write re-reads only what changed):
 * the root's list (command-profile.ts: steering paths, project instructions, rc files…), every
 * nested steering path and AGENTS.md/CLAUDE.md the scan records (nested-protections.ts, a missing
 * `.claude/commands` behind a linked `.claude` too), the git protections (a git directory's
 * config and hooks, `.git` pointer files, hooks paths, included config), and every `.git` whose
 * whole target is then refused, as `.git/` is. A link that leads outside the workspace is left
 * alone (the file tools cannot write there anyway); a dangling one protects the path it names.
 *
 * One exception keeps instruction files as they were: an AGENTS.md or CLAUDE.md linked to a file
 * itself named AGENTS.md or CLAUDE.md (`CLAUDE.md → AGENTS.md`) is not refused, as that file is
 * asked about before every write already (daemon instruction-files.ts), as a plain one is.
 *
 * A scan that stopped at GIT_REPOSITORY_SCAN_MAX_ENTRIES fails closed: what lies beyond it may
 * hold such a link, so every write and removal in that workspace is refused (run_command runs
 * read-only there too).
 *
 * A ProtectedLinkIndex (one a host) keeps each workspace's result: a link appears in a workspace
 * only through a command (the sidecar and MCP servers cannot write it; the file tools write no
 * link) or the user, so the result is served again while no command runs, none started or ended
 * since, and it is younger than PROTECTED_LINK_SCAN_MAX_AGE_MS; otherwise the workspace is scanned
 * again (a few milliseconds a write in a repository of a few thousand files, measured).
 *
 * What it does not catch: a link the user makes, served stale for at most
 * PROTECTED_LINK_SCAN_MAX_AGE_MS; a link made between this check and the write (only a command can make
 * one, and its profile denies it the protected names that exist: a new one is moved to quarantine
 * after the command); a protected name inside a package tree (`node_modules`), which the scan does
 * not walk; hard links.
 */
import { lstatSync, readlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { workspaceWriteProtections } from '../commands/command-profile.js';
import { GIT_LISTING_CACHE_MAX_ROOTS, PROTECTED_LINK_SCAN_MAX_AGE_MS } from '@bastion/protocol';
import { DirectoryListingCache } from '../commands/directory-listing-cache.js';
import { gitWriteProtections } from '../commands/git-write-protections.js';
import { NESTED_WRITE_PROTECTED } from '../commands/nested-protections.js';
import { isAtOrUnder } from '../sandbox/sandbox-policy-check.js';
import { PROJECT_INSTRUCTION_FILES } from './steering-paths.js';

/** Links followed before a chain counts as a loop (Linux's own limit): nothing is written there. */
const MAX_LINK_HOPS = 40;

const CLAUDE_DIR = '.claude';
const INSTRUCTION_NAMES: ReadonlySet<string> = new Set(PROJECT_INSTRUCTION_FILES.map((name) => name.toLowerCase()));
const isInstructionName = (path: string) => INSTRUCTION_NAMES.has(basename(path).toLowerCase());

export interface ProtectedLinkTarget {
  /** Real path the protected name resolves to (inside the workspace). */
  real: string;
  /** The protected name, relative to the workspace root, `/`-separated as the platform writes it. */
  name: string;
}

export type ProtectedLinkTargets =
  | { complete: true; targets: ProtectedLinkTarget[] }
  /** The scan stopped at its bound: refuse every write (fail closed). */
  | { complete: false };

/**
 * Where `path` (absolute) really leads: resolved one component at a time from `/`, every symlink
 * followed, a dangling one too, whether it is the last component or a folder on the way (`docs →
 * site/docs` with no `site` yet: a write that makes `site/docs/` lands where the link leads), and
 * what does not exist taken as named; undefined for a loop or a component that cannot be read.
 */
function linkedRealPath(path: string): string | undefined {
  let pending = path.split(sep).filter((part) => part.length > 0);
  let resolved: string = sep;
  let hops = 0;
  while (pending.length > 0) {
    const [part, ...rest] = pending as [string, ...string[]];
    pending = rest;
    if (part === '.') continue;
    if (part === '..') {
      resolved = dirname(resolved);
      continue;
    }
    const next = join(resolved, part);
    let stats;
    try {
      stats = lstatSync(next, { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
    if (stats?.isSymbolicLink() !== true) {
      resolved = next;
      continue;
    }
    hops += 1;
    if (hops > MAX_LINK_HOPS) return undefined;
    let target: string;
    try {
      target = readlinkSync(next);
    } catch {
      return undefined;
    }
    if (isAbsolute(target)) resolved = sep;
    pending = [...target.split(sep).filter((piece) => piece.length > 0), ...pending];
  }
  return resolved;
}

/** The protected names of `root` (a real path) as absolute paths, whether or not they exist. */
function protectedNames(root: string, listings: DirectoryListingCache | undefined) {
  const git = gitWriteProtections(root, { home: homedir(), ...(listings === undefined ? {} : { listings }) });
  if (!git.scan.complete) return undefined;
  const names = new Set<string>([...workspaceWriteProtections(root, () => true), join(root, '.git')]);
  for (const path of git.denyWrite) names.add(path);
  for (const repository of git.scan.repositories)
    if (isAtOrUnder(repository.dotGit, root) && repository.dotGit !== root) names.add(repository.dotGit);
  for (const entry of git.scan.nestedProtected) {
    if (basename(entry) !== CLAUDE_DIR) {
      names.add(entry);
      continue;
    }
    for (const nested of NESTED_WRITE_PROTECTED)
      if (nested.startsWith(`${CLAUDE_DIR}/`)) names.add(join(dirname(entry), nested));
  }
  return names;
}

/** The real paths inside `root` protected names lead to through a symlink, from a scan made now. */
export function protectedLinkTargets(root: string, listings?: DirectoryListingCache): ProtectedLinkTargets {
  const names = protectedNames(root, listings);
  if (names === undefined) return { complete: false };
  const targets: ProtectedLinkTarget[] = [];
  for (const name of names) {
    const real = linkedRealPath(name);
    if (real === undefined || real === name || !isAtOrUnder(real, root)) continue;
    if (isInstructionName(name) && isInstructionName(real)) continue;
    targets.push({ real, name: relative(root, name) });
  }
  return { complete: true, targets };
}

/** The protected link target `real` (a write's real path) is or lies in; undefined when none. */
export function protectedLinkTargetOf(
  targets: readonly ProtectedLinkTarget[],
  real: string,
): ProtectedLinkTarget | undefined {
  return targets.find((target) => isAtOrUnder(real, target.real));
}

/**
 * Each workspace's protected link targets, scanned again only when a link may have appeared since
 * (the module comment says when). One a host: its command executor tells it when a command starts
 * and ends, and every write of the file tools asks it.
 */
export class ProtectedLinkIndex {
  readonly #listings = new DirectoryListingCache();
  readonly #kept = new Map<string, { targets: ProtectedLinkTargets; generation: number; at: number }>();
  /** Moves at every command's start and end. */
  #generation = 0;
  #commandsRunning = 0;

  commandStarted(): void {
    this.#commandsRunning += 1;
    this.#generation += 1;
  }

  commandEnded(): void {
    this.#commandsRunning -= 1;
    this.#generation += 1;
  }

  /** The targets of `root` (a real path), from a scan made now or one nothing could have outdated. */
  of(root: string): ProtectedLinkTargets {
    const kept = this.#kept.get(root);
    const now = Date.now();
    if (
      kept !== undefined &&
      this.#commandsRunning === 0 &&
      kept.generation === this.#generation &&
      now - kept.at < PROTECTED_LINK_SCAN_MAX_AGE_MS
    )
      return kept.targets;
    const targets = protectedLinkTargets(root, this.#listings);
    this.#kept.delete(root);
    this.#kept.set(root, { targets, generation: this.#generation, at: now });
    for (const oldest of this.#kept.keys()) {
      if (this.#kept.size <= GIT_LISTING_CACHE_MAX_ROOTS) break;
      this.#kept.delete(oldest);
    }
    return targets;
  }
}
