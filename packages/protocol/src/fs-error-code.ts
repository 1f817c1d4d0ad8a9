import type { WorkspaceErrorCode } from './error-codes.js';

/** The workspace code closest to a node fs error, by its errno alone (never its message or path). */
export function workspaceCodeOfFsError(
  error: unknown,
): Extract<WorkspaceErrorCode, 'FS_NOT_FOUND' | 'FS_SYMLINK' | 'FS_NOT_A_FILE' | 'FS_NOT_A_DIRECTORY' | 'FS_IO'> {
  switch ((error as { code?: unknown } | undefined)?.code) {
    case 'ENOENT':
      return 'FS_NOT_FOUND';
    case 'ELOOP':
      return 'FS_SYMLINK';
    case 'EISDIR':
      return 'FS_NOT_A_FILE';
    case 'ENOTDIR':
      return 'FS_NOT_A_DIRECTORY';
    default:
      return 'FS_IO';
  }
}
