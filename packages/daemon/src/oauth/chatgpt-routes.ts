/**
 * SEC-008: `/auth/chatgpt/start|complete|cancel|status|sign-out`, behind the perimeter like every
 * route and, in addition, only for the host's own client: each request must carry the per-spawn
 * host key (bootstrap frame; the bridge never learns it), compared as digests in constant time.
 * A renderer holding the daemon password therefore cannot start, complete or read an attempt; it
 * asks the host (host IPC), which owns the callback. Answers carry status and fixed errors only.
 *
 * Does not catch: a compromised host, which owns the key by design.
 */
import type { MiddlewareHandler } from 'hono';
import {
  CHATGPT_HOST_KEY_HEADER,
  chatgptCancelRequestSchema,
  chatgptCompleteRequestSchema,
  chatgptStartRequestSchema,
  type Logger,
} from '@bastion/protocol';
import { DaemonError } from '../errors.js';
import type { RouteModule } from '../http/app.js';
import { readJson } from '../http/routes/route-support.js';
import { ChatgptAuthError } from './chatgpt-auth-error.js';
import { sameSecret, type ChatgptCredentials } from './chatgpt-credentials.js';

function makeHostKeyGuard(hostKey: string | undefined): MiddlewareHandler {
  return async (c, next) => {
    if (hostKey === undefined) throw new ChatgptAuthError('OAUTH_UNAVAILABLE');
    const presented = c.req.header(CHATGPT_HOST_KEY_HEADER);
    if (presented === undefined || !sameSecret(presented, hostKey)) throw new ChatgptAuthError('OAUTH_HOST_ONLY');
    await next();
  };
}

export function chatgptRoutes(options: {
  credentials: ChatgptCredentials | undefined;
  hostKey: string | undefined;
  log: Logger;
}): RouteModule {
  const { credentials, log } = options;
  /** Run a credentials call; anything but the boundary's own coded errors is answered as INTERNAL, logged by its code. */
  const answer = async (run: (credentials: ChatgptCredentials) => Promise<unknown>): Promise<unknown> => {
    if (!credentials) throw new ChatgptAuthError('OAUTH_UNAVAILABLE');
    try {
      return await run(credentials);
    } catch (error) {
      if (error instanceof ChatgptAuthError) throw error;
      log.error('chatgpt.route-failed', { code: (error as { code?: string }).code ?? 'UNKNOWN' });
      throw new DaemonError('INTERNAL', 'internal error');
    }
  };
  return (app) => {
    app.use('/auth/chatgpt/*', makeHostKeyGuard(options.hostKey));
    app.post('/auth/chatgpt/start', async (c) => {
      const body = await readJson(c, chatgptStartRequestSchema, {
        code: 'OAUTH_BAD_REQUEST',
        message: 'expected { redirect_uri } with a registered callback',
      });
      return c.json(await answer((manager) => manager.start(body.redirect_uri)));
    });
    app.post('/auth/chatgpt/complete', async (c) => {
      const body = await readJson(c, chatgptCompleteRequestSchema, {
        code: 'OAUTH_BAD_REQUEST',
        message: 'expected { attempt_id, code, state }',
      });
      return c.json(await answer((manager) => manager.complete(body)));
    });
    app.post('/auth/chatgpt/cancel', async (c) => {
      const body = await readJson(c, chatgptCancelRequestSchema, {
        code: 'OAUTH_BAD_REQUEST',
        message: 'expected { attempt_id? }',
      });
      return c.json(
        await answer(async (manager) => {
          manager.cancel(body.attempt_id);
          return manager.status();
        }),
      );
    });
    app.get('/auth/chatgpt/status', async (c) => c.json(await answer((manager) => manager.status())));
    app.post('/auth/chatgpt/sign-out', async (c) =>
      c.json(
        await answer(async (manager) => {
          await manager.signOut();
          return manager.status();
        }),
      ),
    );
  };
}
