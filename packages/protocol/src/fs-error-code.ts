import type { WorkspaceErrorCode } from './error-codes.js';

/**
 * Whether `error` says the disk is out of room: a node fs error's ENOSPC (no space left) or
 * EDQUOT (the user's quota used up), or better-sqlite3's SQLITE_FULL. The one test every write
 * site maps to its full-disk code (FS_DISK_FULL in a workspace, STORAGE_FULL under userData).
 */
export function isDiskFullError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL';
}

/** The workspace code closest to a node fs error, by its errno alone (never its message or path). */
export function workspaceCodeOfFsError(
  error: unknown,
): Extract<
  WorkspaceErrorCode,
  | 'FS_NOT_FOUND'
  | 'FS_SYMLINK'
  | 'FS_NOT_A_FILE'
  | 'FS_NOT_A_DIRECTORY'
  | 'FS_DISK_FULL'
  | 'FS_NAME_TOO_LONG'
  | 'FS_ACCESS_DENIED'
  | 'FS_READ_ONLY'
  | 'FS_IO'
> {
  if (isDiskFullError(error)) return 'FS_DISK_FULL';
  switch ((error as { code?: unknown } | undefined)?.code) {
    case 'ENOENT':
      return 'FS_NOT_FOUND';
    case 'ELOOP':
      return 'FS_SYMLINK';
    case 'EISDIR':
      return 'FS_NOT_A_FILE';
    case 'ENOTDIR':
      return 'FS_NOT_A_DIRECTORY';
    case 'ENAMETOOLONG':
      return 'FS_NAME_TOO_LONG';
    case 'EACCES':
    case 'EPERM':
      return 'FS_ACCESS_DENIED';
    case 'EROFS':
      return 'FS_READ_ONLY';
    default:
      return 'FS_IO';
  }
}
