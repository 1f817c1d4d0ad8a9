/**
 * SEC-004 (agent shell execution, git-escape): repositories a sandboxed command created. At wrap
 * time git-write-protections.ts protects the repositories that exist; one the command makes
 * itself (`git init`, `git init --bare` or a bare git directory made by hand, of any name, a
 * clone, a new submodule, a `.git` file whose `gitdir:` points into the scratch dir, a git
 * directory made by hand under `.git/modules/` or `.git/worktrees/`, which stay writable for
 * ordinary work there) has writable config and hooks during that command, and
 * once staged as a gitlink the host's own `git status` enters it. So after the command has ended
 * — its sandbox and every process in it are gone by then: the namespace's init has exited, and
 * the kernel kills the rest of a PID namespace before that exit is reported (command-process.ts)
 * — the same scan runs again, and every git directory (and common directory, submodules' and
 * linked worktrees' included) that is new, by path and inode, and lies in the command's write
 * roots (the workspace, its scratch dir) is neutralised:
 *   - its `config` is rewritten keeping only INERT_CONFIG_KEYS, and `config.worktree` is removed;
 *   - every hook but git's `*.sample` files is removed, and so are `objects/info/alternates` and
 *     `http-alternates` (another object store);
 * the originals go to `<userData>/host/quarantine/<time>-<command id>/` (0700 dirs, 0600 files,
 * bounded by GIT_QUARANTINE_*; what does not fit is removed without a copy, and the result says
 * so), and the command's result carries a notice naming the repository, what was removed and
 * where the originals are. Bastion never deletes the quarantine.
 *
 * Decision: every repository absent at wrap time counts as the command's, whatever its
 * timestamps say. A repository the user made meanwhile cannot be told apart, but a time window
 * does not tell them apart either (a command can move in a repository it built in its scratch dir
 * during an earlier command, with old timestamps). Neutralising the user's fresh repository loses
 * nothing: a new repository from `git init` holds only inert keys and sample hooks (no notice at
 * all), and anything else is kept and reported.
 *
 * A rebase or sequencer todo list (`rebase-merge/git-rebase-todo`, `sequencer/todo`) of ANY
 * repository that the command created or changed and that holds `exec`/`x` lines is flagged in
 * the result, not changed: it is the user's in-progress work (`git rebase -x "npm test"` is
 * ordinary), and git shows the remaining lines in `git status` and on `git rebase --edit-todo`;
 * they run unsandboxed only on the user's own `git rebase --continue`.
 *
 * What it does not catch: a repository beyond the scan's bound (GIT_REPOSITORY_SCAN_MAX_ENTRIES:
 * the result then says the check is incomplete) or deeper inside a package in `node_modules` than
 * the package's own directory (git-write-protections.ts); while
 * another command that started before the new repository appeared still runs, that one can
 * re-plant until it ends (and neutralises again at its own end); a git directory outside the
 * command's write roots that a new `.git` points at (the command could not have written it: it is left alone); an
 * aborted command's notices (it is neutralised all the same, and the host logs it).
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readlinkSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  COMMAND_MAX_NOTICES,
  COMMAND_NOTICE_MAX_CHARS,
  GIT_CONFIG_MAX_FILE_CHARS,
  GIT_QUARANTINE_MAX_FILE_BYTES,
  GIT_QUARANTINE_MAX_FILES_PER_COMMAND,
  GIT_QUARANTINE_MAX_FOLDERS,
  parseGitConfig,
  GIT_REPOSITORY_SCAN_MAX_ENTRIES,
  type GitConfigEntry,
} from '@bastion/protocol';
import { isAtOrUnder } from '../sandbox/sandbox-policy-check.js';
import { readRegularFile } from '../regular-file.js';
import { quarantineDir } from '../user-data.js';
import { scanGitRepositories, type GitDirectory, type GitRepositoryScan } from './git-write-protections.js';

/**
 * Config keys that can never run code nor send git to another directory (git-config(1)): the
 * repository format (`core.repositoryformatversion`, `extensions.objectformat`,
 * `extensions.refstorage`, without which git misreads the repository), how the worktree's files
 * are compared (`core.filemode`, `core.ignorecase`, `core.precomposeunicode`, `core.symlinks`),
 * `core.bare` and `core.logallrefupdates`, the identity, and where remotes and submodules live
 * and which branches track them. Remote URLs are data: transports that run commands (`ext::`)
 * are off by default (`protocol.ext.allow`), and fetch runs only when the user asks. Left out on
 * purpose, with everything else: `core.fsmonitor`, `core.hooksPath`, `core.sshCommand`,
 * `core.editor`, `core.pager`, `core.worktree`, `include*`, `alias.*`, `filter.*`, `diff.*`,
 * `merge.*`, `credential.*`, `remote.*.uploadpack|receivepack|proxy`, `submodule.*.update`,
 * `extensions.worktreeconfig`.
 */
