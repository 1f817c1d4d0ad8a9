/** The implementation of `window.bastion` over the transport: one method per daemon route or host channel. */
import type { EndpointListResponse, EndpointProbeResponse, SecretPresenceResponse } from '@bastion/protocol';
import type { BastionApi } from './api.js';
import type { Transport } from './transport.js';
import { readAgentEvents } from './event-stream.js';

function pageQuery(options: { limit?: number; cursor?: string; search?: string } = {}): string {
  const query = new URLSearchParams();
  if (options.search !== undefined) query.set('search', options.search);
  if (options.limit !== undefined) query.set('limit', String(options.limit));
  if (options.cursor !== undefined) query.set('cursor', options.cursor);
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

const id = (value: string) => encodeURIComponent(value);

export function createApi(transport: Transport): BastionApi {
  const { daemon, host } = transport;
  return {
    version: 1,
    handshake: () => daemon('POST', '/handshake'),
    sessions: {
      list: (options) => daemon('GET', `/sessions${pageQuery(options)}`),
      create: (request) => daemon('POST', '/sessions', request),
      get: (sessionId) => daemon('GET', `/sessions/${id(sessionId)}`),
      update: (sessionId, request) => daemon('PATCH', `/sessions/${id(sessionId)}`, request),
      delete: async (sessionId) => {
        await daemon('DELETE', `/sessions/${id(sessionId)}`);
      },
      deleteIfUntouched: async (sessionId, viewer) => {
        await daemon('DELETE', `/sessions/${id(sessionId)}?if_untouched=true&viewer=${id(viewer)}`);
      },
      messages: (sessionId, options) => daemon('GET', `/sessions/${id(sessionId)}/messages${pageQuery(options)}`),
      events: (sessionId, options) => daemon('GET', `/sessions/${id(sessionId)}/events${pageQuery(options)}`),
      audit: (sessionId, options) => daemon('GET', `/sessions/${id(sessionId)}/audit${pageQuery(options)}`),
      image: (sessionId, imageId) => daemon('GET', `/sessions/${id(sessionId)}/images/${id(imageId)}`),
      changes: (sessionId) => daemon('GET', `/sessions/${id(sessionId)}/changes`),
    },
    agent: {
      run: (sessionId, message, images, mcp, sendId) =>
        daemon(
          'POST',
          '/agent/run',
          {
            session_id: sessionId,
            message,
            ...(images === undefined || images.length === 0 ? {} : { images }),
            ...(mcp?.prompt === undefined ? {} : { mcp_prompt: mcp.prompt }),
            ...(mcp?.resources === undefined || mcp.resources.length === 0 ? {} : { mcp_resources: mcp.resources }),
            ...(sendId === undefined ? {} : { client_id: sendId }),
          },
          // The daemon answers a repeat of an id with the first send's run: asking twice is safe.
          { repeatable: sendId !== undefined },
        ),
      compact: (sessionId) => daemon('POST', '/agent/run', { session_id: sessionId, compact: true }),
      abort: (sessionId) => daemon('POST', '/agent/abort', { session_id: sessionId }),
      undo: (sessionId, runId, options) =>
        daemon('POST', '/agent/undo', {
          session_id: sessionId,
          run_id: runId,
          ...(options?.dryRun === true ? { dry_run: true } : {}),
        }),
      rewind: (sessionId, runId, options) =>
        daemon('POST', '/agent/rewind', {
          session_id: sessionId,
          run_id: runId,
          files: options.files,
          ...(options.dryRun === true ? { dry_run: true } : {}),
        }),
      async stream(sessionId, options) {
        const headers: Record<string, string> =
          options.lastEventId === undefined ? {} : { 'last-event-id': String(options.lastEventId) };
        const viewer = options.viewer === undefined ? '' : `?viewer=${id(options.viewer)}`;
        const response = await transport.daemonStream(
          `/agent/stream/${id(sessionId)}${viewer}`,
          headers,
          options.signal,
        );
        if (!response.body) return;
        try {
          await readAgentEvents(response.body, (event) => options.onEvent(event));
        } catch (error) {
          if (options.signal?.aborted) return;
          throw error;
        }
      },
    },
    prompts: {
      list: () => daemon('GET', '/prompts'),
    },
    models: {
      list: () => daemon('GET', '/models'),
      setDefault: async (ref) => {
        await daemon('POST', '/models/default', ref);
      },
    },
    approvals: {
      answer: (sessionId, answer) => daemon('POST', '/agent/run', { session_id: sessionId, approval_answer: answer }),
    },
    mode: {
      set: (sessionId, mode) =>
        daemon('PATCH', `/sessions/${id(sessionId)}`, mode === 'auto' ? { mode, consent_by: 'ui' } : { mode }),
    },
    workspaces: {
      list: () => daemon('POST', '/workspaces/list', {}),
      readdir: (root, path) => daemon('POST', '/workspaces/readdir', { root, path }),
      find: (root, query) => daemon('POST', '/workspaces/find', { root, query }),
      requestGrant: (path) => host('workspaces.request-grant', { path }),
    },
    secrets: {
      has: async (provider) => (await daemon<SecretPresenceResponse>('POST', '/secrets/has', { provider })).present,
      set: async (provider, key) => {
        await daemon('POST', '/secrets/set', { provider, key });
      },
      delete: async (provider) => {
        await daemon('POST', '/secrets/delete', { provider });
      },
    },
    endpoints: {
      list: async () => (await daemon<EndpointListResponse>('POST', '/providers/endpoints/list', {})).endpoints,
      define: async (definition) => {
        await daemon('POST', '/providers/endpoints/set', definition);
      },
      delete: async (endpointId) => {
        await daemon('POST', '/providers/endpoints/delete', { id: endpointId });
      },
      probe: async (endpointId) =>
        (await daemon<EndpointProbeResponse>('POST', '/providers/endpoints/probe', { id: endpointId })).models,
      requestConsent: (url) => host('endpoints.request-consent', { url }),
    },
    policy: {
      list: (workspace) => host('policy.list', { workspace }),
      add: (workspace, rule) => host('policy.add', { workspace, rule }),
      remove: (workspace, ruleId) => host('policy.remove', { workspace, id: ruleId }),
      audit: (query = {}) => host('policy.audit', query),
    },
    asks: {
      wait: (after) => host('asks.wait', after === undefined ? {} : { after }),
      answer: (askId, answer) => host('asks.answer', { id: askId, answer }),
    },
    mcp: {
      list: (workspace) => host('mcp.list', { workspace }),
      add: (workspace, server) => host('mcp.add', { workspace, server }),
      remove: (workspace, name) => host('mcp.remove', { workspace, name }),
      restart: (workspace, name) => host('mcp.restart', { workspace, name }),
      catalog: (workspace) => host('mcp.catalog', { workspace }),
      prompt: (workspace, server, name, args) => host('mcp.prompt', { workspace, server, name, arguments: args }),
      resource: (workspace, server, uri, variables) =>
        host('mcp.resource', { workspace, server, uri, ...(variables === undefined ? {} : { variables }) }),
    },
    chatgpt: {
      connect: () => host('chatgpt.connect', {}),
      cancel: () => host('chatgpt.cancel', {}),
      status: () => host('chatgpt.status', {}),
      signOut: () => host('chatgpt.sign-out', {}),
    },
  };
}
