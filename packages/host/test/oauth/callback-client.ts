/** Test support: one request to a callback listener with exactly the target and headers given. */
import { rawRequest, type RawResponse } from '../support/raw-request.js';

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
}): Promise<RawResponse> {
  const { port, address, body } = options;
  const headers = { host: options.host ?? `localhost:${port}`, ...options.headers };
  return rawRequest({ port, address, method: options.method ?? 'GET', path: options.target, headers, body });
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
