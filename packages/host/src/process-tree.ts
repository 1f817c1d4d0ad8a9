/**
 * Facts about processes read from /proc (Linux): a process's children and descendants, and when a
 * process started (so a remembered pid is signalled only while it still names the same process).
 * Elsewhere every read fails quietly: no children, no start time.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Direct children of a process, from the children file of each of its tasks under /proc. */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text) out.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    // the process is gone
  }
  return out;
}

/** Every descendant of `pid`, in whatever session or process group it now is, parents first. */
export function descendantPids(pid: number): number[] {
  const found: number[] = [];
  for (let next: number | undefined = pid, i = 0; next !== undefined; next = found[i++]) {
    found.push(...childPids(next));
  }
  return found;
}

/** The fields of /proc/<pid>/stat after the command name (field 3 on), or undefined once it is gone. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat), or undefined once it is gone. */
export function processStartTime(pid: number): string | undefined {
  return statFields(pid)?.[19];
}

/**
 * Whether `pid` still names the process that started at `started` and has not yet died: a zombie
 * (state Z) or a dying one (X) has stopped running. A SIGKILLed process leaves this state only once
 * the kernel has torn it down, which is some time after kill() returns.
 */
export function isSameProcessRunning(pid: number, started: string): boolean {
  const fields = statFields(pid);
  return fields !== undefined && fields[19] === started && fields[0] !== 'Z' && fields[0] !== 'X';
}

/** Whether a process with this pid exists (one owned by another user counts). */
export function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
