/** Test support: loopback HTTP(S) servers that count their hits, and a fake chat-completions endpoint. */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface TestServer {
  origin: string;
  port: number;
  hits: number;
  close(): Promise<void>;
}

export async function startServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  tls?: { key: string; cert: string },
): Promise<TestServer> {
  const state = { hits: 0 };
  const wrapped = (req: IncomingMessage, res: ServerResponse) => {
    state.hits += 1;
    handler(req, res);
  };
  const server: Server = tls ? createHttpsServer(tls, wrapped) : createHttpServer(wrapped);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    get hits() {
      return state.hits;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What the fake chat-completions endpoint saw of each request. */
export interface ChatCompletionsRequest {
  authorization: string | undefined;
  body: { model?: string; stream?: boolean; messages?: { role: string; content: unknown }[] };
}

/** A handler speaking the OpenAI chat-completions stream: "Hello from the loopback endpoint." in three deltas. */
export function chatCompletionsServer(seen: ChatCompletionsRequest[]) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      seen.push({
        authorization: req.headers.authorization,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatCompletionsRequest['body'],
      });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: object, finish: string | null) =>
        `data: ${JSON.stringify({ id: 'cmpl-1', object: 'chat.completion.chunk', created: 1, model: 'local-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.write(chunk({ role: 'assistant', content: 'Hello' }, null));
      res.write(chunk({ content: ' from the' }, null));
      res.write(chunk({ content: ' loopback endpoint.' }, null));
      res.write(chunk({}, 'stop'));
      res.write(
        `data: ${JSON.stringify({ id: 'cmpl-1', object: 'chat.completion.chunk', created: 1, model: 'local-model', choices: [], usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 } })}\n\n`,
      );
      res.end('data: [DONE]\n\n');
    });
  };
}