const INERT_CONFIG_KEYS: readonly RegExp[] = [
  /^core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks)$/,
  /^extensions\.(objectformat|refstorage)$/,
  /^user\.(name|email)$/,
  /^remote\.[^\n]+\.(url|pushurl|fetch)$/,
  /^branch\.[^\n]+\.(remote|merge)$/,
  /^submodule\.[^\n]+\.(url|active)$/,
];

/** Other object stores git reads from (gitrepository-layout(5)): a new repository's are removed. */
const ALTERNATES = [join('objects', 'info', 'alternates'), join('objects', 'info', 'http-alternates')];

const TODO_LISTS = [join('rebase-merge', 'git-rebase-todo'), join('sequencer', 'todo')];
const EXEC_LINE = /^[ \t]*(x|exec)[ \t]/m;

export interface CreatedRepositoryWatch {
  /**
   * After the command ended: neutralise what it created, flag planted todo lists; the notices for
   * its result. `after` is the workspace scanned again now (scanned here when not given).
   */
  afterCommand(after?: GitRepositoryScan): string[];
}

interface WatchOptions {
  root: string;
  home: string;
  /** The command's write roots that outlive it (the workspace root, the scratch dir), real paths. */
  writeRoots: string[];
  userData: string;
  commandId: string;
  /** A path's real path, or undefined when it does not resolve. */
  realPath: (path: string) => string | undefined;
}

function identity(path: string): string | undefined {
  try {
    const stats = lstatSync(path);
    return stats.isDirectory() ? `${path}\0${stats.dev}:${stats.ino}` : undefined;
  } catch {
    return undefined;
  }
}

function digest(bytes: Buffer | undefined): string | undefined {
  return bytes === undefined ? undefined : createHash('sha256').update(bytes).digest('hex');
}

function todoDigests(directories: readonly GitDirectory[]): Map<string, string | undefined> {
  const digests = new Map<string, string | undefined>();
  for (const directory of directories)
    for (const list of TODO_LISTS) {
      const path = join(directory.gitDir, list);
      digests.set(path, digest(readRegularFile(path, GIT_CONFIG_MAX_FILE_CHARS)));
    }
  return digests;
}

/** Control characters out, for names taken from the repository into a notice. */
function printable(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}]/gu, '?');
}

function quoteConfigValue(value: string): string {
  return `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n').replaceAll('\t', '\\t')}"`;
}

/** `entries` as git config text; section, subsection and key as parsed (git's names are case-insensitive). */
function serializeConfig(entries: readonly GitConfigEntry[]): string {
  let text = '';
  let current: string | undefined;
  for (const entry of entries) {
    const dot = entry.name.indexOf('.');
    const last = entry.name.lastIndexOf('.');
    const section = entry.name.slice(0, dot);
    const subsection = dot === last ? undefined : entry.name.slice(dot + 1, last);
    const header =
      subsection === undefined
        ? `[${section}]`
        : `[${section} "${subsection.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"]`;
    if (header !== current) {
      text += `${header}\n`;
      current = header;
    }
    const key = entry.name.slice(last + 1);
    text += entry.value === null ? `\t${key}\n` : `\t${key} = ${quoteConfigValue(entry.value)}\n`;
  }
  return text;
}

/** Where one command's originals go; created on first use, bounded. */
class Quarantine {
  readonly #parent: string;
  readonly #name: string;
  #dir: string | undefined;
  #files = 0;
  #full = false;

  constructor(userData: string, commandId: string) {
    this.#parent = quarantineDir(userData);
    this.#name = `${new Date().toISOString().replaceAll(':', '-')}-${commandId}`;
  }

