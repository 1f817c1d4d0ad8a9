import { z } from 'zod';

/**
 * Per-session permission mode. `read-only`: no file writes, and only read-only inspection
 * commands run (anything else is refused, not asked), for exploring a project safely.
 * `accept-edits` (default): read-only inspection commands run, anything else asks. `auto`: every
 * command runs; the sandbox is the guard (informed consent). Independently, a session can ask
 * before each file write (`ask_before_writes`).
 */
export const permissionModeSchema = z.enum(['read-only', 'accept-edits', 'auto']);
export type PermissionMode = z.infer<typeof permissionModeSchema>;
export const DEFAULT_PERMISSION_MODE: PermissionMode = 'accept-edits';
