/**
 * SEC-004: what the UI origin serves, as hono apps. Only `/desktop` and `/desktop/*` (plus
 * guarded host IPC); `/` redirects to `/desktop/`; everything else is 404. Every response carries the security
 * headers; every HTML response gets a fresh nonce and the nonce CSP. The app's pages need a
 * host session, which only a launch ticket creates. Does not catch a bug inside a /desktop page
 * that runs attacker-controlled script; the daemon perimeter and CSP are separate controls.
 */
import { randomBytes } from 'node:crypto';
import { getRequestListener } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import {
  DESKTOP_PAGE_KEY_FRAGMENT,
  HOST_IPC_PATH_PREFIX,
  UI_CSP_NONCE_BYTES,
  UI_MAX_URL_CHARS,
  type Logger,
} from '@bastion/protocol';
import { buildDesktopCsp } from './csp.js';
import {
  ASSETS_PREFIX,
  BRIDGE_PATH,
  loadDesktopAssets,
  renderIndex,
  type DesktopAssetFiles,
  type DesktopAssets,
} from './desktop-assets.js';
import { HostIpc, pageMatches, type PagePattern, type UiContext, type UiEnv } from './host-ipc.js';
import { HostSessions } from './host-sessions.js';
import { LaunchTickets } from './launch-tickets.js';
import type { UiRequestHandler } from './ui-server.js';
import { noticePage } from './notice-page.js';

export const LAUNCH_PATH = '/desktop/launch';
const DESKTOP_HOME = '/desktop/';

/** The web app's pages (client-side routes); the app's host channels are allowed from these. */
export const APP_PAGES: readonly PagePattern[] = ['/desktop', '/desktop/', '/desktop/sessions/*', '/desktop/settings'];

