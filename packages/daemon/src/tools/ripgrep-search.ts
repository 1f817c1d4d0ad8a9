/**
 * The `search` tool's engine: ripgrep, spawned with `shell: false`, in the workspace root, on a
 * path already proven to be inside it. The pattern goes after `-e` so it can never be read as a
 * flag; `--no-config` and a reduced environment keep RIPGREP_CONFIG_PATH (which could add `--pre`)
 * out; symlinks are not followed (ripgrep's default). Output and time are bounded.
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

export interface SearchMatch {
  path: string;
  line: number;
  text: string;
}

export interface SearchResult {
  matches: SearchMatch[];
  truncated: boolean;
}

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

/** Run ripgrep in `cwd` (the workspace root) over `target` (relative to it). */
export function ripgrepSearch(cwd: string, args: readonly string[], signal?: AbortSignal): Promise<SearchResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('rg', args, {
      cwd,
      shell: false,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
      signal,
    });
    const matches: SearchMatch[] = [];
    let truncated = false;
    let bytes = 0;
    let pending = '';
    const timer = setTimeout(() => {
      truncated = true;
      child.kill('SIGKILL');
    }, SEARCH_TIMEOUT_MS);
    const takeLine = (line: string) => {
      if (line.length === 0 || matches.length >= SEARCH_MAX_MATCHES) return;
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
      matches.push({
        path: normalize(record.data.path.text),
        line: record.data.line_number ?? 0,
        text: text.length > SEARCH_MAX_LINE_CHARS ? `${text.slice(0, SEARCH_MAX_LINE_CHARS)}…` : text,
      });
      if (matches.length >= SEARCH_MAX_MATCHES) {
        truncated = true;
        child.kill('SIGKILL');
      }
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      bytes += Buffer.byteLength(chunk);
      if (bytes > SEARCH_MAX_OUTPUT_BYTES) {
        truncated = true;
        child.kill('SIGKILL');
        return;
      }
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) takeLine(line);
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
      takeLine(pending);
      // rg: 0 = matches, 1 = no match, 2 = error (some files unreadable; matches still count)
      if (code === 2 && matches.length === 0 && !truncated) {
        reject(new DaemonError('SEARCH_FAILED', 'search failed'));
        return;
      }
      resolve({ matches, truncated });
    });
  });
}
