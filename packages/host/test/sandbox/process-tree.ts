/** Test support for the sandbox tests: whether a pid still runs, its command line and network namespace. */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

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

/** The pids of this machine's running processes (not this one) whose command line holds `needle`. */
export function processesWith(needle: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .map(Number)
    .filter((pid) => commandLine(pid).includes(needle) && isRunning(pid));
}
