/** Test support: one HTTP request with exactly the headers given (no agent, no defaults). */
import { request, type IncomingHttpHeaders } from 'node:http';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export function rawRequest(options: {
  port: number;
  /** 127.0.0.1 (default) or ::1. */
  address?: string;
  method?: string;
  path?: string;
  headers: Record<string, string>;
  body?: string;
}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: options.address ?? '127.0.0.1',
        port: options.port,
        method: options.method ?? 'POST',
        path: options.path ?? '/handshake',
        headers: options.headers,
        agent: false,
        setHost: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The headers the bridge sends, for a given host and password. */
export function bridgeHeaders(host: { socketHost: { port: number }; uiOrigin: string }, password: string) {
  return {
    host: `127.0.0.1:${host.socketHost.port}`,
    origin: host.uiOrigin,
    referer: `${host.uiOrigin}/desktop/`,
    authorization: `Basic ${Buffer.from(`bastion:${password}`).toString('base64')}`,
  };
}
