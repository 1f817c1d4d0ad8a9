/**
 * Test support: an OpenAI-compatible chat-completions endpoint on loopback that plays a script,
 * one turn per request: stream text (optionally slowly, optionally pausing or dropping the
 * connection part way), call a tool (or several in one step), or answer with an HTTP error status
 * (429 with Retry-After, 5xx). Each request's authorization, body, size in bytes and estimated
 * tokens are recorded, and every streamed answer ends with a usage chunk whose prompt_tokens is
 * that estimate (what a real provider would count), so the daemon's usage-driven compaction can be
 * tested end to end.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DaemonClient } from '@bastion/host';
import { startServer, type ChatCompletionsRequest, type TestServer } from './loopback-servers.js';

export type ScriptedTurn =
  | {
      kind: 'text';
      pieces: string[];
      /** Pause before each piece. */
      delayMs?: number;
      /** Pace the pieces at this many a second from the first: pieces that fall behind the timer's
       * granularity go out together at once, so the rate holds where one pause each could not. */
      perSecond?: number;
      /** Destroy the connection after this many pieces, with no finish and no [DONE]. */
      dropAfter?: number;
      /** Streamed first as `reasoning_content` deltas, the way reasoning models send their thinking. */
      reasoning?: string[];
      /** Send nothing until this settles: a test keeps the turn open while it looks at the run meanwhile. */
      hold?: Promise<unknown>;
      /** After this many pieces, send no more until `until` settles: a test looks at a reply half sent. */
      pauseAfter?: { pieces: number; until: Promise<unknown> };
      /** The usage its last chunk reports in place of the estimate (a long session's large counts). */
      usage?: ScriptedUsage;
    }
  | { kind: 'tool-call'; name: string; input: Record<string, unknown> }
  /** Several tool calls in one step (one answer carrying them all, as a model asking for two commands at once). */
  | { kind: 'tool-calls'; calls: { name: string; input: Record<string, unknown> }[] }
  /** Answer with an error status and an OpenAI-style error body (e.g. 429 with Retry-After). */
  | { kind: 'status'; status: number; message: string; retryAfterSeconds?: number };

/** Token counts a scripted answer reports as its usage. */
export interface ScriptedUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
}

/** A fixed script, or a function choosing each turn from the request (its index and body). */
export type Script = ScriptedTurn[] | ((index: number, request: ScriptedRequest) => ScriptedTurn | undefined);

/** What the endpoint saw of one request. */
export interface ScriptedRequest extends ChatCompletionsRequest {
  /** Size of the request body. */
  bytes: number;
  /** Estimated prompt tokens (characters of the messages / 4), reported back as usage. */
  promptTokens: number;
  /** The system message's text, if any. */
  system: string | undefined;
  /** `performance.now()` when the whole body had arrived, and when the answer was written (benchmarks subtract it). */
  receivedAt: number;
  answeredAt?: number;
}

/** The text of the last user message in the endpoint's last request (its text parts joined by newlines), or ''. */
export function lastUserText(seen: readonly ScriptedRequest[]): string {
  const user = (seen.at(-1)?.body.messages ?? []).filter((message) => message.role === 'user').at(-1);
  const content = user?.content;
  if (typeof content === 'string') return content;
  return Array.isArray(content)
    ? content
        .map((part: { type?: string; text?: string }) => (part.type === 'text' ? (part.text ?? '') : ''))
        .join('\n')
    : '';
}

/** Tokens the endpoint reports as the completion of every streamed turn. */
export const SCRIPTED_COMPLETION_TOKENS = 7;
/** Cached prompt tokens the endpoint reports for every streamed turn. */
export const SCRIPTED_CACHED_TOKENS = 3;

function estimateTokens(body: ChatCompletionsRequest['body']): number {
  return Math.ceil(JSON.stringify(body.messages ?? []).length / 4);
}

function systemOf(body: ChatCompletionsRequest['body']): string | undefined {
  const system = body.messages?.find((message) => message.role === 'system');
  return typeof system?.content === 'string' ? system.content : undefined;
}

export interface ScriptedEndpoint extends TestServer {
  readonly seen: ScriptedRequest[];
  /** Pieces written so far across all turns. */
  readonly piecesSent: number;
  /** Streams whose client went away before the turn ended. */
  readonly abandonedStreams: number;
  /** The base URL to define and grant (`<origin>/v1`). */
  readonly baseUrl: string;
}

