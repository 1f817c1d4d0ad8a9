/**
 * SEC (agent shell execution): the host re-validates every `command.request` on its own, trusting
 * nothing the sidecar decided. The workspace root must be one the host granted (and neither inside
 * nor around userData); the scratch dir must have the one expected shape `<userData>/scratch/<id>`;
 * the working directory must realpath inside one of the two. A refusal is a code only.
 *
 * What it does not catch: argument paths (the daemon checks those; the kernel profile is the
 * backstop for anything a command computes).
 */
import { mkdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, sep } from 'node:path';
import {
  COMMAND_MAX_ARGV_TOTAL_BYTES,
  SCRATCH_DIR_NAME,
  SCRATCH_SESSION_SEGMENT,
  scratchDirOf,
  type FrameOfType,
  type SidecarToHostFrame,
} from '@bastion/protocol';

export type CommandRequestFrame = FrameOfType<SidecarToHostFrame, 'command.request'>;

export type CommandRefusalCode =
  | 'COMMAND_NAME_REFUSED'
  | 'COMMAND_ARGV_REFUSED'
  | 'COMMAND_ROOT_REFUSED'
  | 'COMMAND_SCRATCH_REFUSED'
  | 'COMMAND_CWD_REFUSED';

export interface CheckedCommandRequest {
  ok: true;
  cwd: string;
  workspaceRoot: string;
  scratchDir: string | undefined;
}

export type CommandRequestCheck = CheckedCommandRequest | { ok: false; code: CommandRefusalCode };

function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

const refuse = (code: CommandRefusalCode): CommandRequestCheck => ({ ok: false, code });
const utf8 = new TextEncoder();

/**
 * Check `frame` against what the host itself granted. Creates the scratch dir (0700) when the
 * request names one of the expected shape, so the profile can bind it.
 */
export function checkCommandRequest(
  frame: CommandRequestFrame,
  host: { userData: string; grantedRoots: readonly string[] },
): CommandRequestCheck {
  // A wrap srt built in a shape the wrap cache cannot take apart runs the command as
  // `env -i NAME=VALUE… COMMAND ARGS…`: a name with `=` or a leading `-` would be read by env as an
  // assignment or an option.
  if (frame.command.includes('=') || frame.command.startsWith('-') || frame.command.includes('\0')) {
    return refuse('COMMAND_NAME_REFUSED');
  }
  const total = [frame.command, ...frame.args].reduce((sum, arg) => sum + utf8.encode(arg).byteLength, 0);
  if (total > COMMAND_MAX_ARGV_TOTAL_BYTES || frame.args.some((arg) => arg.includes('\0')))
    return refuse('COMMAND_ARGV_REFUSED');

  const userData = realOrUndefined(host.userData);
  if (userData === undefined) return refuse('COMMAND_ROOT_REFUSED');

  let scratchDir: string | undefined;
  if (frame.scratch_dir !== undefined) {
    const segment = basename(frame.scratch_dir);
    const expected = scratchDirOf(userData, segment);
    if (!SCRATCH_SESSION_SEGMENT.test(segment) || frame.scratch_dir !== expected)
      return refuse('COMMAND_SCRATCH_REFUSED');
    mkdirSync(dirname(expected), { recursive: true, mode: 0o700 });
    mkdirSync(expected, { recursive: true, mode: 0o700 });
    // A symlink planted at either level would move the write root: the real path must be the shape itself.
    if (realOrUndefined(expected) !== expected || basename(dirname(expected)) !== SCRATCH_DIR_NAME) {
      return refuse('COMMAND_SCRATCH_REFUSED');
    }
    scratchDir = expected;
  }

  const root = realOrUndefined(frame.workspace_root);
  const granted = root !== undefined && host.grantedRoots.some((grantedRoot) => realOrUndefined(grantedRoot) === root);
  const isScratchRoot = root !== undefined && root === scratchDir;
  if (root === undefined || (!granted && !isScratchRoot)) return refuse('COMMAND_ROOT_REFUSED');
  if (granted && (isInside(userData, root) || isInside(root, userData))) return refuse('COMMAND_ROOT_REFUSED');

  const cwd = realOrUndefined(frame.cwd);
  if (cwd === undefined || !statSync(cwd).isDirectory()) return refuse('COMMAND_CWD_REFUSED');
  const inRoot = isInside(root, cwd);
  const inScratch = scratchDir !== undefined && isInside(scratchDir, cwd);
  if (!inRoot && !inScratch) return refuse('COMMAND_CWD_REFUSED');
  if (!inScratch && isInside(userData, cwd)) return refuse('COMMAND_CWD_REFUSED');
  return { ok: true, cwd, workspaceRoot: root, scratchDir };
}
