/**
 * SEC-004 (the watchdog): host-owned asks. When the host's policy says `ask` for a `run_command`,
 * the command executor holds the command and puts it to the person here, through a channel the
 * sidecar cannot reach: the host's own terminal prompt (`bastion run` in a terminal), or the
 * desktop page, which reads the held commands and answers through guarded host IPC
 * (`commands.asks` / `commands.answer`), never through the daemon. The sidecar's own word that a
 * person approved (`approved` on the frame) is not consulted. Nobody to ask (no terminal, no
 * desktop page waiting), a full list, no answer within HOST_ASK_TIMEOUT_MS, an abort or the host
 * stopping: the command is refused.
 *
 * What it does not catch: script running inside a `/desktop` page, which holds the bridge and
 * host IPC like the app does, can answer the host's question itself — a browser tab gives the
 * host no way to tell the person's click from that script's request (SECURITY.md says so); the
 * terminal prompt has no such gap.
 */
import { randomBytes } from 'node:crypto';
import {
  HOST_ASK_MAX_PENDING,
  HOST_ASK_PAGE_GAP_MS,
  HOST_ASK_POLL_MS,
  HOST_ASK_TIMEOUT_MS,
  type HostCommandAsk,
  type HostCommandAskList,
  type Logger,
} from '@bastion/protocol';

/** How a held command ended: the person said yes or no, or nobody answered (nobody to ask, timeout, abort). */
export type CommandAskOutcome = 'approved' | 'denied' | 'unanswered';

/** The host's own terminal prompt: resolves true only on the person's yes; the signal ends the question. */
export type CommandPrompt = (ask: HostCommandAsk, signal: AbortSignal) => Promise<boolean>;

/** What the executor knows about the command it holds. */
export type CommandAskDetails = Omit<HostCommandAsk, 'id' | 'asked_at'>;

interface Held {
  ask: HostCommandAsk;
  settle: (outcome: CommandAskOutcome) => void;
}

export class CommandAsks {
  readonly #prompt: CommandPrompt | undefined;
  readonly #log: Logger;
  readonly #held = new Map<string, Held>();
  readonly #waiters = new Set<() => void>();
  #revision = 0;
  /** Pages waiting on `wait()` now, and when the last wait ended. */
  #waiting = 0;
  #lastWaitEnded = Number.NEGATIVE_INFINITY;
  /** One terminal question at a time: two interleaved prompts could be answered crosswise. */
  #terminalQueue: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(options: { prompt?: CommandPrompt | undefined; log: Logger }) {
    this.#prompt = options.prompt;
    this.#log = options.log;
  }

  /** Who a question goes to now. */
  get asks(): 'terminal' | 'desktop' | 'nobody' {
    if (this.#prompt) return 'terminal';
    const pageListening = this.#waiting > 0 || performance.now() - this.#lastWaitEnded <= HOST_ASK_PAGE_GAP_MS;
    return pageListening && !this.#closed ? 'desktop' : 'nobody';
  }

  /** Put one held command to the person; settles on their answer, or `unanswered`. */
  ask(details: CommandAskDetails, signal: AbortSignal): Promise<CommandAskOutcome> {
    const ask: HostCommandAsk = {
      ...details,
      id: `ask_${randomBytes(12).toString('base64url')}`,
      asked_at: new Date().toISOString(),
    };
    const who = this.asks;
    if (who === 'terminal') return this.#askTerminal(ask, signal);
    if (who === 'nobody' || this.#held.size >= HOST_ASK_MAX_PENDING || signal.aborted) {
      this.#log.info('command.ask-unanswerable', { approval_id: ask.id, channel: who, count: this.#held.size });
      return Promise.resolve('unanswered');
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => settle('unanswered'), HOST_ASK_TIMEOUT_MS);
      const onAbort = () => settle('unanswered');
      const settle = (outcome: CommandAskOutcome) => {
        if (!this.#held.delete(ask.id)) return;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.#changed();
        resolve(outcome);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#held.set(ask.id, { ask, settle });
      this.#changed();
    });
  }

  /** The commands held now. */
  list(): HostCommandAskList {
    return { revision: this.#revision, asks: [...this.#held.values()].map((held) => held.ask) };
  }

  /**
   * The desktop page's wait: the list as soon as its revision is past `after` (at once when it
   * already is), else after HOST_ASK_POLL_MS. While a page waits here the host can ask it.
   */
  async wait(after: number | undefined): Promise<HostCommandAskList> {
    if (after === undefined || after < this.#revision || this.#closed) {
      this.#lastWaitEnded = performance.now();
      return this.list();
    }
    this.#waiting += 1;
    try {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.#waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, HOST_ASK_POLL_MS);
        this.#waiters.add(done);
      });
    } finally {
      this.#waiting -= 1;
      this.#lastWaitEnded = performance.now();
    }
    return this.list();
  }

  /** The person's answer from the desktop page; false when nothing with that id is held. */
  answer(id: string, approved: boolean): boolean {
    const held = this.#held.get(id);
    if (!held) return false;
    this.#log.info('command.ask-answered', {
      approval_id: id,
      outcome: approved ? 'approved' : 'denied',
      channel: 'desktop',
    });
    held.settle(approved ? 'approved' : 'denied');
    return true;
  }

  /** The host is stopping: every held command is refused and every waiting page answered. */
  close(): void {
    this.#closed = true;
    for (const held of [...this.#held.values()]) held.settle('unanswered');
    this.#changed();
  }

  #changed(): void {
    this.#revision += 1;
    for (const wake of [...this.#waiters]) wake();
  }

  #askTerminal(ask: HostCommandAsk, signal: AbortSignal): Promise<CommandAskOutcome> {
    const prompt = this.#prompt;
    if (!prompt) return Promise.resolve('unanswered');
    const asked = this.#terminalQueue.then(async () => {
      if (signal.aborted) return 'unanswered' as const;
      try {
        const yes = await prompt(ask, signal);
        this.#log.info('command.ask-answered', {
          approval_id: ask.id,
          outcome: yes ? 'approved' : 'denied',
          channel: 'terminal',
        });
        return yes && !signal.aborted ? ('approved' as const) : ('denied' as const);
      } catch {
        return 'unanswered' as const;
      }
    });
    this.#terminalQueue = asked;
    return asked;
  }
}
