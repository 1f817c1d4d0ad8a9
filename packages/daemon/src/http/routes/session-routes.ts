/**
 * `GET/POST /sessions`, `GET/PATCH/DELETE /sessions/:id` (`?if_untouched=true`: only a New session's
 * session nothing touched or shows, untouched-sessions.ts; a PATCH, `{provisional: false}` too, keeps one), `GET /sessions/:id/messages`,
 * `GET /sessions/:id/images/:image_id` (an attached image, base64), and `GET /sessions/:id/events` (the persisted event log, newest page first, with the prompts it names).
 */
import {
  EVENT_PAGE_MAX_LIMIT,
  createSessionRequestSchema,
  deleteSessionQuerySchema,
  eventPageQuerySchema,
  pageQuerySchema,
  sessionIdSchema,
  sessionListQuerySchema,
  updateSessionRequestSchema,
  type EventPageResponse,
  type MessageListResponse,
  type ModelRef,
  type SessionImageResponse,
  type SessionListResponse,
} from '@bastion/protocol';
import type { Context } from 'hono';
import type { RouteModule } from '../app.js';
import { DaemonError } from '../../errors.js';
import type { RunManager } from '../../agent/run-manager.js';
import type { UntouchedSessions } from '../../agent/untouched-sessions.js';
import { takesReasoning } from '../../providers/model-catalog.js';
import type { ProviderRegistry } from '../../providers/provider-registry.js';
import type { SessionStore } from '../../storage/session-store.js';
import type { WorkspaceRoots } from '../../workspaces/workspace-roots.js';
import { parseInput, readJson } from './route-support.js';

const notFound = () => new DaemonError('SESSION_NOT_FOUND', 'no such session');

/** The `:id` parameter; a malformed id cannot name a session, so it is a 404 like an unknown one. */
export function sessionIdParam(c: Context, name = 'id'): string {
  const parsed = sessionIdSchema.safeParse(c.req.param(name));
  if (!parsed.success) throw notFound();
  return parsed.data;
}

