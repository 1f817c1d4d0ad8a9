/**
 * The `search` tool's engine: ripgrep, with the pattern after `-e` so it can never be read as a
 * flag, `--no-config` and a reduced environment (RIPGREP_CONFIG_PATH, which could add `--pre`,
 * stays out), symlinks not followed (ripgrep's default), output and time bounded.
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
  SEARCH_MAX_LINE_CHARS,
  SEARCH_MAX_MATCHES,
  SEARCH_MAX_OUTPUT_BYTES,
  SEARCH_TIMEOUT_MS,
  WORKSPACE_MAX_READ_BYTES,
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

/** Runs ripgrep with `args` in `cwd` (the workspace root). */
export type SearchRunner = (
  cwd: string,
  args: readonly string[],
  signal?: AbortSignal,
) => Promise<SearchResult | ToolRefusal>;

export function ripgrepArgs(options: { pattern: string; target: string; glob?: string; fixed?: boolean }): string[] {
  return [
    '--json',
    '--no-config',
    '--no-follow',
    '--max-count',
    String(SEARCH_MAX_MATCHES),
    '--max-filesize',
    String(WORKSPACE_MAX_READ_BYTES),
    ...(options.fixed ? ['--fixed-strings'] : []),
    ...(options.glob === undefined ? [] : ['--glob', options.glob]),
    '-e',
    options.pattern,
    '--',
    options.target,
  ];
}

/** Collects matches from ripgrep's `--json` output, bounded; `full` says to stop reading. */
class RipgrepMatches {
  readonly matches: SearchMatch[] = [];
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
    for (const line of lines) this.#take(line);
  }

  finish(): void {
    if (!this.truncated) this.#take(this.#pending);
    this.#pending = '';
  }

  #take(line: string): void {
    if (line.length === 0 || this.truncated) return;
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

  /** rg exits 0 (matches), 1 (none) or 2 (an error; matches found before it still count). */
  result(exitCode: number | null): SearchResult {
    if (exitCode === 2 && this.matches.length === 0 && !this.truncated)
      throw new DaemonError('SEARCH_FAILED', 'search failed');
    return { matches: this.matches, truncated: this.truncated };
  }
}

/** A search runner that sends ripgrep to the host as a command of the session (see the header). */
export function hostRipgrepSearch(client: CommandClient, scratchDir: string): SearchRunner {
  return async (cwd, args, signal) => {
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
    const collected = new RipgrepMatches();
    collected.push(outcome.stdout);
    collected.finish();
    if (outcome.timed_out || outcome.truncated) collected.truncated = true;
    if (outcome.exit_code === 127) throw new DaemonError('SEARCH_UNAVAILABLE', 'ripgrep (rg) is not installed');
    return collected.result(outcome.exit_code);
  };
}

/** Run ripgrep in the daemon, in `cwd` (the workspace root), over `target` (relative to it). */
export const ripgrepSearch: SearchRunner = (cwd, args, signal) =>
  new Promise((resolve, reject) => {
    const child = spawn('rg', args, {
      cwd,
      shell: false,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
      signal,
    });
    const collected = new RipgrepMatches();
    const timer = setTimeout(() => {
      collected.truncated = true;
      child.kill('SIGKILL');
    }, SEARCH_TIMEOUT_MS);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      collected.push(chunk);
      if (collected.full) child.kill('SIGKILL');
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
      collected.finish();
      try {
        resolve(collected.result(code));
      } catch (error) {
        reject(error instanceof Error ? error : new DaemonError('SEARCH_FAILED', 'search failed'));
      }
    });
  });
