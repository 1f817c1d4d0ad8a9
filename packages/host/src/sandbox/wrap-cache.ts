/**
 * SEC-004 (outer sandbox), issue 21: run_command wraps kept between commands, so that a command
 * does not pay for srt rebuilding the same bwrap arguments (its path walks and its `rg` scan, most
 * of a wrap's cost: bench/README.md) while keeping srt's invariant that a wrap reflects the disk at
 * execution.
 *
 * What is kept: srt's bwrap arguments for one profile (the key: the profile's lists, with this
 * command's private temp dir standing for any command's, the working directory and HOME), with
 * the disk state they were built from (wrap-disk-state.ts). A wrap is served from here only when
 * that state still holds, checked synchronously just before, and when the placeholder guard
 * answers srt's questions as it did (they are asked again, so the guard still watches each path).
 * Anything else — another profile (a policy, allowlist, mode or protected-path change: the profile
 * is built per command, so any of them is a new key), a changed directory in srt's scan, a path
 * that resolves otherwise — is a full wrap by srt. A full wrap is kept only if no command ran
 * while it was built (so what srt saw is what was read before it), srt opened no arguments file,
 * and the disk changed during it only by srt's own mount points. Those then stay, since the kept
 * binds need them, until the wrap is dropped and no command runs under it (inside `.git` only:
 * elsewhere the placeholder warden makes srt skip them); srt's cleanup is given back then.
 *
 * The argv: srt's is `/bin/sh -c "bwrap … -- /bin/sh -c 'VAR=0 apply-seccomp /bin/sh -c …'"`.
 * It is parsed back (srt quotes each word one way; the parse is checked by quoting it again) and
 * run without the three shells: `bwrap … --clearenv --setenv NAME VALUE… --setenv VAR 0 -- apply-seccomp
 * <argv>`, the same mounts, namespaces and seccomp helper; the command's environment is set by bwrap
 * (no `env -i` process inside: one exec less a command).
 * Any other shape (srt's arguments file for very long profiles, no seccomp helper) is spawned as
 * srt gave it and not kept.
 *
 * What it does not catch: a change srt would see that is not in its arguments' inputs as
 * wrap-disk-state.ts reads them (file contents, anything deeper than srt's scan); a change during
 * a concurrent command's run (as for srt's own wrap); a writer other than a command (the user)
 * making and undoing a protected file exactly across srt's scan of a wrap that is then kept.
 */
