/** Test support for the sandbox tests: the process tree under a pid, and whether a pid still runs. */
import { readFileSync, readlinkSync } from 'node:fs';
import { childPids } from '../support/processes.js';

/** All descendants of `pid` (children first-level first), read from /proc. */
export function descendantPids(pid: number): number[] {
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.shift() as number;
    for (const child of childPids(next)) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** True while the process exists and is not a zombie (a zombie runs nothing; its parent reaps it). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

export function netNamespace(pid: number | 'self'): string {
  return readlinkSync(`/proc/${pid}/ns/net`);
}
