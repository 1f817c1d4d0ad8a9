/** Test support: one request to a callback listener with exactly the target and headers given. */
import { request } from 'node:http';

export interface CallbackResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function callbackRequest(options: {
  port: number;
  target: string;
  /** 127.0.0.1 (default) or ::1. */
  address?: string;
  method?: string;
  /** Default: `localhost:<port>`. */
  host?: string;
  headers?: Record<string, string>;
  body?: string;
}): Promise<CallbackResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: options.address ?? '127.0.0.1',
        port: options.port,
        method: options.method ?? 'GET',
        path: options.target,
        agent: false,
        setHost: false,
        headers: { host: options.host ?? `localhost:${options.port}`, ...options.headers },
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

/** Resolves with the connection error code (ECONNREFUSED once a listener closed), or 'answered'. */
export async function connectionOutcome(port: number, address = '127.0.0.1'): Promise<string> {
  try {
    await callbackRequest({ port, address, target: '/auth/callback' });
    return 'answered';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? 'unknown';
  }
}