function usageChunk(
  promptTokens: number,
  completionTokens = SCRIPTED_COMPLETION_TOKENS,
  cachedTokens = SCRIPTED_CACHED_TOKENS,
): string {
  const chunk = {
    id: 'cmpl-scripted',
    object: 'chat.completion.chunk',
    created: 1,
    model: SCRIPTED_MODEL,
    choices: [],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      prompt_tokens_details: { cached_tokens: cachedTokens },
    },
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

function sseChunk(delta: object, finishReason: string | null): string {
  const chunk = {
    id: 'cmpl-scripted',
    object: 'chat.completion.chunk',
    created: 1,
    model: SCRIPTED_MODEL,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

export const SCRIPTED_MODEL = 'scripted-model';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `models` is what `GET /v1/models` lists. */
export async function startScriptedEndpoint(
  script: Script,
  models: readonly string[] = [SCRIPTED_MODEL],
): Promise<ScriptedEndpoint> {
  const seen: ScriptedRequest[] = [];
  const state = { pieces: 0, turn: 0, abandoned: 0 };
  const next = (request: ScriptedRequest) =>
    typeof script === 'function' ? script(state.turn, request) : script[state.turn];

  async function play(turn: ScriptedTurn, res: ServerResponse, promptTokens: number): Promise<void> {
    res.on('close', () => {
      if (!res.writableFinished && turn.kind === 'text' && turn.dropAfter === undefined) state.abandoned += 1;
    });
    if (turn.kind === 'status') {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (turn.retryAfterSeconds !== undefined) headers['retry-after'] = String(turn.retryAfterSeconds);
      res.writeHead(turn.status, headers);
      res.end(JSON.stringify({ error: { message: turn.message, type: 'scripted', code: null } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (turn.kind === 'text' && turn.hold) {
      await turn.hold;
      if (res.destroyed) return;
    }
    if (turn.kind === 'tool-call' || turn.kind === 'tool-calls') {
      const calls = turn.kind === 'tool-call' ? [turn] : turn.calls;
      const opened = calls.map((call, index) => ({
        index,
        id: index === 0 ? `call_${state.turn}` : `call_${state.turn}_${index}`,
        type: 'function',
        function: { name: call.name, arguments: '' },
      }));
      res.write(sseChunk({ role: 'assistant', tool_calls: opened }, null));
      res.write(
        sseChunk(
          { tool_calls: calls.map((call, index) => ({ index, function: { arguments: JSON.stringify(call.input) } })) },
          null,
        ),
      );
      res.write(sseChunk({}, 'tool_calls'));
      res.write(usageChunk(promptTokens));
      res.end('data: [DONE]\n\n');
      return;
    }
    for (const [index, thought] of (turn.reasoning ?? []).entries()) {
      res.write(
        sseChunk(
          index === 0 ? { role: 'assistant', reasoning_content: thought } : { reasoning_content: thought },
          null,
        ),
      );
    }
    const started = performance.now();
    for (const [index, piece] of turn.pieces.entries()) {
      if (turn.dropAfter !== undefined && index >= turn.dropAfter) {
        res.socket?.destroy();
        return;
      }
      if (turn.pauseAfter?.pieces === index) {
        await turn.pauseAfter.until;
        if (res.destroyed) return;
      }
      if (turn.delayMs) await pause(turn.delayMs);
      const ahead = turn.perSecond ? started + (index * 1000) / turn.perSecond - performance.now() : 0;
      if (ahead > 0) await pause(ahead);
      if (res.destroyed) return;
      res.write(sseChunk(index === 0 ? { role: 'assistant', content: piece } : { content: piece }, null));
      state.pieces += 1;
    }
    res.write(sseChunk({}, 'stop'));
    const { usage } = turn;
    res.write(
      usage ? usageChunk(usage.promptTokens, usage.completionTokens, usage.cachedTokens) : usageChunk(promptTokens),
    );
    res.end('data: [DONE]\n\n');
  }

  const server = await startServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: models.map((id) => ({ id, object: 'model' })) }));
        return;
      }
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      const raw = Buffer.concat(chunks);
      const body = JSON.parse(raw.toString('utf8')) as ChatCompletionsRequest['body'];
      const request: ScriptedRequest = {
        authorization: req.headers.authorization,
        body,
        bytes: raw.length,
        promptTokens: estimateTokens(body),
        system: systemOf(body),
        receivedAt: performance.now(),
      };
      const turn = next(request);
      if (!turn) {
        res.writeHead(404).end();
        return;
      }
      state.turn += 1;
      seen.push(request);
      void play(turn, res, request.promptTokens).then(
        () => (request.answeredAt = performance.now()),
        () => res.destroy(),
      );
    });
  });
  return {
    seen,
    baseUrl: `${server.origin}/v1`,
    origin: server.origin,
    port: server.port,
    close: () => server.close(),
    get hits() {
      return server.hits;
    },
    get piecesSent() {
      return state.pieces;
    },
    get abandonedStreams() {
      return state.abandoned;
    },
  };
}

/**
 * Define the endpoint as custom provider `local` with one model (and `definition`'s other fields,
 * e.g. `context_window`), and set its API key (both through the daemon).
 */
export async function defineScriptedProvider(
  // only the client's request: a host started from the host's sources or from its build
  host: { client: Pick<DaemonClient, 'request'> },
  endpoint: ScriptedEndpoint,
  key: string,
  definition: Record<string, unknown> = {},
): Promise<void> {
  const set = await host.client.request('POST', '/providers/endpoints/set', {
    id: 'local',
    base_url: endpoint.baseUrl,
    models: [SCRIPTED_MODEL],
    ...definition,
  });
  if (set.status !== 200) throw new Error(`endpoint not defined: ${set.status}`);
  const secret = await host.client.request('POST', '/secrets/set', { provider: 'local', key });
  if (secret.status !== 200) throw new Error(`key not set: ${secret.status}`);
}
