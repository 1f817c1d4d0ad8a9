/** `GET /sessions/:id/audit?limit&cursor`: the watchdog's decisions for the session's tool calls, a page at a time, newest first. */
import { auditPageQuerySchema, type AuditPage } from '@bastion/protocol';
import type { RouteModule } from '../app.js';
import { DaemonError } from '../../errors.js';
import type { AuditLog } from '../../storage/audit-log.js';
import type { SessionStore } from '../../storage/session-store.js';
import { parseInput } from './route-support.js';
import { sessionIdParam } from './session-routes.js';

export function auditRoutes(deps: { store: SessionStore; audit: AuditLog }): RouteModule {
  return (app) => {
    app.get('/sessions/:id/audit', (c) => {
      const id = sessionIdParam(c);
      if (!deps.store.sessions.get(id)) throw new DaemonError('SESSION_NOT_FOUND', 'no such session');
      const query = parseInput(auditPageQuerySchema, c.req.query());
      return c.json(
        deps.audit.page(id, {
          ...(query.cursor === undefined ? {} : { before: Number(query.cursor) }),
          ...(query.limit === undefined ? {} : { limit: query.limit }),
        }) satisfies AuditPage,
      );
    });
  };
}
