import { workspaceCodeOfFsError, type WorkspaceErrorCode } from '@bastion/protocol';
import { DaemonError } from '../errors.js';

/** A refused or failed workspace file access. Messages are fixed: never a path, never content. */
export class WorkspaceError extends DaemonError<WorkspaceErrorCode> {
  override readonly name = 'WorkspaceError';
}

export const WORKSPACE_ERROR_MESSAGES: Record<WorkspaceErrorCode, string> = {
  FS_OUTSIDE_WORKSPACE: 'path is outside the workspace',
  FS_PROTECTED: 'path is protected and cannot be written',
  FS_NOT_FOUND: 'no such file or directory in the workspace',
  FS_NOT_A_FILE: 'path is not a regular file',
  FS_NOT_A_DIRECTORY: 'path is not a directory',
  FS_SYMLINK: 'path is a symbolic link that is not followed: it loops, or it was swapped in while the file was opened',
  FS_TOO_LARGE: 'content is larger than the limit',
  FS_NO_WORKSPACE: 'no workspace was granted for this session',
  FS_DISK_FULL: 'the disk holding the file is full; nothing was written',
  FS_NAME_TOO_LONG:
    'file name too long: a name in the path is longer than the file system allows (255 bytes on most), or the whole path is',
  FS_ACCESS_DENIED: "the file system's permissions refuse access to this path",
  FS_READ_ONLY: 'the file system holding this path is read-only',
  FS_IO: 'file system operation failed',
};

export function workspaceError(code: WorkspaceErrorCode, cause?: unknown): WorkspaceError {
  return new WorkspaceError(code, WORKSPACE_ERROR_MESSAGES[code], cause === undefined ? undefined : { cause });
}

/** Map a node fs error to the closest workspace code (never exposing the errno's path). */
export function fromFsError(error: unknown): WorkspaceError {
  return error instanceof WorkspaceError ? error : workspaceError(workspaceCodeOfFsError(error), error);
}
