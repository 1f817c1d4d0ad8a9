/**
 * `POST /workspaces/list|readdir|find|read-file|write-file` (SEC-004: only host-granted roots; a write
 * is the host's, which checks and performs it as it does the file tools' writes).
 */
import {
  workspaceFindRequestSchema,
  workspaceReaddirRequestSchema,
  workspaceReadFileRequestSchema,
  workspaceWriteFileRequestSchema,
  WORKSPACE_MAX_WRITE_BYTES,
  type WorkspaceFindResponse,
  type WorkspaceReaddirResponse,
  type WorkspaceReadFileResponse,
  type WorkspacesListResponse,
  type WorkspaceWriteFileResponse,
} from '@bastion/protocol';
import type { RouteModule } from '../app.js';
import { listContainedDir, readContainedFile } from '../../workspaces/file-access.js';
import { findInWorkspace } from '../../workspaces/find-in-workspace.js';
import { workspaceError } from '../../workspaces/workspace-error.js';
import type { WorkspaceRoots } from '../../workspaces/workspace-roots.js';
import { readJson } from './route-support.js';

export function workspaceRoutes(roots: WorkspaceRoots): RouteModule {
  return (app) => {
    app.post('/workspaces/list', (c) => c.json({ workspaces: roots.list() } satisfies WorkspacesListResponse));
    app.post('/workspaces/readdir', async (c) => {
      const body = await readJson(c, workspaceReaddirRequestSchema);
      const listing: WorkspaceReaddirResponse = listContainedDir(roots.resolve(body.root, body.path));
      return c.json(listing);
    });
    app.post('/workspaces/find', async (c) => {
      const body = await readJson(c, workspaceFindRequestSchema);
      const found: WorkspaceFindResponse = await findInWorkspace(roots, body.root, body.query);
      return c.json(found);
    });
    app.post('/workspaces/read-file', async (c) => {
      const body = await readJson(c, workspaceReadFileRequestSchema);
      const read = readContainedFile(roots.resolve(body.root, body.path));
      const response: WorkspaceReadFileResponse = {
        content: read.content.toString('utf8'),
        size: read.size,
        truncated: read.truncated,
      };
      return c.json(response);
    });
    app.post('/workspaces/write-file', async (c) => {
      const body = await readJson(c, workspaceWriteFileRequestSchema);
      const bytes = Buffer.from(body.content, 'utf8');
      if (bytes.length > WORKSPACE_MAX_WRITE_BYTES) throw workspaceError('FS_TOO_LARGE');
      const response: WorkspaceWriteFileResponse = await roots.writer.write(
        roots.resolve(body.root, body.path),
        bytes,
        {
          tool: 'write_file',
        },
      );
      return c.json(response);
    });
  };
}
