/**
 * The daemon's HTTP application (SEC-004). The perimeter runs on every path — registered
 * routes, unknown paths and preflights alike — in the order Host → Origin → Referer → Auth,
 * before any route handler. A route module cannot opt out: there is no "internal" bypass.
 */
import { Hono } from 'hono';
import { AGENT_RUN_MAX_BODY_BYTES, DAEMON_MAX_JSON_BODY_BYTES } from '@bastion/protocol';
import { bodySizeGuard } from './body-size-guard.js';
import { authGuard } from './perimeter/auth-guard.js';
import { hostGuard } from './perimeter/host-guard.js';
import { originGuard } from './perimeter/origin-guard.js';
import { perimeter as perimeterGuards } from './perimeter/perimeter-guard.js';
import { refererGuard } from './perimeter/referer-guard.js';
import { errorResponse } from './routes/route-support.js';
import { wireError } from './wire-error.js';

export interface PerimeterOptions {
  port: number;
  allowedOrigins: readonly string[];
  password: string;
}

/** A group of routes mounted behind the perimeter. */
export type RouteModule = (app: Hono) => void;

export function createDaemonApp(perimeter: PerimeterOptions, routes: readonly RouteModule[]): Hono {
  const app = new Hono();
  app.use(
    '*',
    perimeterGuards([
      hostGuard({ port: perimeter.port }),
      originGuard({ allowedOrigins: perimeter.allowedOrigins, cors: true }),
      refererGuard({ allowedOrigins: perimeter.allowedOrigins }),
      authGuard({ password: perimeter.password }),
      // A prompt's images make its body larger than any other route's.
      bodySizeGuard({ maxBytes: DAEMON_MAX_JSON_BODY_BYTES, routes: { 'POST /agent/run': AGENT_RUN_MAX_BODY_BYTES } }),
    ]),
  );
  for (const register of routes) register(app);
  app.notFound((c) => wireError(c, 'ROUTE_NOT_FOUND', 'no such route'));
  app.onError((error, c) => errorResponse(c, error));
  return app;
}

/** The routes modules registered (not the perimeter middleware); logged at start so checklist tests can enumerate them. */
export function registeredRoutes(app: Hono): { method: string; path: string }[] {
  const seen = new Set<string>();
  const out: { method: string; path: string }[] = [];
  for (const route of app.routes) {
    if (route.method === 'ALL' && route.path === '/*') continue;
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ method: route.method, path: route.path });
  }
  return out;
}
