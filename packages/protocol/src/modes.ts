import { z } from 'zod';

/**
 * Per-session permission mode. `accept-edits` (default): read-only inspection commands run,
 * anything else asks. `auto`: every command runs; the sandbox is the guard (informed consent).
 */
export const permissionModeSchema = z.enum(['accept-edits', 'auto']);
export type PermissionMode = z.infer<typeof permissionModeSchema>;
export const DEFAULT_PERMISSION_MODE: PermissionMode = 'accept-edits';
