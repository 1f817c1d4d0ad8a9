/** Test support: facts about processes read from /proc (Linux), and the real CLI started as a process. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { descendantPids } from '@bastion/host/testing';

/** The built CLI (`npm run build` makes it). */
const CLI = createRequire(import.meta.url).resolve('bastion/dist/main.js');

/**
 * Run the built CLI with `args` and wait for the first line it prints (`start --json`'s ready
 * line); `stderr()` is what it wrote there so far, also in the error when it exits before a line.
 */
export async function startCliUntilFirstLine(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; line: string; stderr: () => string }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', () => reject(new Error(`exited before ready: ${stderr}`)));
  });
  return { child, line, stderr: () => stderr };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Socket inodes this process holds open. */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match?.[1]) inodes.add(match[1]);
    } catch {
      // fd closed while we looked
    }
  }
  return inodes;
}

/** TCP sockets in LISTEN state (st 0A) that this process holds, read from its own network namespace. */
export function listeningTcpSockets(pid: number): string[] {
  const mine = socketInodes(pid);
  const found: string[] = [];
  for (const table of ['tcp', 'tcp6']) {
    let text = '';
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] === '0A' && cols[9] !== undefined && mine.has(cols[9])) found.push(`${table} ${cols[1]}`);
    }
  }
  return found;
}

/** The process and all its descendants, parents first. */
export function processTree(pid: number): number[] {
  return [pid, ...descendantPids(pid)];
}

/** The daemon's own node process inside a (possibly wrapped) sidecar tree. */
export function daemonProcess(sidecarPid: number): number {
  const found = processTree(sidecarPid).find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('daemon/dist/main.js');
    } catch {
      return false;
    }
  });
  if (found === undefined) throw new Error('no daemon process in the sidecar tree');
  return found;
}
