/**
 * The engine of the `search` and `find_files` tools: ripgrep, with the pattern after `-e` (or the
 * glob after `--glob`) so it can never be read as a flag, `--no-config` and a reduced environment
 * (RIPGREP_CONFIG_PATH, which could add `--pre`, stays out), symlinks not followed (ripgrep's
 * default), output and time bounded.
 *
 * SEC-004 (fs-race): the daemon may read userData, so ripgrep walking the workspace by path
 * inside the daemon is a confused deputy: a command that swaps a directory and a symlink into
 * userData while it walks makes it read auth.json. Whenever the host runs commands, search is one:
 * `hostRipgrepSearch` sends it as a `command.request`, and the host runs ripgrep under the
 * per-command kernel profile, where userData and the HOME secrets are unreadable whatever the
 * workspace does. `ripgrepSearch` spawns it in the daemon; it is used only in postures where the
 * host runs no commands, so no sandboxed process exists to race it.
 *
 * What this does not catch: in those postures, the user's own processes racing the walk; the
 * unsandboxed-shell posture (`--unsandboxed-shell`), where the host runs ripgrep without a
 * profile, as it runs every command.
 */
import { spawn } from 'node:child_process';
import { normalize } from 'node:path';
import {
  FIND_FILES_MAX_PATHS,
  SEARCH_MAX_LINE_CHARS,
  SEARCH_MAX_MATCHES,
  SEARCH_INPUT_ERROR_MAX_CHARS,
  SEARCH_MAX_OUTPUT_BYTES,
  SEARCH_STDERR_KEPT_CHARS,
  SEARCH_TIMEOUT_MS,
  WORKSPACE_MAX_SCAN_BYTES,
} from '@bastion/protocol';
import { DaemonError } from '../errors.js';
import type { CommandClient } from '../shell/command-client.js';
import type { ToolRefusal } from './tool-context.js';

export interface SearchMatch {
  path: string;
  line: number;
  text: string;
}

export interface SearchResult {
  matches: SearchMatch[];
  truncated: boolean;
}

export interface FoundFiles {
  paths: string[];
  truncated: boolean;
}

/** What ripgrep printed, read as it comes, bounded; `full` says to stop reading. */
export interface RipgrepOutput<R> {
  readonly full: boolean;
  truncated: boolean;
  push(chunk: string): void;
  finish(): void;
  /** The result for ripgrep's exit code, with what it wrote to stderr. */
  result(exitCode: number | null, stderr: string): R;
}

/** Runs ripgrep with `args` in `cwd` (the workspace root), its output read into `output`. */
export type RipgrepRunner = <R>(
  cwd: string,
  args: readonly string[],
  output: RipgrepOutput<R>,
  signal?: AbortSignal,
) => Promise<R | ToolRefusal>;

export function ripgrepArgs(options: { pattern: string; target: string; glob?: string; fixed?: boolean }): string[] {
  return [
    '--json',
    '--no-config',
    '--no-follow',
    '--max-count',
    String(SEARCH_MAX_MATCHES),
    '--max-filesize',
    String(WORKSPACE_MAX_SCAN_BYTES),
    ...(options.fixed ? ['--fixed-strings'] : []),
    ...(options.glob === undefined ? [] : ['--glob', options.glob]),
    '-e',
    options.pattern,
    '--',
    options.target,
  ];
}

/** `find_files`' arguments: the files under `target` whose path matches `glob`, as ripgrep lists them. */
export function ripgrepFilesArgs(options: { glob: string; target: string }): string[] {
  return ['--files', '--no-config', '--no-follow', '--sort', 'path', '--glob', options.glob, '--', options.target];
}

/** ripgrep's output read a line at a time, at most SEARCH_MAX_OUTPUT_BYTES of it. */
abstract class RipgrepLines<R> implements RipgrepOutput<R> {
  truncated = false;
  #bytes = 0;
  #pending = '';

  get full(): boolean {
    return this.truncated;
  }

  push(chunk: string): void {
    if (this.truncated) return;
    this.#bytes += Buffer.byteLength(chunk);
    if (this.#bytes > SEARCH_MAX_OUTPUT_BYTES) {
      this.truncated = true;
      return;
    }
    this.#pending += chunk;
    const lines = this.#pending.split('\n');
    this.#pending = lines.pop() ?? '';
    for (const line of lines) if (line.length > 0 && !this.truncated) this.take(line);
  }

