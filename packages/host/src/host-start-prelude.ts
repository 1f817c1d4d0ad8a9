/**
 * SEC-004, issue 21: the first steps of a host's start, the ones before its home lock: the home's
 * storage check and its modes (user-data.ts), the host's journaled temp root (host-temp-root.ts)
 * and srt's initialize, which mostly waits for its bridge processes to come up. The CLI's entry
 * begins them for `start` and `run` before it loads the command line and the host (main.ts), so
 * srt's wait overlaps the host's module loading; srt makes its sockets in TMPDIR, and the temp root
 * is claimed (TMPDIR pointed into it) before srt is asked, so a killed host leaves them only inside
 * the root the next start removes. Any other host begins them itself (startBastionHost).
 *
 * The host takes the process's prelude only when it was begun for exactly the start it makes (the
 * same userData path as given, process ownership, srt or not); any other prelude is released and
 * the steps run again for the start at hand. A host that then finds the home taken (HOME_IN_USE)
 * releases what the prelude acquired, as every failed start does.
 *
 * What it does not catch: a second process's prelude on a home a live host owns writes that
 * process's own journal entry (and removes it again when the lock refuses); it never sweeps a
 * live host's root.
 */
import { existsSync, rmdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ensureUserData, hostOnlyDir, type LooseUserDataEntry } from './user-data.js';
import { beginSrtSession, type BegunSrtSession } from './sandbox/srt-session.js';
import { claimHostTempRoot, HOST_TEMP_JOURNAL_DIR, type HostTempRoot } from './sandbox/host-temp-root.js';
import { assertHomeStorageUsable } from './storage/home-storage-check.js';

export { resolveUserDataPath } from './user-data.js';

/** What a host start is begun for. */
export interface HostStartRequest {
  /** userData as the start is given it (before realpath). */
  userData: string;
  /** The host owns the process: its journaled temp root becomes the process's TMPDIR (host-temp-root.ts). */
  ownsProcess: boolean;
  /** Start srt's initialize (the sandboxed posture's outer sandbox). */
  srt: boolean;
}

/**
 * srt's session, wraps usable at once, with its initialize still under way (srt-session.ts), or why
 * it could not be begun; whether a failure matters is the posture's to decide later.
 */
export type EarlySrt = Promise<BegunSrtSession | { error: unknown }>;

export interface HostStartPrelude {
  readonly request: Readonly<HostStartRequest>;
  /** userData's real path and the entries whose loose modes were repaired (the host logs them). */
  readonly owned: { path: string; repaired: LooseUserDataEntry[] };
  readonly temp: HostTempRoot;
  readonly srt: EarlySrt | undefined;
  /** performance.now() when the prelude began. */
  readonly began: number;
  /** The directories the prelude made for userData (it and its missing ancestors), deepest first. */
  readonly createdDirs: readonly string[];
  /** Give back srt's session (the last release resets srt), then the temp root. Idempotent. */
  release(): Promise<void>;
}

/** Run the steps for `request` now; throws what the storage check or the claim throws (nothing is then held). */
export function beginHostStart(request: HostStartRequest): HostStartPrelude {
  const began = performance.now();
  const createdDirs = missingDirs(request.userData);
  assertHomeStorageUsable(request.userData);
  const owned = ensureUserData(request.userData);
  const temp = claimHostTempRoot(hostOnlyDir(owned.path), { ownsProcess: request.ownsProcess });
  const srt: EarlySrt | undefined = request.srt ? beginSrtSession().catch((error: unknown) => ({ error })) : undefined;
  let released: Promise<void> | undefined;
  return {
    request: { ...request },
    owned,
    temp,
    srt,
    began,
    createdDirs,
    release() {
      released ??= (async () => {
        try {
          const early = await srt;
          if (early && 'session' in early) await early.session.release();
        } finally {
          temp.release();
        }
      })();
      return released;
    },
  };
}

/** The prelude the CLI's entry began for this process's host, until a host takes it. */
let pending: HostStartPrelude | undefined;

/**
 * The CLI's entry: begin this process's host start for `request`. A failure here is left for the
 * host to meet again and report (it runs the same steps when it finds no prelude).
 */
export function beginProcessHostStart(request: HostStartRequest): void {
  if (pending) return;
  try {
    pending = beginHostStart(request);
  } catch {
    pending = undefined;
  }
}

const sameRequest = (a: HostStartRequest, b: HostStartRequest) =>
  a.userData === b.userData && a.ownsProcess === b.ownsProcess && a.srt === b.srt;

/**
 * The host's first step: the process's pending prelude when it was begun for exactly `request`,
 * else (after releasing any other) one begun now. The caller owns what it returns.
 */
export async function takeHostStart(request: HostStartRequest): Promise<HostStartPrelude> {
  const found = pending;
  pending = undefined;
  if (found && sameRequest(found.request, request)) return found;
  await found?.release();
  return beginHostStart(request);
}

/** The CLI's entry, once the command has finished: release a prelude no host took (a usage error, say). */
export async function releaseUntakenHostStart(): Promise<void> {
  const found = pending;
  pending = undefined;
  if (!found) return;
  await found.release();
  // A command refused before it started anything (a bad --endpoint, say) leaves no home behind:
  // what the prelude made for it goes again, one empty directory at a time, so nothing anyone
  // wrote there meanwhile is removed.
  if (found.createdDirs.length === 0) return;
  const host = hostOnlyDir(found.createdDirs[0]!);
  for (const dir of [join(host, HOST_TEMP_JOURNAL_DIR), host, ...found.createdDirs]) {
    try {
      rmdirSync(dir);
    } catch {
      return;
    }
  }
}

/** `path` and each ancestor of it that does not exist yet, deepest first. */
function missingDirs(path: string): string[] {
  const missing: string[] = [];
  for (let dir = resolve(path); !existsSync(dir) && dirname(dir) !== dir; dir = dirname(dir)) missing.push(dir);
  return missing;
}
