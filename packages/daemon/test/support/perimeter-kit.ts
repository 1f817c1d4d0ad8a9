/** Test kit for perimeter guards: an app behind one guard whose handler counts every call. */
import { Hono } from 'hono';
import { perimeter, type PerimeterGuard } from '../../src/http/perimeter/perimeter-guard.js';

export const TEST_PORT = 41_234;
export const UI_ORIGIN = 'http://127.0.0.1:45678';

export interface GuardedApp {
  app: Hono;
  /** How many times a route handler ran; a refused request must leave it unchanged. */
  reached: () => number;
}

export function appBehind(...guards: PerimeterGuard[]): GuardedApp {
  const app = new Hono();
  let calls = 0;
  app.use('*', perimeter(guards));
  app.all('*', (c) => {
    calls += 1;
    return c.json({ ok: true });
  });
  return { app, reached: () => calls };
}

export async function codeOf(response: Response): Promise<string> {
  const body = (await response.json()) as { code?: string };
  return body.code ?? '';
}
