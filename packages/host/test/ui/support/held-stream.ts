/**
 * Test support: a tab's agent event stream held, or cut where a test says, with the real daemon
 * behind it. Held: each stream request of the tab waits unanswered, as the page made it (its
 * Last-Event-ID, password and Origin), until `release()` lets it go to the daemon. Cut (`relayFirst`):
 * the tab's first stream request goes to the daemon at once and the daemon's events are passed on
 * until `cutAfter(id)` ends the stream after event `id`, as a dropped connection would; the tab's
 * reconnect is then held. Nothing is made up: what the tab reads is the daemon's own stream.
 */
import { request as httpRequest } from 'node:http';
import type { Page, Request, Route } from 'playwright-core';

export interface HeldStreams {
  /**
   * With `relayFirst`: ends the first stream once it has passed on event `id` (at once when the
   * tab's Last-Event-ID is there already), whether the tab has opened it yet or not; settles when
   * it has ended.
   */
  cutAfter: (id: number) => Promise<void>;
  /** The Last-Event-ID of each request held so far, in order ('' when the tab sent none). */
  readonly heldCursors: readonly string[];
  /** Lets each held request, and every later one, go to the daemon. */
  release: () => Promise<void>;
  /** Ends the held requests and the relay unanswered (a failed test's clean-up). */
  abort: () => Promise<void>;
}

/** Response headers that describe the connection, not the body a fulfilled route carries whole. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** One relayed stream: passes the daemon's SSE text on, block by block, until cut after an event id. */
class Relay {
  #text = '';
  /** Where the last whole block passed on ends, and that block's event id (the cursor before any). */
  #end = 0;
  #lastId: number;
  #cutId: number | undefined;
  #finish: ((body: string) => void) | undefined;
  readonly done: Promise<{ status: number; headers: Record<string, string>; body: string }>;
  readonly #controller = new AbortController();

  constructor(request: Request, headers: Record<string, string>) {
    this.#lastId = Number(headers['last-event-id'] ?? 0);
    this.done = new Promise((resolve, reject) => {
      const outgoing = httpRequest(request.url(), { headers, signal: this.#controller.signal }, (response) => {
        const answer = Object.fromEntries(
          Object.entries(response.headers).flatMap(([name, value]) =>
            typeof value === 'string' && !CONNECTION_HEADERS.has(name) ? [[name, value]] : [],
          ),
        );
        this.#finish = (body) => {
          this.#finish = undefined;
          this.#controller.abort();
          resolve({ status: response.statusCode ?? 0, headers: answer, body });
        };
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          this.#text += chunk;
          this.#take();
        });
        response.on('end', () => this.#finish?.(this.#text));
        response.on('error', () => this.#finish?.(this.#text.slice(0, this.#end)));
        this.#take();
      });
      outgoing.on('error', (error) => {
        if (this.#finish === undefined) reject(error);
      });
      outgoing.end();
    });
  }

  cutAfter(id: number): void {
    this.#cutId = id;
    this.#take();
  }

  abort(): void {
    this.#controller.abort();
  }

  #take(): void {
    for (let next = this.#text.indexOf('\n\n', this.#end); next !== -1; next = this.#text.indexOf('\n\n', this.#end)) {
      if (this.#cutId !== undefined && this.#lastId >= this.#cutId) break;
      const idLine = this.#text
        .slice(this.#end, next)
        .split('\n')
        .find((line) => line.startsWith('id: '));
      if (idLine !== undefined) this.#lastId = Number(idLine.slice('id: '.length));
      this.#end = next + 2;
    }
    if (this.#cutId !== undefined && this.#lastId >= this.#cutId) this.#finish?.(this.#text.slice(0, this.#end));
  }
}

/**
 * Routes `page`'s agent event streams; call it before the page opens the session. Every request is
 * held, or with `relayFirst` the first is passed on from the daemon until `cutAfter`.
 */
export async function holdStreams(page: Page, options: { relayFirst: boolean }): Promise<HeldStreams> {
  const held: Route[] = [];
  const heldCursors: string[] = [];
  let relay: Relay | undefined;
  let cutId: number | undefined;
  let relayEnded = () => {};
  const relayed = new Promise<void>((resolve) => (relayEnded = resolve));
  let released = false;
  await page.route('**/agent/stream/**', async (route) => {
    const headers = Object.fromEntries(
      Object.entries(await route.request().allHeaders()).filter(([name]) => !name.startsWith(':')),
    );
    if (released) {
      await route.continue();
    } else if (options.relayFirst && relay === undefined) {
      relay = new Relay(route.request(), headers);
      if (cutId !== undefined) relay.cutAfter(cutId);
      // the page may be gone by now (a failed test's clean-up)
      await relay.done
        .then(
          (answer) => route.fulfill(answer),
          () => route.abort(),
        )
        .catch(() => undefined);
      relayEnded();
    } else {
      heldCursors.push(headers['last-event-id'] ?? '');
      held.push(route);
    }
  });
  return {
    heldCursors,
    async cutAfter(id) {
      cutId = id;
      relay?.cutAfter(id);
      await relayed;
    },
    async release() {
      released = true;
      await Promise.all(held.splice(0).map((route) => route.continue()));
    },
    async abort() {
      released = true;
      relay?.abort();
      await Promise.all(held.splice(0).map((route) => route.abort().catch(() => undefined)));
    },
  };
}
