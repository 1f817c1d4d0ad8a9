/** `GET /sessions/:id/changes`: what the session's file tools changed in its workspace so far (undo/session-changes.ts). */
import type { RouteModule } from '../app.js';
import { DaemonError } from '../../errors.js';
import type { SessionStore } from '../../storage/session-store.js';
import { sessionChanges } from '../../undo/session-changes.js';
import type { UndoStore } from '../../undo/undo-store.js';
import type { WorkspaceRoots } from '../../workspaces/workspace-roots.js';
import { sessionIdParam } from './session-routes.js';

export function changesRoutes(deps: { store: SessionStore; undo: UndoStore; roots: WorkspaceRoots }): RouteModule {
  return (app) => {
    app.get('/sessions/:id/changes', async (c) => {
      const session = deps.store.sessions.get(sessionIdParam(c));
      if (!session) throw new DaemonError('SESSION_NOT_FOUND', 'no such session');
      return c.json(await sessionChanges(deps, session));
    });
  };
}
