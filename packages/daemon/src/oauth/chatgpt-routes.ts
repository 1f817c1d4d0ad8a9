/**
 * SEC-008: `/auth/chatgpt/start|complete|cancel|status|sign-out`, behind the perimeter like every
 * route and, in addition, only for the host's own client: each request must carry the per-spawn
 * host key (bootstrap frame; the bridge never learns it), compared as digests in constant time.
 * A renderer holding the daemon password therefore cannot start, complete or read an attempt; it
 * asks the host (host IPC), which owns the callback. Answers carry status and fixed errors only.
 *
 * Does not catch: a compromised host, which owns the key by design.
 */
import type { Context, MiddlewareHandler } from 'hono';
import {
  CHATGPT_HOST_KEY_HEADER,
  chatgptCancelRequestSchema,
  chatgptCompleteRequestSchema,
  chatgptStartRequestSchema,
  type Logger,
} from '@bastion/protocol';
import type { RouteModule } from '../http/app.js';
import { readJsonBody } from '../http/json-body.js';
import { wireError } from '../http/wire-error.js';
import { ChatgptAuthError } from './chatgpt-auth-error.js';
import { sameSecret, type ChatgptCredentials } from './chatgpt-credentials.js';

function makeHostKeyGuard(hostKey: string | undefined): MiddlewareHandler {
  return async (c, next) => {
    if (hostKey === undefined) return failure(c, new ChatgptAuthError('OAUTH_UNAVAILABLE'));
    const presented = c.req.header(CHATGPT_HOST_KEY_HEADER);
    if (presented === undefined || !sameSecret(presented, hostKey)) {
      return failure(c, new ChatgptAuthError('OAUTH_HOST_ONLY'));
    }
    await next();
    return undefined;
  };
}

function failure(c: Context, error: ChatgptAuthError): Response {
  return wireError(c, error.status, error.code, error.message);
}

export function chatgptRoutes(options: {
  credentials: ChatgptCredentials | undefined;
  hostKey: string | undefined;
  log: Logger;
}): RouteModule {
  const { credentials, log } = options;
  const answer = async (c: Context, run: (credentials: ChatgptCredentials) => Promise<unknown>): Promise<Response> => {
    if (!credentials) return failure(c, new ChatgptAuthError('OAUTH_UNAVAILABLE'));
    try {
      return c.json(await run(credentials));
    } catch (error) {
      if (error instanceof ChatgptAuthError) return failure(c, error);
      log.error('chatgpt.route-failed', { code: (error as { code?: string }).code ?? 'UNKNOWN' });
      return wireError(c, 500, 'INTERNAL', 'internal error');
    }
  };
  return (app) => {
    app.use('/auth/chatgpt/*', makeHostKeyGuard(options.hostKey));
    app.post('/auth/chatgpt/start', async (c) => {
      const body = await readJsonBody(c, chatgptStartRequestSchema);
      if (!body) return wireError(c, 400, 'OAUTH_BAD_REQUEST', 'expected { redirect_uri } with a registered callback');
      return answer(c, (manager) => manager.start(body.redirect_uri));
    });
    app.post('/auth/chatgpt/complete', async (c) => {
      const body = await readJsonBody(c, chatgptCompleteRequestSchema);
      if (!body) return wireError(c, 400, 'OAUTH_BAD_REQUEST', 'expected { attempt_id, code, state }');
      return answer(c, (manager) => manager.complete(body));
    });
    app.post('/auth/chatgpt/cancel', async (c) => {
      const body = await readJsonBody(c, chatgptCancelRequestSchema);
      if (!body) return wireError(c, 400, 'OAUTH_BAD_REQUEST', 'expected { attempt_id? }');
      return answer(c, async (manager) => {
        manager.cancel(body.attempt_id);
        return manager.status();
      });
    });
    app.get('/auth/chatgpt/status', (c) => answer(c, (manager) => manager.status()));
    app.post('/auth/chatgpt/sign-out', (c) =>
      answer(c, async (manager) => {
        await manager.signOut();
        return manager.status();
      }),
    );
  };
}
