/**
 * SEC (agent shell execution), the daemon's structural gates, in every mode: the working directory
 * must realpath inside the session's workspace root or its scratch dir, and no argument that looks
 * like a path may resolve (realpath of its nearest existing ancestor, so a symlink cannot bypass
 * it) into userData or another session's scratch dir. Refusals never echo the path.
 *
 * What it does not catch: a path the command computes at run time (`sh -c`, `python3 -c`). The
 * host runs every command under a kernel profile that denies userData for exactly that reason.
 */
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import {
  COMMAND_MAX_ARG_BYTES,
  COMMAND_MAX_ARGS,
  COMMAND_MAX_ARGV_TOTAL_BYTES,
  COMMAND_MAX_PATH_CHARS,
  scratchDirOf,
} from '@bastion/protocol';
import { isInside, realpathNearest } from '../workspaces/containment.js';
import { shellRefusal, type ShellRefusal } from './shell-error.js';

export interface ShellValidationContext {
  /** The host's userData (realpath). */
  userData: string;
  /** Every workspace root the host granted (realpaths); used to name a sibling-workspace refusal. */
  grantedRoots: readonly string[];
  /** The session's own workspace root (realpath), or null when it has none. */
  workspaceRoot: string | null;
  sessionId: string;
}

export interface ShellRequestInput {
  command: string;
  args: readonly string[];
  workdir?: string | undefined;
}

export interface ValidatedShellRequest {
  ok: true;
  command: string;
  args: string[];
  /** Realpath of the working directory. */
  cwd: string;
  /** The session's workspace root, or its scratch dir when it has none; the host makes it writable. */
  workspaceRoot: string;
  scratchDir: string;
}

const utf8 = new TextEncoder();

/** Looks like a path: absolute, or holds a separator. A flag (`-x`, `--name`) is not a path. */
function pathCandidates(arg: string): string[] {
  if (arg.startsWith('-')) {
    // `--file=/x` carries a path in its value; the flag itself is not one.
    const eq = arg.indexOf('=');
    const value = eq > 0 ? arg.slice(eq + 1) : '';
    return value.length > 0 && (isAbsolute(value) || value.includes('/')) ? [value] : [];
  }
  return isAbsolute(arg) || arg.includes('/') ? [arg] : [];
}

/** Realpath (nearest existing ancestor), or undefined when it cannot be resolved (a loop, no permission). */
function realOf(path: string): string | undefined {
  try {
    return realpathNearest(path).real;
  } catch {
    return undefined;
  }
}

/** `cwd` joined without lexical normalisation: `link/..` must be resolved by the kernel's rules. */
function absoluteFrom(cwd: string, path: string): string {
  return isAbsolute(path) ? path : `${cwd}/${path}`;
}

function checkArgvBounds(command: string, args: readonly string[]): ShellRefusal | undefined {
  if (command.length === 0 || command.length > COMMAND_MAX_PATH_CHARS) {
    return shellRefusal('SHELL_COMMAND_INVALID', 'the command name is empty or too long');
  }
  if (args.length > COMMAND_MAX_ARGS)
    return shellRefusal('SHELL_ARGS_TOO_MANY', `at most ${COMMAND_MAX_ARGS} arguments`);
  let total = utf8.encode(command).byteLength;
  for (const arg of [command, ...args]) {
    if (arg.includes('\0')) return shellRefusal('SHELL_ARG_NUL', 'an argument contains a NUL byte');
  }
  for (const arg of args) {
    const bytes = utf8.encode(arg).byteLength;
    if (bytes > COMMAND_MAX_ARG_BYTES) return shellRefusal('SHELL_ARG_TOO_LONG', 'an argument is longer than 32 KiB');
    total += bytes;
  }
  if (total > COMMAND_MAX_ARGV_TOTAL_BYTES)
    return shellRefusal('SHELL_ARGV_TOO_LARGE', 'the arguments are too large together');
  return undefined;
}

function resolveCwd(
  input: ShellRequestInput,
  context: ShellValidationContext,
  protectedRoot: string,
  scratchDir: string,
): { cwd: string; root: string } | ShellRefusal {
  const base = context.workspaceRoot ?? scratchDir;
  const requested = input.workdir === undefined || input.workdir === '' ? base : absoluteFrom(base, input.workdir);
  const cwd = realOf(requested);
  if (cwd === undefined) return shellRefusal('SHELL_CWD_MISSING', 'the working directory cannot be resolved');
  const inScratch = isInside(scratchDir, cwd);
  if (isInside(protectedRoot, cwd) && !inScratch) {
    return shellRefusal('SHELL_CWD_PROTECTED', 'the working directory is inside a protected directory');
  }
  const inWorkspace = context.workspaceRoot !== null && isInside(context.workspaceRoot, cwd);
  if (!inWorkspace && !inScratch) {
    if (context.grantedRoots.some((root) => isInside(root, cwd))) {
      return shellRefusal(
        'SHELL_CWD_OTHER_WORKSPACE',
        "the working directory is in another workspace, not this session's",
      );
    }
    return shellRefusal('SHELL_CWD_OUTSIDE_WORKSPACE', 'the working directory is outside the workspace');
  }
  let isDirectory: boolean;
  try {
    isDirectory = statSync(cwd).isDirectory();
  } catch {
    // The scratch dir is created by the host on first use.
    if (cwd === scratchDir) return { cwd, root: scratchDir };
    return shellRefusal('SHELL_CWD_MISSING', 'the working directory does not exist');
  }
  if (!isDirectory) return shellRefusal('SHELL_CWD_NOT_DIRECTORY', 'the working directory is not a directory');
  return { cwd, root: context.workspaceRoot ?? scratchDir };
}

export function validateShellRequest(
  input: ShellRequestInput,
  context: ShellValidationContext,
): ValidatedShellRequest | ShellRefusal {
  const bounds = checkArgvBounds(input.command, input.args);
  if (bounds) return bounds;
  const protectedRoot = realOf(context.userData);
  const scratchDir = protectedRoot === undefined ? undefined : realOf(scratchDirOf(protectedRoot, context.sessionId));
  if (protectedRoot === undefined || scratchDir === undefined) {
    return shellRefusal('SHELL_UNAVAILABLE', 'the data directory cannot be resolved');
  }
  const resolved = resolveCwd(input, context, protectedRoot, scratchDir);
  if ('ok' in resolved) return resolved;
  for (const arg of [input.command, ...input.args]) {
    for (const candidate of pathCandidates(arg)) {
      const real = realOf(absoluteFrom(resolved.cwd, candidate));
      if (real === undefined)
        return shellRefusal('SHELL_ARG_UNRESOLVABLE', 'an argument is a path that cannot be resolved');
      if (isInside(protectedRoot, real) && !isInside(scratchDir, real)) {
        return shellRefusal('SHELL_ARG_PROTECTED', 'an argument points into a protected directory');
      }
    }
  }
  return {
    ok: true,
    command: input.command,
    args: [...input.args],
    cwd: resolved.cwd,
    workspaceRoot: resolved.root,
    scratchDir,
  };
}