export function sessionRoutes(deps: {
  store: SessionStore;
  roots: WorkspaceRoots;
  registry: ProviderRegistry;
  runs: RunManager;
  untouched: UntouchedSessions;
  /** The model of a session asked for without a provider: the user's default for new sessions. */
  defaultModel: () => Promise<ModelRef>;
}): RouteModule {
  const { store, roots, registry, runs } = deps;
  const checkProvider = (provider: string | undefined) => {
    if (provider !== undefined && !registry.has(provider))
      throw new DaemonError('PROVIDER_UNKNOWN', 'no such provider');
  };
  /** A reasoning effort is asked for: refused for a model that takes none. */
  const checkReasoning = (ref: { provider: string; model: string }) => {
    if (!takesReasoning(ref.provider, ref.model))
      throw new DaemonError(
        'REASONING_NOT_SUPPORTED',
        `${ref.provider}/${ref.model} takes no reasoning effort (OpenAI's, ChatGPT's and Anthropic's reasoning models do, e.g. openai/gpt-5)`,
      );
  };
  return (app) => {
    app.get('/sessions', (c) => {
      const query = parseInput(sessionListQuerySchema, c.req.query());
      const page = store.sessions.list(query);
      return c.json({ sessions: page.items, next: page.next } satisfies SessionListResponse);
    });
    app.post('/sessions', async (c) => {
      const body = await readJson(c, createSessionRequestSchema);
      checkProvider(body.provider);
      const workspace = body.workspace ?? roots.default ?? null;
      if (workspace !== null && !roots.isGranted(workspace)) {
        throw new DaemonError('WORKSPACE_NOT_GRANTED', 'that workspace was not granted by the host');
      }
      // Without a provider: the default for new sessions (`bastion models default`, Settings), or
      // with only a model, that model of the default's provider.
      const fallback = body.provider === undefined ? await deps.defaultModel() : undefined;
      if (fallback && !registry.has(fallback.provider))
        throw new DaemonError(
          'PROVIDER_UNKNOWN',
          'the default model for new sessions is not available now (its key or endpoint is gone): choose another',
        );
      const provider = body.provider ?? (fallback as ModelRef).provider;
      const model = body.model ?? fallback?.model ?? registry.defaultModel(provider) ?? provider;
      if (body.reasoning_effort !== undefined) checkReasoning({ provider, model });
      const session = store.sessions.create({
        provider,
        model,
        workspace,
        ...(body.title === undefined ? {} : { title: body.title }),
        ...(body.mode === undefined ? {} : { mode: body.mode }),
        ...(body.ask_before_writes === undefined ? {} : { askBeforeWrites: body.ask_before_writes }),
        ...(body.reasoning_effort === undefined ? {} : { reasoningEffort: body.reasoning_effort }),
        ...(body.consent_by === undefined ? {} : { consentBy: body.consent_by }),
        ...(body.provisional === undefined ? {} : { provisional: true }),
      });
      return c.json(session, 201);
    });
    app.get('/sessions/:id', (c) => {
      const session = store.sessions.get(sessionIdParam(c));
      if (!session) throw notFound();
      return c.json(session);
    });
    app.patch('/sessions/:id', async (c) => {
      const id = sessionIdParam(c);
      const body = await readJson(c, updateSessionRequestSchema);
      checkProvider(body.provider);
      // A provider named without a model moves the session to that provider's default model, as a new session gets.
      const model =
        body.model ??
        (body.provider === undefined ? undefined : (registry.defaultModel(body.provider) ?? body.provider));
      if (body.reasoning_effort != null) {
        const current = store.sessions.get(id);
        if (!current) throw notFound();
        checkReasoning({ provider: body.provider ?? current.provider, model: model ?? current.model });
      }
      const session = store.sessions.update(id, {
        ...(body.title === undefined ? {} : { title: body.title }),
        ...(body.mode === undefined ? {} : { mode: body.mode }),
        ...(body.provider === undefined ? {} : { provider: body.provider }),
        ...(model === undefined ? {} : { model }),
        ...(body.ask_before_writes === undefined ? {} : { askBeforeWrites: body.ask_before_writes }),
        ...(body.reasoning_effort === undefined ? {} : { reasoningEffort: body.reasoning_effort }),
        ...(body.consent_by === undefined ? {} : { consentBy: body.consent_by }),
      });
      if (!session) throw notFound();
      return c.json(session);
    });
    app.delete('/sessions/:id', (c) => {
      const id = sessionIdParam(c);
      const query = parseInput(deleteSessionQuerySchema, c.req.query());
      if (query.if_untouched === 'true') {
        if (!store.sessions.get(id)) throw notFound();
        if (!deps.untouched.removeIfUntouched(id, query.viewer))
          throw new DaemonError(
            'SESSION_IN_USE',
            'the session was not removed: something was done in it, or another page or `bastion chat` has it open',
          );
        return c.json({ deleted: true });
      }
      if (runs.isActive(id)) throw new DaemonError('RUN_ACTIVE', 'a run is active for this session');
      if (runs.isUndoing(id)) throw new DaemonError('RUN_ACTIVE', 'an undo or a rewind is being done in this session');
      if (!store.sessions.delete(id)) throw notFound();
      return c.json({ deleted: true });
    });
    app.get('/sessions/:id/messages', (c) => {
      const id = sessionIdParam(c);
      if (!store.sessions.get(id)) throw notFound();
      const query = parseInput(pageQuerySchema, c.req.query());
      const page = store.transcript.list(id, query);
      return c.json({ messages: page.items, next: page.next } satisfies MessageListResponse);
    });
    app.get('/sessions/:id/images/:image_id', (c) => {
      const id = sessionIdParam(c);
      if (!store.sessions.get(id)) throw notFound();
      const image = store.transcript.image(id, c.req.param('image_id'));
      if (!image) throw new DaemonError('IMAGE_NOT_FOUND', 'no such image in this session');
      return c.json({
        media_type: image.mediaType,
        data: image.data.toString('base64'),
      } satisfies SessionImageResponse);
    });
    app.get('/sessions/:id/events', (c) => {
      const id = sessionIdParam(c);
      if (!store.sessions.get(id)) throw notFound();
      const query = parseInput(eventPageQuerySchema, c.req.query());
      const page = store.runs.eventsBefore(
        id,
        query.cursor === undefined ? undefined : Number(query.cursor),
        query.limit ?? EVENT_PAGE_MAX_LIMIT,
      );
      const promptIds = page.items.flatMap(({ event }) =>
        event.type === 'run-started' && event.message_id !== null ? [event.message_id] : [],
      );
      return c.json({
        events: page.items,
        messages: store.transcript.byIds(id, promptIds),
        next: page.next,
      } satisfies EventPageResponse);
    });
  };
}
