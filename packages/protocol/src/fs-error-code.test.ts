import { describe, expect, it } from 'vitest';
import { workspaceCodeOfFsError } from './fs-error-code.js';

/** A node fs error as it reaches the mapping: only its errno code is read. */
const fsError = (code: string) => Object.assign(new Error(`${code}: /some/path`), { code });

describe('workspaceCodeOfFsError', () => {
  it('names a name too long, a permission refused and a read-only file system rather than FS_IO', () => {
    expect(workspaceCodeOfFsError(fsError('ENAMETOOLONG'))).toBe('FS_NAME_TOO_LONG');
    expect(workspaceCodeOfFsError(fsError('EACCES'))).toBe('FS_ACCESS_DENIED');
    expect(workspaceCodeOfFsError(fsError('EPERM'))).toBe('FS_ACCESS_DENIED');
    expect(workspaceCodeOfFsError(fsError('EROFS'))).toBe('FS_READ_ONLY');
  });

  it('keeps the codes it had, and FS_IO for an errno it does not know', () => {
    expect(workspaceCodeOfFsError(fsError('ENOENT'))).toBe('FS_NOT_FOUND');
    expect(workspaceCodeOfFsError(fsError('ELOOP'))).toBe('FS_SYMLINK');
    expect(workspaceCodeOfFsError(fsError('EISDIR'))).toBe('FS_NOT_A_FILE');
    expect(workspaceCodeOfFsError(fsError('ENOTDIR'))).toBe('FS_NOT_A_DIRECTORY');
    expect(workspaceCodeOfFsError(fsError('ENOSPC'))).toBe('FS_DISK_FULL');
    expect(workspaceCodeOfFsError(fsError('EIO'))).toBe('FS_IO');
  });
});
