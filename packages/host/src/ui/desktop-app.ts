/**
 * SEC-004: what the UI origin serves. Only `/desktop` and `/desktop/*` (plus guarded host IPC);
 * `/` redirects to `/desktop/`; everything else is 404. Every response carries the security
 * headers; every HTML response gets a fresh nonce and the nonce CSP. The app's pages need a
 * host session, which only a launch ticket creates. Does not catch a bug inside a /desktop page
 * that runs attacker-controlled script; the daemon perimeter and CSP are separate controls.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HOST_IPC_PATH_PREFIX, UI_CSP_NONCE_BYTES, UI_MAX_URL_CHARS, type Logger } from '@bastion/protocol';
import { buildDesktopCsp } from './csp.js';
import {
  ASSETS_PREFIX,
  BRIDGE_PATH,
  loadDesktopAssets,
  renderIndex,
  type DesktopAssetFiles,
  type DesktopAssets,
} from './desktop-assets.js';
import { HostIpc, pageMatches, type PagePattern } from './host-ipc.js';
import { HostSessions } from './host-sessions.js';
import { LaunchTickets } from './launch-tickets.js';
import type { UiRequestHandler } from './ui-server.js';
import { noticePage } from './notice-page.js';

export const LAUNCH_PATH = '/desktop/launch';

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

  constructor(options: DesktopAppOptions) {
    this.#options = options;
    this.sessions = new HostSessions(options.uiPort);
    this.ipc = new HostIpc({
      origin: options.uiOrigin,
      hasSession: (cookie) => this.sessions.isValid(cookie),
      log: options.log,
    });
  }

  /** A fresh one-time launch URL (60 s). */
  issueLaunchUrl(): string {
    return `${this.#options.uiOrigin}${LAUNCH_PATH}?ticket=${this.tickets.issue()}`;
  }

  readonly handler: UiRequestHandler = (req, res) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    this.#route(req, res).catch((error: unknown) => {
      this.#options.log.error('ui.failed', { code: (error as { code?: string }).code ?? 'UNKNOWN' });
      if (!res.headersSent) this.#text(res, 500, 'Internal error\n');
      else res.destroy();
    });
  };

  async #route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? '/';
    if (target.length > UI_MAX_URL_CHARS || !target.startsWith('/')) return this.#text(res, 400, 'Bad request\n');
    const url = new URL(target, this.#options.uiOrigin);
    const path = url.pathname;

    if (path.startsWith(HOST_IPC_PATH_PREFIX)) {
      return this.ipc.dispatch(req, res, path.slice(HOST_IPC_PATH_PREFIX.length));
    }
    req.resume();
    if (req.method !== 'GET' && req.method !== 'HEAD') return this.#text(res, 405, 'Method not allowed\n');
    if (path === '/') {
      res.writeHead(303, { location: '/desktop/' });
      res.end();
      return undefined;
    }
    if (path === LAUNCH_PATH) return this.#launch(res, url.searchParams.getAll('ticket'));
    if (path === BRIDGE_PATH) return this.#file(res, this.#loaded()?.bridge, 'text/javascript; charset=utf-8');
    if (path.startsWith(ASSETS_PREFIX)) {
      const file = this.#loaded()?.assets.get(path.slice(ASSETS_PREFIX.length));
      return this.#file(res, file?.body, file?.contentType ?? '');
    }
    if (pageMatches(path, APP_PAGES)) return this.#app(req, res);
    return this.#text(res, 404, 'Not found\n');
  }

  #launch(res: ServerResponse, tickets: string[]): void {
    const [ticket] = tickets;
    if (tickets.length !== 1 || ticket === undefined || !this.tickets.redeem(ticket)) {
      this.#options.log.warn('ui.launch-refused');
      return this.#html(res, 403, (nonce) =>
        noticePage(
          nonce,
          'This launch link is no longer valid',
          'Launch links work once and for 60 seconds. Run bastion open in the terminal for a new one.',
        ),
      );
    }
    this.#options.log.info('ui.launched');
    res.writeHead(303, { 'set-cookie': this.sessions.create(), location: '/desktop/' });
    res.end();
    return undefined;
  }

  #app(req: IncomingMessage, res: ServerResponse): void {
    if (!this.sessions.isValid(req.headers.cookie)) {
      return this.#html(res, 401, (nonce) =>
        noticePage(
          nonce,
          'Open Bastion from its launch link',
          'This browser has no Bastion session. Run bastion start and open the launch link it prints.',
        ),
      );
    }
    const assets = this.#loaded();
    if (!assets) return this.#notBuilt(res);
    return this.#html(res, 200, (nonce) => renderIndex(assets.indexTemplate, nonce));
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

  #notBuilt(res: ServerResponse): void {
    this.#html(res, 503, (nonce) =>
      noticePage(nonce, 'The desktop UI is not built', 'Run npm run build, then bastion start.'),
    );
  }

  #html(res: ServerResponse, status: number, render: (nonce: string) => string): void {
    const nonce = randomBytes(UI_CSP_NONCE_BYTES).toString('base64');
    const csp = buildDesktopCsp({ nonce, daemonOrigin: this.#options.daemonOrigin });
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': csp });
    res.end(render(nonce));
  }

  #file(res: ServerResponse, body: Buffer | undefined, contentType: string): void {
    if (!body) return this.#text(res, 404, 'Not found\n');
    res.writeHead(200, { 'content-type': contentType, 'content-length': String(body.length) });
    res.end(body);
    return undefined;
  }

  #text(res: ServerResponse, status: number, text: string): void {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(text);
  }
}
