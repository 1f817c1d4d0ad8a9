/**
 * SEC-004 (git-escape): what a repository's git configuration points at, shared by the host's
 * per-command profile and the daemon's file tools so both protect the same paths. Git runs hooks
 * from `core.hooksPath` and reads more configuration from `include.path` / `includeIf.*.path`;
 * when those sit inside the workspace, writing there makes the user's own (unsandboxed) git run
 * the writer's code. This reads git's config syntax (sections, subsections, quoting, escapes,
 * continuation lines, comments) without running git, collects every `core.hooksPath` and every
 * include target in every file of the include tree, whatever an `includeIf` condition says today,
 * since a condition (`onbranch:`) can start to hold later.
 *
 * File access is injected (this package has no node:*): each side reads with its own rights.
 * What this does not catch: configuration given by environment (`GIT_CONFIG_*`, `-c`) or read
 * from files this side cannot read; a hooks path that is set after the check.
 */
import { GIT_CONFIG_MAX_FILE_CHARS, GIT_CONFIG_MAX_INCLUDE_DEPTH } from './limits.js';

export interface GitConfigEntry {
  /** `section.key` or `section.subsection.key`; section and key lower case, subsection as written. */
  name: string;
  /** null for a key given without `=` (boolean true). */
  value: string | null;
}

const KEY_CHAR = /[A-Za-z0-9-]/;
const SECTION_CHAR = /[A-Za-z0-9.-]/;

/**
 * Entries of one config file, in order. Parsing stops at the first syntax error, as git refuses
 * such a file; what came before it is returned.
 */
export function parseGitConfig(text: string): GitConfigEntry[] {
  const entries: GitConfigEntry[] = [];
  let section: string | undefined;
  let at = 0;
  const peek = () => text[at];
  const skipToLineEnd = () => {
    while (at < text.length && text[at] !== '\n') at += 1;
  };
  const readValue = (): string => {
    let value = '';
    let quoted = false;
    let pendingSpaces = 0;
    while (at < text.length) {
      const c = text[at++] as string;
      if (c === '\n') {
        if (quoted) throw new SyntaxError('newline in a quoted value');
        break;
      }
      if (!quoted && (c === ';' || c === '#')) {
        skipToLineEnd();
        break;
      }
      if (!quoted && (c === ' ' || c === '\t' || c === '\r')) {
        if (value.length > 0) pendingSpaces += 1;
        continue;
      }
      value += ' '.repeat(pendingSpaces);
      pendingSpaces = 0;
      if (c === '"') {
        quoted = !quoted;
        continue;
      }
      if (c === '\\') {
        const next = text[at++];
        if (next === '\n') continue;
        if (next === '\r' && text[at] === '\n') {
          at += 1;
          continue;
        }
        const escaped = next === 'n' ? '\n' : next === 't' ? '\t' : next === 'b' ? '\b' : next;
        if (escaped !== '\\' && escaped !== '"' && escaped !== '\n' && escaped !== '\t' && escaped !== '\b')
          throw new SyntaxError('unknown escape');
        value += escaped;
        continue;
      }
      value += c;
    }
    if (quoted) throw new SyntaxError('unterminated quote');
    return value;
  };
  const readSection = (): string => {
    let name = '';
    while (at < text.length && SECTION_CHAR.test(peek() as string)) name += text[at++];
    if (name.length === 0) throw new SyntaxError('empty section name');
    if (peek() === ']') {
      at += 1;
      // `[section.sub]` (the old form) is lower case as a whole.
      return name.toLowerCase();
    }
    while (peek() === ' ' || peek() === '\t') at += 1;
    if (peek() !== '"') throw new SyntaxError('bad section header');
    at += 1;
    let subsection = '';
    for (;;) {
      const c = text[at++];
      if (c === undefined || c === '\n') throw new SyntaxError('unterminated subsection');
      if (c === '"') break;
      subsection += c === '\\' ? (text[at++] ?? '') : c;
    }
    if (text[at++] !== ']') throw new SyntaxError('bad section header');
    return `${name.toLowerCase()}.${subsection}`;
  };
  try {
    while (at < text.length) {
      const c = text[at] as string;
      if (c === ' ' || c === '\t' || c === '\r' || c === '\n') {
        at += 1;
      } else if (c === '#' || c === ';') {
        skipToLineEnd();
      } else if (c === '[') {
        at += 1;
        section = readSection();
      } else if (/[A-Za-z]/.test(c)) {
        if (section === undefined) throw new SyntaxError('key outside a section');
        let key = '';
        while (at < text.length && KEY_CHAR.test(peek() as string)) key += text[at++];
        while (peek() === ' ' || peek() === '\t') at += 1;
        let value: string | null = null;
        if (peek() === '=') {
          at += 1;
          value = readValue();
        } else if (peek() === undefined || peek() === '\n' || peek() === '\r' || peek() === '#' || peek() === ';') {
          skipToLineEnd();
        } else {
          throw new SyntaxError('bad key');
        }
        entries.push({ name: `${section}.${key.toLowerCase()}`, value });
      } else {
        throw new SyntaxError('unexpected character');
      }
    }
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
  }
  return entries;
}

/** What the references need of the file system; each side passes its own. */
export interface GitConfigFileAccess {
  /** A file's text, or undefined when it is absent or unreadable. */
  readText(path: string): string | undefined;
  /** `relative` resolved against the directory `base` (an absolute `relative` stays as it is). */
  resolve(base: string, relative: string): string;
  dirname(path: string): string;
  /** The HOME `~/` expands to, when known. */
  home: string | undefined;
}