  finish(): void {
    if (!this.truncated && this.#pending.length > 0) this.take(this.#pending);
    this.#pending = '';
  }

  /** rg exits 0 (found), 1 (nothing) or 2 (an error; what was found before it still counts). */
  result(exitCode: number | null, stderr: string): R {
    if (exitCode === 2 && this.found === 0 && !this.truncated) {
      throw new DaemonError('SEARCH_FAILED', inputError(stderr) ?? 'search failed');
    }
    return this.value();
  }

  /** One whole, non-empty line. */
  protected abstract take(line: string): void;

  /** How many paths or matches were taken. */
  protected abstract get found(): number;

  protected abstract value(): R;
}

/**
 * Why ripgrep refused the model's own pattern or glob ("unclosed group", "unclosed character
 * class; missing ']'"), so the model can mend it; undefined for any other error, whose output may
 * name paths and is not passed on.
 */
export function inputError(stderr: string): string | undefined {
  const clean = (reason: string) => reason.replace(/[^\x20-\x7e]/g, '?').slice(0, SEARCH_INPUT_ERROR_MAX_CHARS);
  const regex = /^regex parse error:\n[\s\S]*?^error: (.+)$/m.exec(stderr);
  if (regex?.[1] !== undefined) {
    return `the pattern is not a regular expression ripgrep reads: ${clean(regex[1])}; escape it, or set fixed_strings to search for the text as it is`;
  }
  const glob = /^error parsing glob '.*': (.+)$/m.exec(stderr);
  if (glob?.[1] !== undefined) return `the glob is not one ripgrep reads: ${clean(glob[1])}`;
  return undefined;
}

/** The paths `rg --files` lists, at most FIND_FILES_MAX_PATHS. */
export class RipgrepPaths extends RipgrepLines<FoundFiles> {
  readonly paths: string[] = [];

  protected take(line: string): void {
    this.paths.push(normalize(line));
    if (this.paths.length >= FIND_FILES_MAX_PATHS) this.truncated = true;
  }

  protected get found(): number {
    return this.paths.length;
  }

  protected value(): FoundFiles {
    return { paths: this.paths, truncated: this.truncated };
  }
}

/** Collects matches from ripgrep's `--json` output, at most SEARCH_MAX_MATCHES. */
export class RipgrepMatches extends RipgrepLines<SearchResult> {
  readonly matches: SearchMatch[] = [];

  protected take(line: string): void {
    let record: {
      type?: string;
      data?: { path?: { text?: string }; line_number?: number; lines?: { text?: string } };
    };
    try {
      record = JSON.parse(line) as typeof record;
    } catch {
      return;
    }
    if (record.type !== 'match' || !record.data?.path?.text) return;
    const text = (record.data.lines?.text ?? '').replace(/\r?\n$/, '');
    this.matches.push({
      path: normalize(record.data.path.text),
      line: record.data.line_number ?? 0,
      text: text.length > SEARCH_MAX_LINE_CHARS ? `${text.slice(0, SEARCH_MAX_LINE_CHARS)}…` : text,
    });
    if (this.matches.length >= SEARCH_MAX_MATCHES) this.truncated = true;
  }

  protected get found(): number {
    return this.matches.length;
  }

  protected value(): SearchResult {
    return { matches: this.matches, truncated: this.truncated };
  }
}

/** A runner that sends ripgrep to the host as a command of the session (see the header). */
export function hostRipgrep(client: CommandClient, scratchDir: string): RipgrepRunner {
  return async (cwd, args, output, signal) => {
    const outcome = await client.run(
      {
        command: 'rg',
        args: [...args],
        cwd,
        workspaceRoot: cwd,
        scratchDir,
        timeoutMs: SEARCH_TIMEOUT_MS,
      },
      signal,
    );
    if ('ok' in outcome) return { ok: false, code: outcome.code, message: outcome.message };
    output.push(outcome.stdout);
    output.finish();
    if (outcome.timed_out || outcome.truncated) output.truncated = true;
    if (outcome.exit_code === 127) throw new DaemonError('SEARCH_UNAVAILABLE', 'ripgrep (rg) is not installed');
    return output.result(outcome.exit_code, outcome.stderr.slice(0, SEARCH_STDERR_KEPT_CHARS));
  };
}

/** Run ripgrep in the daemon, in `cwd` (the workspace root). */
export const ripgrepInDaemon: RipgrepRunner = (cwd, args, output, signal) =>
  new Promise((resolve, reject) => {
    const child = spawn('rg', args, {
      cwd,
      shell: false,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
      signal,
    });
    const timer = setTimeout(() => {
      output.truncated = true;
      child.kill('SIGKILL');
    }, SEARCH_TIMEOUT_MS);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      output.push(chunk);
      if (output.full) child.kill('SIGKILL');
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < SEARCH_STDERR_KEPT_CHARS) stderr += chunk.slice(0, SEARCH_STDERR_KEPT_CHARS - stderr.length);
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        reject(new DaemonError('SEARCH_UNAVAILABLE', 'ripgrep (rg) is not installed', { cause: error }));
      } else {
        reject(new DaemonError('SEARCH_FAILED', 'search failed', { cause: error }));
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      output.finish();
      try {
        resolve(output.result(code, stderr));
      } catch (error) {
        reject(error instanceof Error ? error : new DaemonError('SEARCH_FAILED', 'search failed'));
      }
    });
  });
