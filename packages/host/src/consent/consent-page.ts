/**
 * SEC-004: the host-owned confirmation page, Bastion's "native confirmation dialog" when no
 * terminal is attached. Each question gets a fresh 256-bit token and a page on the host's own
 * loopback origin (its own port, so not the desktop UI's origin), which the host opens in the
 * system browser or prints on its terminal. The desktop page cannot answer it: it never learns the
 * token (no IPC answer carries it), cannot read the page cross-origin, cannot frame it
 * (`frame-ancestors 'none'`, `X-Frame-Options: DENY`), and a POST from any other origin — even
 * with the right token — is refused on its exact `Origin`, with `Sec-Fetch-Site` checked when the
 * browser sends it. The page runs no script; each answer is one use, and an unanswered question
 * is a no after CONSENT_PAGE_TTL_MS. Does not catch a local process that reads the printed URL
 * (or the browser's command line) and answers first, nor a person who approves the wrong origin.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  CONSENT_PAGE_MAX_BODY_BYTES,
  CONSENT_PAGE_MAX_PENDING,
  CONSENT_PAGE_TOKEN_BYTES,
  CONSENT_PAGE_TTL_MS,
  UI_CSP_NONCE_BYTES,
  UI_HEADERS_TIMEOUT_MS,
  UI_MAX_HEADER_BYTES,
  UI_REQUEST_TIMEOUT_MS,
  type Logger,
} from '@bastion/protocol';
import { listenOnLoopback } from '../listen-loopback.js';
import { readBoundedRequest } from '../read-bounded-request.js';
import type { ConsentRequest } from './host-confirmer.js';

/** Hands the page's URL to the user (the system browser, else the terminal); true when a browser opened. */
export type ConsentOpener = (url: string) => Promise<boolean>;

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const PATH = /^\/consent\/([^/?#]+)$/;

interface Pending {
  request: ConsentRequest;
  resolve: (yes: boolean) => void;
  timer: NodeJS.Timeout;
}

function digest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function describe(request: ConsentRequest): { title: string; rows: [string, string][]; note: string } {
  if (request.kind === 'endpoint') {
    return {
      title: 'Allow provider requests to this custom endpoint?',
      rows: [
        ['Origin', request.origin],
        ['Route', request.posture.summary],
      ],
      note: 'Requests may carry the API key you stored for it. The grant lasts until Bastion stops.',
    };
  }
  return {
    title: 'Let the agent work in this folder?',
    rows: [['Folder', request.path]],
    note: 'The agent can read and change files in it, inside its sandbox.',
  };
}

export class ConsentPage {
  readonly #opener: ConsentOpener;
  readonly #log: Logger;
  readonly #pending = new Map<string, Pending>();
  #server: Server | undefined;
  #origin = '';

  constructor(options: { opener: ConsentOpener; log: Logger }) {
    this.#opener = options.opener;
    this.#log = options.log;
  }

  /** The page's origin once it listens ('' before the first question). */
  get origin(): string {
    return this.#origin;
  }

  /** Ask on a fresh page; resolves true only if the person chose Allow there in time. Never throws. */
  async confirm(request: ConsentRequest): Promise<boolean> {
    try {
      await this.#listen();
    } catch (error) {
      this.#log.error('consent.page-failed', { code: (error as { code?: string }).code ?? 'UNKNOWN' });
      return false;
    }
    if (this.#pending.size >= CONSENT_PAGE_MAX_PENDING) return false;
    const token = randomBytes(CONSENT_PAGE_TOKEN_BYTES).toString('base64url');
    const key = digest(token);
    const answer = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => this.#settle(key, false), CONSENT_PAGE_TTL_MS);
      this.#pending.set(key, { request, resolve, timer });
    });
    this.#log.info('consent.page-asked', { kind: request.kind });
    await this.#opener(`${this.#origin}/consent/${token}`).catch(() => false);
    return answer;
  }

  async close(): Promise<void> {
    for (const key of [...this.#pending.keys()]) this.#settle(key, false);
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async #listen(): Promise<void> {
    if (this.#server) return;
    const server = createServer(
      {
        maxHeaderSize: UI_MAX_HEADER_BYTES,
        headersTimeout: UI_HEADERS_TIMEOUT_MS,
        requestTimeout: UI_REQUEST_TIMEOUT_MS,
      },
      (req, res) => void this.#route(req, res),
    );
    this.#server = server;
    const port = await listenOnLoopback(server);
    this.#origin = `http://127.0.0.1:${port}`;
  }

  #settle(key: string, yes: boolean): void {
    const pending = this.#pending.get(key);
    if (!pending) return;
    this.#pending.delete(key);
    clearTimeout(pending.timer);
    this.#log.info('consent.page-answered', { kind: pending.request.kind, status: yes ? 'allowed' : 'declined' });
    pending.resolve(yes);
  }

  async #route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.setHeader('cache-control', 'no-store');
    // `same-origin`, not `no-referrer`: under no-referrer a browser sends `Origin: null` on the
    // page's own form POST, and the exact Origin is what tells the page's answer from a forgery.
    res.setHeader('referrer-policy', 'same-origin');
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('x-frame-options', 'DENY');
    res.setHeader('cross-origin-opener-policy', 'same-origin');
    res.setHeader('cross-origin-resource-policy', 'same-origin');
    if (req.headers.host !== this.#origin.slice('http://'.length)) return this.#text(res, 421, 'Misdirected request');
    const token = PATH.exec(new URL(req.url ?? '/', this.#origin).pathname)?.[1];
    const key = token !== undefined && TOKEN.test(token) ? digest(token) : undefined;
    const pending = key === undefined ? undefined : this.#pending.get(key);
    if (req.method === 'GET' && pending) return this.#page(res, pending.request);
    if (req.method !== 'POST') {
      req.resume();
      return this.#text(res, 404, 'This confirmation is no longer open.');
    }
    const body = await readSmallBody(req);
    const site = req.headers['sec-fetch-site'];
    if (req.headers.origin !== this.#origin || (site !== undefined && site !== 'same-origin')) {
      this.#log.warn('consent.page-refused', { code: 'CONSENT_ORIGIN' });
      return this.#text(res, 403, 'Refused: this answer did not come from the confirmation page.');
    }
    if (!pending || key === undefined) return this.#text(res, 404, 'This confirmation is no longer open.');
    const decision = body === undefined ? null : new URLSearchParams(body).get('decision');
    if (decision !== 'allow' && decision !== 'deny') return this.#text(res, 400, 'Choose Allow or Deny.');
    this.#settle(key, decision === 'allow');
    return this.#done(res, decision === 'allow');
  }

  #html(res: ServerResponse, status: number, title: string, content: string): void {
    const nonce = randomBytes(UI_CSP_NONCE_BYTES).toString('base64');
    res.writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': `default-src 'none'; style-src 'nonce-${nonce}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    });
    res.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Bastion — ${escapeHtml(title)}</title>
<style nonce="${nonce}">
:root{color-scheme:light dark;font:16px/1.5 system-ui,sans-serif}
body{max-width:36rem;margin:3rem auto;padding:0 1rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}dt{opacity:.7}dd{margin:0;font-family:ui-monospace,monospace;overflow-wrap:anywhere}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}button{font:inherit;padding:.5rem 1.2rem;border-radius:6px;border:1px solid;cursor:pointer}
.allow{background:#2456d6;color:#fff;border-color:#2456d6}.deny{background:none;color:inherit}
</style></head><body>${content}</body></html>
`);
  }

  #page(res: ServerResponse, request: ConsentRequest): void {
    const { title, rows, note } = describe(request);
    const fields = rows.map(([name, value]) => `<dt>${escapeHtml(name)}</dt><dd>${escapeHtml(value)}</dd>`).join('');
    this.#html(
      res,
      200,
      title,
      `<p>Bastion asks you:</p><h1>${escapeHtml(title)}</h1><dl>${fields}</dl><p>${escapeHtml(note)}</p>
<p>If you did not just ask for this in Bastion, choose Deny.</p>
<form method="post"><div class="actions"><button class="allow" name="decision" value="allow">Allow</button>
<button class="deny" name="decision" value="deny">Deny</button></div></form>`,
    );
  }

  #done(res: ServerResponse, allowed: boolean): void {
    const text = allowed ? 'Allowed.' : 'Denied.';
    this.#html(res, 200, text, `<h1>${text}</h1><p>You can close this tab and return to Bastion.</p>`);
  }

  #text(res: ServerResponse, status: number, text: string): void {
    if (!res.headersSent) res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(`${text}\n`);
  }
}

/** A form body within CONSENT_PAGE_MAX_BODY_BYTES as text; undefined when larger or not a form. */
async function readSmallBody(req: IncomingMessage): Promise<string | undefined> {
  const isForm = /^application\/x-www-form-urlencoded(;|$)/i.test(req.headers['content-type'] ?? '');
  const body = await readBoundedRequest(req, CONSENT_PAGE_MAX_BODY_BYTES);
  return isForm && body !== undefined ? body.toString('utf8') : undefined;
}