export interface GitConfigReferences {
  /** Every config file of the include tree that was looked at (absent ones included). */
  files: string[];
  /** Every `core.hooksPath` value, with `~/` expanded; a relative one is still relative (to the worktree). */
  hooksPaths: string[];
}

function expandHome(value: string, home: string | undefined): string | undefined {
  if (value === '~' || value.startsWith('~/')) return home === undefined ? undefined : `${home}${value.slice(1)}`;
  return value;
}

/**
 * Follow `include.path` and every `includeIf.<condition>.path` from `roots` (absolute config
 * file paths), at most GIT_CONFIG_MAX_INCLUDE_DEPTH deep as git does, and collect the hooks paths.
 */
export function gitConfigReferences(roots: readonly string[], access: GitConfigFileAccess): GitConfigReferences {
  const files: string[] = [];
  const hooksPaths: string[] = [];
  const visit = (file: string, depth: number) => {
    if (files.includes(file)) return;
    files.push(file);
    const text = access.readText(file);
    if (text === undefined || text.length > GIT_CONFIG_MAX_FILE_CHARS) return;
    for (const entry of parseGitConfig(text)) {
      if (entry.value === null) continue;
      if (entry.name === 'core.hookspath') {
        const expanded = expandHome(entry.value, access.home);
        if (expanded !== undefined && expanded.length > 0) hooksPaths.push(expanded);
      } else if (
        (entry.name === 'include.path' || (entry.name.startsWith('includeif.') && entry.name.endsWith('.path'))) &&
        depth < GIT_CONFIG_MAX_INCLUDE_DEPTH
      ) {
        const expanded = expandHome(entry.value, access.home);
        if (expanded !== undefined && expanded.length > 0)
          visit(access.resolve(access.dirname(file), expanded), depth + 1);
      }
    }
  };
  for (const root of roots) visit(root, 0);
  return { files, hooksPaths };
}

/**
 * The git directory a `.git` file points at (`gitdir: <path>`, relative to the file's directory),
 * or undefined when the text is no such pointer.
 */
export function gitDirOfPointer(text: string): string | undefined {
  const match = /^gitdir: (.+?)\r?\n?$/.exec(text);
  return match?.[1];
}

/** The system and user config files git reads (`XDG_CONFIG_HOME` defaults to `~/.config`). */
export function globalGitConfigFiles(home: string, xdgConfigHome?: string): string[] {
  const xdg = xdgConfigHome !== undefined && xdgConfigHome.length > 0 ? xdgConfigHome : `${home}/.config`;
  return ['/etc/gitconfig', `${xdg}/git/config`, `${home}/.gitconfig`];
}

export interface GitRepositoryAccess extends GitConfigFileAccess {
  /** What is at `path` without following a final symlink, or undefined when nothing is. */
  kind(path: string): 'directory' | 'file' | 'other' | undefined;
  basename(path: string): string;
}

/** One repository as git finds it from a worktree: where its state and configuration live. */
export interface GitRepositoryLayout {
  worktree: string;
  /** `<worktree>/.git`, a directory or a `gitdir:` pointer file. */
  dotGit: string;
  dotGitIsFile: boolean;
  /** The repository's own git directory (a linked worktree's or a submodule's, behind a pointer). */
  gitDir: string;
  /** Where `commondir` sends config, hooks, objects and refs: the git directory itself without one. */
  commonDir: string;
  /** Every config file git may read for it, includes followed (global ones first). */
  configFiles: string[];
  /** Every configured hooks directory, absolute. For husky's `<dir>/_`, `<dir>` too: its stubs run the scripts there. */
  hooksDirs: string[];
}

/**
 * The repository whose worktree is `worktree`, or undefined when there is no `.git` there.
 * `globalConfigFiles` are the system and user config files (absolute), read for their hooks path.
 */
export function gitRepositoryLayout(
  worktree: string,
  globalConfigFiles: readonly string[],
  access: GitRepositoryAccess,
): GitRepositoryLayout | undefined {
  const dotGit = access.resolve(worktree, '.git');
  const kind = access.kind(dotGit);
  let gitDir: string;
  if (kind === 'directory') {
    gitDir = dotGit;
  } else if (kind === 'file') {
    const pointer = gitDirOfPointer(access.readText(dotGit) ?? '');
    if (pointer === undefined) return undefined;
    gitDir = access.resolve(worktree, pointer);
  } else {
    return undefined;
  }
  const commonDirText = access.readText(access.resolve(gitDir, 'commondir'))?.trim();
  const commonDir =
    commonDirText === undefined || commonDirText.length === 0 ? gitDir : access.resolve(gitDir, commonDirText);
  const references = gitConfigReferences(
    [...globalConfigFiles, access.resolve(commonDir, 'config'), access.resolve(gitDir, 'config.worktree')],
    access,
  );
  const hooksDirs: string[] = [];
  for (const configured of references.hooksPaths) {
    const dir = access.resolve(worktree, configured);
    hooksDirs.push(dir);
    const parent = access.dirname(dir);
    if (access.basename(dir) === '_' && parent !== worktree) hooksDirs.push(parent);
  }
  return {
    worktree,
    dotGit,
    dotGitIsFile: kind === 'file',
    gitDir,
    commonDir,
    configFiles: references.files,
    hooksDirs: [...new Set(hooksDirs)],
  };
}
