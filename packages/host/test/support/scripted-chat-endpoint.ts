/**
 * Test support: an OpenAI-compatible chat-completions endpoint on loopback that plays a script,
 * one turn per request: stream text (optionally slowly, optionally dropping the connection part
 * way), or call a tool. Each request's authorization and body are recorded.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BastionHost } from '../../src/bastion-host.js';
import { startServer, type ChatCompletionsRequest, type TestServer } from '../transport/transport-harness.js';

export type ScriptedTurn =
  | {
      kind: 'text';
      pieces: string[];
      /** Pause before each piece. */
      delayMs?: number;
      /** Destroy the connection after this many pieces, with no finish and no [DONE]. */
      dropAfter?: number;
      /** Streamed first as `reasoning_content` deltas, the way reasoning models send their thinking. */
      reasoning?: string[];
    }
  | { kind: 'tool-call'; name: string; input: Record<string, unknown> }
  /** Answer with an error status and an OpenAI-style error body (e.g. 429 with Retry-After). */
  | { kind: 'status'; status: number; message: string; retryAfterSeconds?: number };

export interface ScriptedEndpoint extends TestServer {
  readonly seen: ChatCompletionsRequest[];
  /** Pieces written so far across all turns. */
  readonly piecesSent: number;
  /** Streams whose client went away before the turn ended. */
  readonly abandonedStreams: number;
  /** The base URL to define and grant (`<origin>/v1`). */
  readonly baseUrl: string;
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
  turns: ScriptedTurn[],
  models: readonly string[] = [SCRIPTED_MODEL],
): Promise<ScriptedEndpoint> {
  const seen: ChatCompletionsRequest[] = [];
  const state = { pieces: 0, turn: 0, abandoned: 0 };

  async function play(turn: ScriptedTurn, res: ServerResponse): Promise<void> {
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
    if (turn.kind === 'tool-call') {
      const call = { index: 0, id: `call_${state.turn}`, type: 'function' };
      res.write(
        sseChunk({ role: 'assistant', tool_calls: [{ ...call, function: { name: turn.name, arguments: '' } }] }, null),
      );
      res.write(sseChunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(turn.input) } }] }, null));
      res.write(sseChunk({}, 'tool_calls'));
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
    for (const [index, piece] of turn.pieces.entries()) {
      if (turn.dropAfter !== undefined && index >= turn.dropAfter) {
        res.socket?.destroy();
        return;
      }
      if (turn.delayMs) await pause(turn.delayMs);
      if (res.destroyed) return;
      res.write(sseChunk(index === 0 ? { role: 'assistant', content: piece } : { content: piece }, null));
      state.pieces += 1;
    }
    res.write(sseChunk({}, 'stop'));
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
      const turn = turns[state.turn];
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions' || !turn) {
        res.writeHead(404).end();
        return;
      }
      state.turn += 1;
      seen.push({
        authorization: req.headers.authorization,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatCompletionsRequest['body'],
      });
      void play(turn, res).catch(() => res.destroy());
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

/** Define the endpoint as custom provider `local` with one model, and set its API key (both through the daemon). */
export async function defineScriptedProvider(
  host: BastionHost,
  endpoint: ScriptedEndpoint,
  key: string,
): Promise<void> {
  const set = await host.client.request('POST', '/providers/endpoints/set', {
    id: 'local',
    base_url: endpoint.baseUrl,
    models: [SCRIPTED_MODEL],
  });
  if (set.status !== 200) throw new Error(`endpoint not defined: ${set.status}`);
  const secret = await host.client.request('POST', '/secrets/set', { provider: 'local', key });
  if (secret.status !== 200) throw new Error(`key not set: ${secret.status}`);
}
