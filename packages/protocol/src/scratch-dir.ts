/**
 * Each session's scratch dir: `<userData>/scratch/<session id>`, created by the host on a command's
 * first use. Inside userData on purpose: the per-command kernel profile denies userData as a whole
 * and re-opens only the running session's own scratch dir, so every other session's is denied too.
 */
export const SCRATCH_DIR_NAME = 'scratch';
/** The last path segment of a scratch dir: a session id, nothing that could climb or hide. */
export const SCRATCH_SESSION_SEGMENT = /^[A-Za-z0-9_-]{1,128}$/;

export function scratchDirOf(userData: string, sessionId: string): string {
  return `${userData.replace(/\/+$/, '')}/${SCRATCH_DIR_NAME}/${sessionId}`;
}
