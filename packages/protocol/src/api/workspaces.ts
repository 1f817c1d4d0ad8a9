/** Daemon HTTP DTOs of `/workspaces/*` (SEC-004: file access is confined to host-granted roots). */
import { z } from 'zod';
import {
  WORKSPACE_FIND_MAX_QUERY_CHARS,
  WORKSPACE_FIND_MAX_RESULTS,
  WORKSPACE_MAX_DIR_ENTRIES,
  WORKSPACE_MAX_PATH_CHARS,
  WORKSPACE_MAX_WRITE_BYTES,
} from '../limits.js';

/** A granted root as the host sent it (absolute, real path). */
export const workspaceRootSchema = z.string().min(1).max(WORKSPACE_MAX_PATH_CHARS).startsWith('/');
/** A path inside a workspace: relative to its root (absolute paths are accepted and checked the same way). */
export const workspacePathSchema = z
  .string()
  .min(1)
  .max(WORKSPACE_MAX_PATH_CHARS)
  .refine((value) => !value.includes('\0'), 'path must not contain NUL');

export const workspaceSchema = z.strictObject({ root: workspaceRootSchema, name: z.string() });
export type Workspace = z.infer<typeof workspaceSchema>;

export const workspacesListResponseSchema = z.strictObject({ workspaces: z.array(workspaceSchema) });
export type WorkspacesListResponse = z.infer<typeof workspacesListResponseSchema>;

export const workspaceReaddirRequestSchema = z.strictObject({
  root: workspaceRootSchema,
  path: workspacePathSchema.default('.'),
});
export type WorkspaceReaddirRequest = z.input<typeof workspaceReaddirRequestSchema>;

export const dirEntryKindSchema = z.enum(['file', 'directory', 'symlink', 'other']);
export const dirEntrySchema = z.strictObject({ name: z.string(), kind: dirEntryKindSchema });
export type DirEntry = z.infer<typeof dirEntrySchema>;

export const workspaceReaddirResponseSchema = z.strictObject({
  entries: z.array(dirEntrySchema).max(WORKSPACE_MAX_DIR_ENTRIES),
  truncated: z.boolean(),
});
export type WorkspaceReaddirResponse = z.infer<typeof workspaceReaddirResponseSchema>;

/** Files and folders whose names hold `query` (any case), anywhere in the workspace. */
export const workspaceFindRequestSchema = z.strictObject({
  root: workspaceRootSchema,
  query: z
    .string()
    .min(1)
    .max(WORKSPACE_FIND_MAX_QUERY_CHARS)
    .refine((value) => !value.includes('\0') && !value.includes('/'), 'query must be a name, without / or NUL'),
});
export type WorkspaceFindRequest = z.infer<typeof workspaceFindRequestSchema>;

export const workspaceFindResponseSchema = z.strictObject({
  /** Relative to the root: names that start with the query first, then shallow before deep. */
  matches: z.array(z.strictObject({ path: z.string(), kind: dirEntryKindSchema })).max(WORKSPACE_FIND_MAX_RESULTS),
  /** The walk stopped at a bound, or more matched than are listed. */
  truncated: z.boolean(),
});
export type WorkspaceFindResponse = z.infer<typeof workspaceFindResponseSchema>;

export const workspaceReadFileRequestSchema = z.strictObject({ root: workspaceRootSchema, path: workspacePathSchema });
export type WorkspaceReadFileRequest = z.infer<typeof workspaceReadFileRequestSchema>;

export const workspaceReadFileResponseSchema = z.strictObject({
  /** UTF-8 text of the first WORKSPACE_MAX_READ_BYTES bytes. */
  content: z.string(),
  /** Size of the whole file in bytes. */
  size: z.number().int().nonnegative(),
  truncated: z.boolean(),
});
export type WorkspaceReadFileResponse = z.infer<typeof workspaceReadFileResponseSchema>;

export const workspaceWriteFileRequestSchema = z.strictObject({
  root: workspaceRootSchema,
  path: workspacePathSchema,
  /** Checked in UTF-8 bytes against WORKSPACE_MAX_WRITE_BYTES (413 beyond). */
  content: z.string(),
});
export type WorkspaceWriteFileRequest = z.infer<typeof workspaceWriteFileRequestSchema>;

export const workspaceWriteFileResponseSchema = z.strictObject({
  bytes: z.number().int().nonnegative().max(WORKSPACE_MAX_WRITE_BYTES),
  created: z.boolean(),
});
export type WorkspaceWriteFileResponse = z.infer<typeof workspaceWriteFileResponseSchema>;