  get dir(): string {
    return join(this.#parent, this.#name);
  }

  #open(): string | undefined {
    if (this.#dir !== undefined) return this.#dir;
    if (this.#full) return undefined;
    mkdirSync(this.#parent, { recursive: true, mode: 0o700 });
    if (readdirSync(this.#parent).length >= GIT_QUARANTINE_MAX_FOLDERS) {
      this.#full = true;
      return undefined;
    }
    mkdirSync(this.dir, { mode: 0o700 });
    this.#dir = this.dir;
    return this.#dir;
  }

  /** Keep `bytes` as `<index>/<name>`; false when the bounds leave no room. */
  keep(index: number, name: string, bytes: Buffer | string): boolean {
    if (this.#files >= GIT_QUARANTINE_MAX_FILES_PER_COMMAND || bytes.length > GIT_QUARANTINE_MAX_FILE_BYTES)
      return false;
    const dir = this.#open();
    if (dir === undefined) return false;
    const target = join(dir, String(index), name);
    mkdirSync(join(target, '..'), { recursive: true, mode: 0o700 });
    writeFileSync(target, bytes, { mode: 0o600, flag: 'wx' });
    this.#files += 1;
    return true;
  }

  get used(): boolean {
    return this.#dir !== undefined;
  }
}

/** Replace `path` (never through a symlink) with `text`: a new file renamed over it. */
function replaceFile(path: string, text: string): void {
  const temporary = `${path}.bastion-${process.pid}`;
  // `wx` is O_CREAT|O_EXCL: it fails on anything already there, a symlink included.
  writeFileSync(temporary, text, { flag: 'wx', mode: 0o644 });
  renameSync(temporary, path);
}

interface Neutralised {
  keys: string[];
  removed: string[];
  notKept: string[];
}

/** Keep the original at `path` (a file or a symlink) in quarantine; returns whether it was kept. */
function keepOriginal(path: string, quarantine: Quarantine, index: number, name: string): boolean {
  const stats = lstatSync(path);
  if (stats.isSymbolicLink()) return quarantine.keep(index, `${name}.symlink`, `${readlinkSync(path)}\n`);
  const bytes = readRegularFile(path, GIT_QUARANTINE_MAX_FILE_BYTES);
  return bytes !== undefined && quarantine.keep(index, name, bytes);
}

function neutraliseGitDir(
  commonDir: string | undefined,
  gitDir: string | undefined,
  quarantine: Quarantine,
  index: number,
): Neutralised {
  const result: Neutralised = { keys: [], removed: [], notKept: [] };
  const drop = (path: string, name: string) => {
    if (!keepOriginal(path, quarantine, index, name)) result.notKept.push(name);
  };
  if (commonDir !== undefined) {
    const config = join(commonDir, 'config');
    const kind = lstatSafe(config);
    if (kind !== undefined) {
      const text = kind.isFile() ? readRegularFile(config, GIT_CONFIG_MAX_FILE_CHARS)?.toString('utf8') : undefined;
      const entries = text === undefined ? [] : parseGitConfig(text);
      const kept = entries.filter((entry) => INERT_CONFIG_KEYS.some((key) => key.test(entry.name)));
      const dropped =
        text === undefined
          ? ['(the whole file)']
          : entries.filter((entry) => !kept.includes(entry)).map((entry) => entry.name);
      // A file git cannot parse past a syntax error is refused by git as a whole: nothing in it runs.
      if (dropped.length > 0) {
        drop(config, 'config');
        result.keys.push(...new Set(dropped));
        replaceFile(config, serializeConfig(kept));
      }
    }
    for (const name of ALTERNATES) {
      const path = join(commonDir, name);
      if (lstatSafe(path) === undefined) continue;
      drop(path, name);
      unlinkSync(path);
      result.removed.push(name);
    }
    const hooks = join(commonDir, 'hooks');
    if (lstatSafe(hooks)?.isDirectory()) {
      for (const entry of readdirSync(hooks, { withFileTypes: true })) {
        if (entry.name.endsWith('.sample') || !(entry.isFile() || entry.isSymbolicLink())) continue;
        const path = join(hooks, entry.name);
        drop(path, join('hooks', entry.name));
        unlinkSync(path);
        result.removed.push(`hooks/${entry.name}`);
      }
    } else if (lstatSafe(hooks) !== undefined) {
      // A symlinked or odd `hooks`: git would follow it to hooks elsewhere.
      drop(hooks, 'hooks');
      unlinkSync(hooks);
      result.removed.push('hooks');
    }
  }
  if (gitDir !== undefined) {
    const worktreeConfig = join(gitDir, 'config.worktree');
    if (lstatSafe(worktreeConfig) !== undefined) {
      drop(worktreeConfig, 'config.worktree');
      unlinkSync(worktreeConfig);
      result.removed.push('config.worktree');
    }
  }
  return result;
}

function lstatSafe(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function describe(gitDir: string, done: Neutralised, quarantine: Quarantine): string {
  const what = [
    ...(done.keys.length > 0
      ? [`config keys ${done.keys.slice(0, 8).map(printable).join(', ')}${done.keys.length > 8 ? ', …' : ''}`]
      : []),
    ...(done.removed.length > 0 ? [done.removed.slice(0, 8).map(printable).join(', ')] : []),
  ].join('; ');
  const kept =
    done.notKept.length === 0
      ? `the originals are in ${quarantine.dir}`
      : `${done.notKept.map(printable).join(', ')} removed WITHOUT a copy (quarantine bound reached)${quarantine.used ? `; the rest are in ${quarantine.dir}` : ''}`;
  return `Bastion removed from the git repository ${printable(gitDir)}, which this command created, what git would run outside the sandbox: ${what}. ${kept}.`;
}

/** At wrap time: remember the wrap-time scan's git directories; afterCommand() compares against them. */
export function watchCreatedRepositories(scan: GitRepositoryScan, options: WatchOptions): CreatedRepositoryWatch {
  const known = new Set<string>();
  for (const directory of scan.gitDirectories)
    for (const dir of [directory.gitDir, directory.commonDir]) {
      const id = identity(options.realPath(dir) ?? dir);
      if (id !== undefined) known.add(id);
    }
  const todos = todoDigests(scan.gitDirectories);
  const writable = (path: string) => options.writeRoots.some((root) => isAtOrUnder(path, root));

  return {
    afterCommand(after = scanGitRepositories(options.root, { home: options.home })) {
      const notices: string[] = [];
      // When the scan before was incomplete too, the workspace was read-only (the result says so already).
      if (!after.complete && scan.complete)
        notices.push(
          `Bastion could not look through all of this workspace for git repositories this command may have created (it holds more than ${GIT_REPOSITORY_SCAN_MAX_ENTRIES} entries): before running git in a new repository here, look at its .git/config and .git/hooks; and look at any new AGENTS.md, CLAUDE.md, .envrc, .vscode, .idea, .devcontainer or .mcp.json below its root before an editor or agent opens that folder.`,
        );
      const quarantine = new Quarantine(options.userData, options.commandId);
      const seen = new Set<string>();
      let index = 0;
      for (const directory of after.gitDirectories) {
        // A directory counts as the command's when it is new (path and inode) and lies where it could write.
        const fresh = (dir: string) => {
          const real = options.realPath(dir);
          if (real === undefined || !writable(real)) return undefined;
          const id = identity(real);
          if (id === undefined || known.has(id) || seen.has(id)) return undefined;
          seen.add(id);
          return real;
        };
        const commonDir = fresh(directory.commonDir);
        const gitDir = directory.gitDir === directory.commonDir ? commonDir : fresh(directory.gitDir);
        if (commonDir === undefined && gitDir === undefined) continue;
        index += 1;
        const done = neutraliseGitDir(commonDir, gitDir, quarantine, index);
        if (done.keys.length + done.removed.length > 0)
          notices.push(describe(gitDir ?? commonDir ?? directory.gitDir, done, quarantine));
      }
      for (const [path, digestAfter] of todoDigests(after.gitDirectories)) {
        if (digestAfter === undefined || todos.get(path) === digestAfter) continue;
        const text = readRegularFile(path, GIT_CONFIG_MAX_FILE_CHARS)?.toString('utf8') ?? '';
        if (!EXEC_LINE.test(text)) continue;
        notices.push(
          `Bastion: this command wrote ${printable(path)}, the todo list of an in-progress rebase or cherry-pick, with exec lines; they run outside the sandbox if you continue it (git rebase --continue, git cherry-pick --continue). Read it first (git status lists what is next), or end it (git rebase --abort, git cherry-pick --abort).`,
        );
      }
      return notices.slice(0, COMMAND_MAX_NOTICES).map((notice) => notice.slice(0, COMMAND_NOTICE_MAX_CHARS));
    },
  };
}
