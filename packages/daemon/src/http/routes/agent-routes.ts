/**
 * `POST /agent/run`, `POST /agent/abort`, `POST /agent/undo`, `POST /agent/rewind`, `GET /agent/stream/:session_id` (server-sent events over
 * an authenticated fetch: no credential in the URL; `Last-Event-ID` resumes after a persisted id;
 * `?viewer=` names the page, so its own stream does not count as another's in an untouched delete).
 */
import {
  AGENT_MAX_MESSAGE_CHARS,
  SSE_MAX_SUBSCRIBERS_PER_SESSION,
  agentAbortRequestSchema,
  agentRunRequestSchema,
  agentRewindRequestSchema,
  agentStreamQuerySchema,
  agentUndoRequestSchema,
  type AgentAbortResponse,
  type AgentRunResponse,
} from '@bastion/protocol';
import type { RouteModule } from '../app.js';
import { DaemonError } from '../../errors.js';
import { createEventStream } from '../../agent/event-stream.js';
import { decodePromptImages } from '../../agent/prompt-images.js';
import type { RunManager } from '../../agent/run-manager.js';
import type { SessionStore } from '../../storage/session-store.js';
import { parseInput, readJson, RequestError } from './route-support.js';
import { sessionIdParam } from './session-routes.js';

export function agentRoutes(deps: { store: SessionStore; runs: RunManager }): RouteModule {
  const { store, runs } = deps;
  return (app) => {
    app.post('/agent/run', async (c) => {
      const body = await readJson(c, agentRunRequestSchema);
      if (body.message !== undefined && body.message.length > AGENT_MAX_MESSAGE_CHARS) {
        throw new DaemonError(
          'MESSAGE_TOO_LARGE',
          `the message is ${body.message.length} characters, over the limit of ${AGENT_MAX_MESSAGE_CHARS}; put long text in a file in the workspace and mention its path`,
        );
      }
      const started = runs.start(
        body.session_id,
        body.message !== undefined
          ? {
              message: body.message,
              images: decodePromptImages(body.images ?? []),
              ...(body.mcp_prompt === undefined ? {} : { mcpPrompt: body.mcp_prompt }),
              ...(body.mcp_resources === undefined ? {} : { mcpResources: body.mcp_resources }),
              ...(body.client_id === undefined ? {} : { clientId: body.client_id }),
            }
          : body.approval_answer !== undefined
            ? { approvalAnswer: body.approval_answer }
            : { compact: true },
      );
      return c.json({ run_id: started.runId, message_id: started.messageId } satisfies AgentRunResponse, 202);
    });
    app.post('/agent/abort', async (c) => {
      const body = await readJson(c, agentAbortRequestSchema);
      if (!store.sessions.get(body.session_id)) throw new DaemonError('SESSION_NOT_FOUND', 'no such session');
      return c.json({ aborted: runs.abort(body.session_id) } satisfies AgentAbortResponse);
    });
    app.post('/agent/undo', async (c) => {
      const body = await readJson(c, agentUndoRequestSchema);
      return c.json(await runs.undo(body.session_id, body.run_id, { dryRun: body.dry_run === true }));
    });
    app.post('/agent/rewind', async (c) => {
      const body = await readJson(c, agentRewindRequestSchema);
      const options = { files: body.files, dryRun: body.dry_run === true };
      return c.json(await runs.rewind(body.session_id, body.run_id, options));
    });
    app.get('/agent/stream/:session_id', (c) => {
      const sessionId = sessionIdParam(c, 'session_id');
      if (!store.sessions.get(sessionId)) throw new DaemonError('SESSION_NOT_FOUND', 'no such session');
      const header = c.req.header('last-event-id');
      if (header !== undefined && !/^\d{1,15}$/.test(header)) {
        throw new RequestError('BAD_REQUEST', 'invalid field: Last-Event-ID');
      }
      if (runs.hub.subscriberCount(sessionId) >= SSE_MAX_SUBSCRIBERS_PER_SESSION) {
        throw new DaemonError('STREAM_LIMIT', 'too many open streams on this session');
      }
      const { viewer } = parseInput(agentStreamQuerySchema, c.req.query());
      const stream = createEventStream({
        store,
        hub: runs.hub,
        sessionId,
        lastEventId: header === undefined ? 0 : Number(header),
        ...(viewer === undefined ? {} : { viewer }),
      });
      // c.body, not a bare Response: it keeps the headers the perimeter prepared (the CORS
      // Access-Control-Allow-Origin for the UI origin), without which a browser cannot read the stream.
      return c.body(stream, 200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
      });
    });
  };
}