/** Sent with every response of the UI origin. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

export interface DesktopAppOptions {
  uiOrigin: string;
  uiPort: number;
  daemonOrigin: string;
  files: () => DesktopAssetFiles;
  log: Logger;
}

export class DesktopApp {
  readonly tickets = new LaunchTickets();
  readonly sessions: HostSessions;
  readonly ipc: HostIpc;
  readonly #options: DesktopAppOptions;
  #assets: DesktopAssets | undefined;
  readonly #listener = getRequestListener(this.#routes().fetch);

  constructor(options: DesktopAppOptions) {
    this.#options = options;
    this.sessions = new HostSessions(options.uiPort);
    this.ipc = new HostIpc({
      origin: options.uiOrigin,
      hasSession: (cookie) => this.sessions.isValid(cookie),
      hasPageKey: (cookie, pageKey) => this.sessions.hasPageKey(cookie, pageKey),
      log: options.log,
    });
  }

  /** A fresh one-time launch URL (60 s). */
  issueLaunchUrl(): string {
    return `${this.#options.uiOrigin}${LAUNCH_PATH}?ticket=${this.tickets.issue()}`;
  }

  /**
   * The UI origin's pages and files as a hono app with one route, so every answer is written in
   * the request's own tick. Paths are read from the request target exactly as the URL parser
   * resolves it against the UI origin.
   */
  #routes(): Hono<UiEnv> {
    const app = new Hono<UiEnv>();
    app.get('*', (c) => {
      c.env.incoming.resume();
      return this.#page(c, new URL(c.env.incoming.url ?? '/', this.#options.uiOrigin));
    });
    // Every GET and HEAD took the route above: what is left is another method.
    app.notFound((c) => {
      c.env.incoming.resume();
      return text(c, 405, 'Method not allowed\n');
    });
    app.onError((error, c) => {
      this.#options.log.error('ui.failed', { code: (error as { code?: string }).code ?? 'UNKNOWN' });
      return text(c, 500, 'Internal error\n');
    });
    return app;
  }

  #page(c: UiContext, url: URL): Response {
    const path = url.pathname;
    // An empty fragment of its own: a redirect without one keeps the request's, and a link to
    // `/#bastion-page-key=…` would then bring a key of anyone's choosing to the app (page-key.ts).
    if (path === '/') return seeOther(c, `${DESKTOP_HOME}#`, {});
    if (path === LAUNCH_PATH) return this.#launch(c, url.searchParams.getAll('ticket'));
    if (path === BRIDGE_PATH) return file(c, this.#loaded()?.bridge, 'text/javascript; charset=utf-8');
    if (path.startsWith(ASSETS_PREFIX)) {
      const asset = this.#loaded()?.assets.get(path.slice(ASSETS_PREFIX.length));
      return file(c, asset?.body, asset?.contentType ?? '');
    }
    if (pageMatches(path, APP_PAGES)) return this.#app(c);
    return text(c, 404, 'Not found\n');
  }

  /**
   * The UiServer's handler. Every response carries the security headers; a request target that
   * is too long or not a path (absolute-form, `*`) is refused before hono, and host IPC paths go
   * to the channels' own app.
   */
  readonly handler: UiRequestHandler = (req, res) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    const target = req.url ?? '/';
    if (target.length > UI_MAX_URL_CHARS || !target.startsWith('/')) {
      res.writeHead(400, { 'content-type': TEXT });
      res.end('Bad request\n');
      return;
    }
    const path = new URL(target, this.#options.uiOrigin).pathname;
    void (path.startsWith(HOST_IPC_PATH_PREFIX) ? this.ipc.dispatch(req, res) : this.#listener(req, res));
  };

  #launch(c: UiContext, tickets: string[]): Response {
    const [ticket] = tickets;
    if (tickets.length !== 1 || ticket === undefined || !this.tickets.redeem(ticket)) {
      this.#options.log.warn('ui.launch-refused');
      return this.#html(c, 403, (nonce) =>
        noticePage(
          nonce,
          'This launch link is no longer valid',
          'Launch links work once and for 60 seconds. Run bastion open in the terminal for a new one.',
        ),
      );
    }
    this.#options.log.info('ui.launched');
    // The page key goes in the fragment: no request, log or Referer carries one, so a server that
    // only ever saw the cookie (any other loopback port) cannot call host IPC. The bridge takes it
    // out of the address bar before the app runs.
    const { setCookie, pageKey } = this.sessions.create();
    return seeOther(c, `${DESKTOP_HOME}#${DESKTOP_PAGE_KEY_FRAGMENT}=${pageKey}`, { 'set-cookie': setCookie });
  }

  #app(c: UiContext): Response {
    if (!this.sessions.isValid(c.req.header('cookie'))) {
      return this.#html(c, 401, (nonce) =>
        noticePage(
          nonce,
          'Open Bastion from its launch link',
          'This browser has no Bastion session. Run bastion start and open the launch link it prints.',
        ),
      );
    }
    const assets = this.#loaded();
    if (!assets) return this.#notBuilt(c);
    return this.#html(c, 200, (nonce) => renderIndex(assets.indexTemplate, nonce));
  }

  #loaded(): DesktopAssets | undefined {
    if (!this.#assets) {
      try {
        this.#assets = loadDesktopAssets(this.#options.files());
      } catch (error) {
        this.#options.log.error('ui.assets-missing', { code: (error as { code?: string }).code ?? 'UNKNOWN' });
        return undefined;
      }
    }
    return this.#assets;
  }

  #notBuilt(c: UiContext): Response {
    return this.#html(c, 503, (nonce) =>
      noticePage(nonce, 'The desktop UI is not built', 'Run npm run build, then bastion start.'),
    );
  }

  #html(c: UiContext, status: ContentfulStatusCode, render: (nonce: string) => string): Response {
    const nonce = randomBytes(UI_CSP_NONCE_BYTES).toString('base64');
    const csp = buildDesktopCsp({ nonce, daemonOrigin: this.#options.daemonOrigin });
    return c.body(render(nonce), status, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': csp,
    });
  }
}

const TEXT = 'text/plain; charset=utf-8';

/**
 * 303 to a desktop page, written straight to the socket: node-server would add a content-type to
 * a response without a body, and this one has neither.
 */
function seeOther(c: UiContext, location: string, headers: Record<string, string>): Response {
  c.env.outgoing.writeHead(303, { ...headers, location });
  c.env.outgoing.end();
  return RESPONSE_ALREADY_SENT;
}

function text(c: UiContext, status: ContentfulStatusCode, body: string): Response {
  return c.body(body, status, { 'content-type': TEXT });
}

function file(c: UiContext, body: Buffer | undefined, contentType: string): Response {
  if (!body) return text(c, 404, 'Not found\n');
  return c.body(new Uint8Array(body), 200, { 'content-type': contentType, 'content-length': String(body.length) });
}