import { dirname } from 'node:path';
import { quote } from '@anthropic-ai/sandbox-runtime/dist/utils/shell-quote.js';
import type { SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import { WRAP_CACHE_MAX_ENTRIES } from '@bastion/protocol';
import {
  addWrapDiskPaths,
  changedOnlyBy,
  readMountIdentity,
  readWrapDiskState,
  wrapDiskStateHolds,
  type WrapDiskState,
} from './wrap-disk-state.js';

/** srt's quote(): each word bare or single-quoted (a quote inside as `'"'"'`), one space apart. */
const BARE_WORD = /^[A-Za-z0-9_./:=@+,-]+/;
const QUOTE_INSIDE = `"'"`;
const ENV_ASSIGNMENT = /^([A-Z_][A-Z0-9_]*)=(.*)$/s;
/** Paths srt adds on its own when they exist (linux-sandbox-utils.js: ssh is strict about its config's owner). */
const SRT_CONDITIONAL_PATHS = ['/etc/ssh/ssh_config.d'];

/** The words srt's quote() made `text` of, or undefined when it is not such a string. */
export function unquoteWords(text: string): string[] | undefined {
  const words: string[] = [];
  let at = 0;
  while (at < text.length) {
    let word = '';
    if (text[at] === "'") {
      for (;;) {
        const end = text.indexOf("'", at + 1);
        if (end < 0) return undefined;
        word += text.slice(at + 1, end);
        at = end + 1;
        if (!text.startsWith(`${QUOTE_INSIDE}'`, at)) break;
        word += "'";
        at += QUOTE_INSIDE.length;
      }
    } else {
      const bare = BARE_WORD.exec(text.slice(at));
      if (!bare) return undefined;
      word = bare[0];
      at += word.length;
    }
    words.push(word);
    if (at === text.length) break;
    if (text[at] !== ' ') return undefined;
    at += 1;
  }
  return quote(words) === text ? words : undefined;
}

/** bwrap's words before its `--`, and the seccomp helper with the variables srt gives it. */
export interface WrapParts {
  bwrap: string[];
  helperEnv: Array<[string, string]>;
  helper: string;
}

/**
 * srt's argv for `command` (run by `shell`), taken apart; undefined for any other shape. The
 * inner command must be exactly the one wrapped, so nothing of srt's is dropped with the shells.
 */
export function wrapParts(argv: readonly string[], shell: string, command: string): WrapParts | undefined {
  if (argv.length !== 3 || argv[0] !== shell || argv[1] !== '-c') return undefined;
  const words = unquoteWords(argv[2] ?? '');
  if (words === undefined || words.length < 5) return undefined;
  const tail = words.slice(-4);
  if (tail[0] !== '--' || tail[1] !== shell || tail[2] !== '-c') return undefined;
  const inner = unquoteWords(tail[3] ?? '');
  if (inner === undefined) return undefined;
  const helperAt = inner.findIndex((word) => !ENV_ASSIGNMENT.test(word));
  const rest = inner.slice(helperAt);
  if (helperAt < 0 || rest.length !== 4 || rest[1] !== shell || rest[2] !== '-c' || rest[3] !== command)
    return undefined;
  const helper = rest[0];
  if (helper === undefined || !helper.startsWith('/')) return undefined;
  const helperEnv = inner.slice(0, helperAt).map((word): [string, string] => {
    const [, name = '', value = ''] = ENV_ASSIGNMENT.exec(word) ?? [];
    return [name, value];
  });
  return { bwrap: words.slice(0, -4), helperEnv, helper };
}

/**
 * The argv to spawn: bwrap straight into the seccomp helper, which runs `argv` with exactly `env`.
 * bwrap applies its environment options in order, so `--clearenv` drops whatever srt set before it
 * (and the host's own environment), then `env` is set, then the helper's variables, last so that
 * nothing in `env` can change them (the helper removes its own before it runs `argv`).
 */
export function directArgv(parts: WrapParts, argv: readonly string[], env: Readonly<Record<string, string>>): string[] {
  return [
    ...parts.bwrap,
    '--clearenv',
    ...Object.entries(env).flatMap(([name, value]) => ['--setenv', name, value]),
    ...parts.helperEnv.flatMap(([name, value]) => ['--setenv', name, value]),
    '--',
    parts.helper,
    ...argv,
  ];
}

const PRIVATE_TEMP = '\0private-temp\0';

/** A profile list's entry: a path or pattern, or a path srt must take literally. */
type PathEntry = NonNullable<NonNullable<SandboxRuntimeConfig['filesystem']>['denyRead']>[number];

function entryPath(entry: PathEntry): string {
  return typeof entry === 'string' ? entry : entry.path;
}

/** The profile with this command's private temp dir as any command's, plus where srt looks from. */
export function wrapKey(policy: SandboxRuntimeConfig, privateTemp: string, home: string): string {
  const lists = policy.filesystem;
  // Any command's private temp dir, in the same directory (srt treats a write root by where it lies).
  const anyPrivateTemp = `${PRIVATE_TEMP}${dirname(privateTemp)}`;
  const swap = (list: readonly PathEntry[] | undefined) =>
    list?.map((entry) => (entryPath(entry) === privateTemp ? anyPrivateTemp : entry));
  return JSON.stringify([
    process.cwd(),
    home,
    policy.network,
    lists && {
      ...lists,
      allowWrite: swap(lists.allowWrite),
      denyWrite: swap(lists.denyWrite),
      denyRead: swap(lists.denyRead),
      allowRead: swap(lists.allowRead),
    },
  ]);
}

/** Every path the profile names except the private temp dir (new each command, made by the host). */
function profilePaths(policy: SandboxRuntimeConfig, privateTemp: string): string[] {
  const lists = policy.filesystem;
  return [
    process.cwd(),
    ...[
      ...(lists?.denyRead ?? []),
      ...(lists?.allowRead ?? []),
      ...(lists?.allowWrite ?? []),
      ...(lists?.denyWrite ?? []),
    ].map(entryPath),
    ...SRT_CONDITIONAL_PATHS,
  ].filter((path) => path !== privateTemp);
}

interface KeptWrap {
  key: string;
  parts: WrapParts;
  /** The private temp dir of the command it was built for: replaced word for word. */
  privateTemp: string;
  state: WrapDiskState;
  /** srt's placeholder questions and the guard's answers (asked again for each hit: the guard then watches those paths). */
  asked: Array<[string, boolean]>;
  /** The cache itself while it keeps this, and each command running under it. */
  holders: number;
  /** srt's cleanup of the wrap this was built by: its mount points stay until then. */
  release: () => void;
}

/** A kept wrap served: its parts for this command, its `ended`, and the inodes it depends on now (wrap-disk-state.ts). */
export interface KeptWrapHit {
  parts: WrapParts;
  ended: () => void;
  mounts: () => string;
}

export interface WrapCacheMiss {
  key: string;
  paths: string[];
  /** Read before srt's wrap; undefined when the tree is too big to keep wraps for. */
  before: WrapDiskState | undefined;
  /** No command was running when it was read, and how many had been started by then. */
  quiet: boolean;
  startedBefore: number;
}

/** What srt made on the host for the wraps it has not cleaned up (its `hostResources()`). */
export interface SrtHostResources {
  mountPoints: string[];
  emptyMountSource: string | undefined;
  argsFiles: number;
}

export class WrapCache {
  readonly #kept = new Map<string, KeptWrap>();
  #running = 0;
  #started = 0;

  /** Count a command as running until the returned function is called (once). */
  #begin(onEnd: () => void): () => void {
    this.#running += 1;
    this.#started += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#running -= 1;
      onEnd();
    };
  }

  #unhold(kept: KeptWrap): void {
    kept.holders -= 1;
    if (kept.holders === 0) kept.release();
  }

  #drop(kept: KeptWrap): void {
    if (this.#kept.get(kept.key) !== kept) return;
    this.#kept.delete(kept.key);
    this.#unhold(kept);
  }

  /** The kept wrap for this key if the disk still holds what it was built from and the guard answers as before; else it is dropped. */
  #hit(
    key: string,
    privateTemp: string,
    skipPlaceholder: ((path: string) => boolean) | undefined,
  ): { kept: KeptWrap; parts: WrapParts } | undefined {
    const kept = this.#kept.get(key);
    if (kept === undefined) return undefined;
    if (wrapDiskStateHolds(kept.state) && kept.asked.every(([path, skipped]) => skipPlaceholder?.(path) === skipped)) {
      kept.holders += 1;
      const bwrap = kept.parts.bwrap.map((word) => (word === kept.privateTemp ? privateTemp : word));
      return { kept, parts: { ...kept.parts, bwrap } };
    }
    this.#drop(kept);
    return undefined;
  }

  /**
   * The kept parts for this profile if the disk still holds what they were built from and the
   * guard answers srt's placeholder questions as before (asking them again); else a miss, with
   * the state read before the full wrap. A hit's `ended` must be called once its process exited;
   * its `mounts` reads which inodes the paths it depends on are now (wrap-disk-state.ts).
   */
  lookup(
    policy: SandboxRuntimeConfig,
    privateTemp: string,
    home: string,
    skipPlaceholder: ((path: string) => boolean) | undefined,
  ): KeptWrapHit | WrapCacheMiss {
    const key = wrapKey(policy, privateTemp, home);
    const hit = this.#hit(key, privateTemp, skipPlaceholder);
    if (hit !== undefined) {
      const { kept, parts } = hit;
      return { parts, ended: this.#begin(() => this.#unhold(kept)), mounts: () => readMountIdentity(kept.state) };
    }
    const paths = profilePaths(policy, privateTemp);
    return {
      key,
      paths,
      before: readWrapDiskState(process.cwd(), paths),
      quiet: this.#running === 0,
      startedBefore: this.#started,
    };
  }

  /**
   * A hit as lookup's, for a sandbox started before its command (prestarted-sandbox.ts), or
   * undefined; a miss builds nothing. Not counted as a running command: nothing runs in it until a
   * command takes it, and that command looks its wrap up itself. `ended` (once) gives the hold back.
   */
  hold(
    policy: SandboxRuntimeConfig,
    privateTemp: string,
    home: string,
    skipPlaceholder: ((path: string) => boolean) | undefined,
  ): KeptWrapHit | undefined {
    const hit = this.#hit(wrapKey(policy, privateTemp, home), privateTemp, skipPlaceholder);
    if (hit === undefined) return undefined;
    const { kept, parts } = hit;
    let ended = false;
    return {
      parts,
      ended: () => {
        if (ended) return;
        ended = true;
        this.#unhold(kept);
      },
      mounts: () => readMountIdentity(kept.state),
    };
  }

  /**
   * After srt's full wrap for `miss`: keep its parts if they may be, and return the command's
   * `ended`, which gives srt's cleanup back (for a kept wrap, once the cache drops it and no
   * command runs under it). Kept only if no command ran meanwhile (what srt saw is then what was
   * read), srt opened no arguments file, the private temp dir appears only as whole words, and the disk changed during the wrap only by
   * srt's own mount points (which then stay, for the kept wrap's binds, until it is dropped).
   */
  complete(
    miss: WrapCacheMiss,
    wrap: {
      parts: WrapParts | undefined;
      privateTemp: string;
      asked: Array<[string, boolean]>;
      resources: SrtHostResources;
      release: () => void;
    },
  ): () => void {
    const { parts, privateTemp } = wrap;
    const words = parts === undefined ? [] : [...parts.bwrap, parts.helper, ...parts.helperEnv.flat()];
    const keepable =
      parts !== undefined &&
      miss.before !== undefined &&
      miss.quiet &&
      this.#started === miss.startedBefore &&
      wrap.resources.argsFiles === 0 &&
      !words.some((word) => word !== privateTemp && word.includes(privateTemp));
    const after = keepable ? readWrapDiskState(process.cwd(), miss.paths) : undefined;
    const made = new Set(wrap.resources.mountPoints);
    if (
      parts === undefined ||
      miss.before === undefined ||
      after === undefined ||
      !changedOnlyBy(miss.before, after, made)
    )
      return this.#begin(wrap.release);
    addWrapDiskPaths(after, [
      ...wrap.asked.map(([path]) => path),
      ...words.filter((word) => word.startsWith('/') && word !== privateTemp && !word.startsWith(`${privateTemp}/`)),
    ]);
    const old = this.#kept.get(miss.key);
    if (old !== undefined) this.#drop(old);
    if (this.#kept.size >= WRAP_CACHE_MAX_ENTRIES) {
      const oldest = this.#kept.values().next().value;
      if (oldest !== undefined) this.#drop(oldest);
    }
    const kept: KeptWrap = {
      key: miss.key,
      parts,
      privateTemp,
      state: after,
      asked: wrap.asked,
      holders: 2,
      release: wrap.release,
    };
    this.#kept.set(miss.key, kept);
    return this.#begin(() => this.#unhold(kept));
  }

  /** srt is being reset, which removes everything it made: forget every kept wrap without cleaning up. */
  clear(): void {
    for (const kept of this.#kept.values()) kept.release = () => undefined;
    this.#kept.clear();
  }
}
