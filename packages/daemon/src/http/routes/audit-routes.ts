/** `GET /sessions/:id/audit`: the watchdog's decisions for the session's tool calls, oldest first. */
import type { AuditPage } from '@bastion/protocol';
import type { RouteModule } from '../app.js';
import { DaemonError } from '../../errors.js';
import type { AuditLog } from '../../storage/audit-log.js';
import type { SessionStore } from '../../storage/session-store.js';
import { sessionIdParam } from './session-routes.js';

export function auditRoutes(deps: { store: SessionStore; audit: AuditLog }): RouteModule {
  return (app) => {
    app.get('/sessions/:id/audit', (c) => {
      const id = sessionIdParam(c);
      if (!deps.store.sessions.get(id)) throw new DaemonError('SESSION_NOT_FOUND', 'no such session');
      return c.json({ entries: deps.audit.list(id) } satisfies AuditPage);
    });
  };
}
