/**
 * SEC-004 (the watchdog): host-owned asks. When the host's policy says `ask` for a tool call the
 * host performs (`run_command`, through the command executor), the host holds the call and puts it
 * to the person here, through a channel the sidecar cannot reach: the host's own terminal prompt
 * (`bastion run` in a terminal), or the desktop page, which reads the held calls and answers
 * through guarded host IPC (`asks.wait` / `asks.answer`), never through the daemon. The
 * sidecar's own word that a person approved is not consulted. Nobody to ask (no terminal, no
 * desktop page waiting), a full list, no answer within HOST_ASK_TIMEOUT_MS, an abort or the host
 * stopping: the call is refused.
 *
 * "Always allow" is answered here too: the host makes the rule from the call it holds (never
 * from what a page or the sidecar sends), offers it only when saving it would stop this call
 * being asked, and saves it to policy.json for the held call's project before the call goes on.
 * A `hard-deny` still wins over it (policy-rules.ts).
 *
 * How each question ended — the answer and where it was given, or why there was none (timed out,
 * the run stopped, nobody to ask, the host stopping) — goes to the host's audit log before the
 * caller learns it (host-audit-log.ts); an end that cannot be recorded refuses the call.
 *
 * What it does not catch: script running inside a `/desktop` page, which holds the bridge and
 * host IPC like the app does, can answer the host's question itself — "Always allow" included —
 * since a browser tab gives the host no way to tell the person's click from that script's request
 * (SECURITY.md says so); the terminal prompt has no such gap.
 */
import { randomBytes } from 'node:crypto';
import {
  HOST_ASK_MAX_PENDING,
  HOST_ASK_PAGE_GAP_MS,
  HOST_ASK_POLL_MS,
  HOST_ASK_TIMEOUT_MS,
  type HostAsk,
  type HostAskAnswer,
  type HostAskList,
  type HostAskResult,
  type HostAuditAnswer,
  type Logger,
  type PolicyCall,
  type PolicyRule,
} from '@bastion/protocol';
import { HostError } from '../errors.js';
import type { HostAuditContext } from './host-audit-log.js';
import type { PolicyStore } from './policy-store.js';

/** How a held call ended for its caller: the person said yes or no, or nobody answered (nobody to ask, timeout, abort). */
export type HostAskOutcome = 'approved' | 'denied' | 'unanswered';

/** What each recorded end means to the call: only a yes lets it go on. */
const OUTCOME_OF: Record<HostAskResult, HostAskOutcome> = {
  approved: 'approved',
  'always-allowed': 'approved',
  denied: 'denied',
  'timed-out': 'unanswered',
  'run-stopped': 'unanswered',
  'not-asked': 'unanswered',
  'not-answered': 'unanswered',
  'host-stopped': 'unanswered',
};

/** The call a question is about, as the policy saw it (its audit line keeps the program's name only). */
function callOf(ask: HostAsk): PolicyCall {
  return {
    tool: ask.tool,
    workspace_root: ask.workspace_root,
    ...(ask.command === undefined ? {} : { command: ask.command }),
    ...(ask.paths === undefined ? {} : { paths: ask.paths }),
  };
}

/**
 * The host's own terminal prompt: resolves true only on the person's yes; the signal ends the
 * question. `saveAlwaysAllow` saves the ask's `always_allow` rule (the prompt shows it first) and
 * returns it; it throws a HostError when the rule cannot be saved.
 */
export type HostAskPrompt = (ask: HostAsk, signal: AbortSignal, saveAlwaysAllow: () => PolicyRule) => Promise<boolean>;

/** What the caller knows about the call it holds; the host adds the id, the time and the always-allow rule. */
export type HostAskDetails = Omit<HostAsk, 'id' | 'asked_at' | 'always_allow'>;

/** The page's answer was taken: `rule` is the rule "Always allow" saved. */
export interface HostAskAnswered {
  answered: boolean;
  rule?: PolicyRule;
}

interface Held {
  ask: HostAsk;
  settle: (end: HostAuditAnswer) => void;
}

export class HostAsks {
  readonly #prompt: HostAskPrompt | undefined;
  readonly #log: Logger;
  readonly #policy: Pick<PolicyStore, 'add' | 'alwaysAllowRule' | 'recordAnswer'>;
  readonly #held = new Map<string, Held>();
  readonly #waiters = new Set<() => void>();
  #revision = 0;
  /** Pages waiting on `wait()` now, and when the last wait ended. */
  #waiting = 0;
  #lastWaitEnded = Number.NEGATIVE_INFINITY;
  /** One terminal question at a time: two interleaved prompts could be answered crosswise. */
  #terminalQueue: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(options: {
    prompt?: HostAskPrompt | undefined;
    log: Logger;
    policy: Pick<PolicyStore, 'add' | 'alwaysAllowRule' | 'recordAnswer'>;
  }) {
    this.#prompt = options.prompt;
    this.#log = options.log;
    this.#policy = options.policy;
  }

  /** Who a question goes to now. */
  get asks(): 'terminal' | 'desktop' | 'nobody' {
    if (this.#prompt) return 'terminal';
    const pageListening = this.#waiting > 0 || performance.now() - this.#lastWaitEnded <= HOST_ASK_PAGE_GAP_MS;
    return pageListening && !this.#closed ? 'desktop' : 'nobody';
  }

  /**
   * Put one held call to the person; settles on their answer, or `unanswered`, once its end is in
   * the audit log beside the decision's line (`context`: the stage, session and run of that line).
   */
  async ask(details: HostAskDetails, signal: AbortSignal, context: HostAuditContext): Promise<HostAskOutcome> {
    const alwaysAllow = this.#policy.alwaysAllowRule(details);
    const ask: HostAsk = {
      ...details,
      id: `ask_${randomBytes(12).toString('base64url')}`,
      asked_at: new Date().toISOString(),
      ...(alwaysAllow === undefined ? {} : { always_allow: alwaysAllow }),
    };
    return this.#record(ask, context, await this.#put(ask, signal));
  }

  /** The question's end: the person's answer and where they gave it, or why there was none. */
  #put(ask: HostAsk, signal: AbortSignal): Promise<HostAuditAnswer> {
    const who = this.asks;
    if (who === 'terminal') return this.#askTerminal(ask, signal);
    if (who === 'nobody' || this.#held.size >= HOST_ASK_MAX_PENDING || signal.aborted) {
      this.#log.info('ask.unanswerable', { approval_id: ask.id, tool: ask.tool, channel: who, count: this.#held.size });
      return Promise.resolve({ result: signal.aborted ? 'run-stopped' : 'not-asked' });
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => settle({ result: 'timed-out' }), HOST_ASK_TIMEOUT_MS);
      const onAbort = () => settle({ result: 'run-stopped' });
      const settle = (end: HostAuditAnswer) => {
        if (!this.#held.delete(ask.id)) return;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.#changed();
        resolve(end);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#held.set(ask.id, { ask, settle });
      this.#changed();
    });
  }

  /** Append the question's end to the audit log; one that cannot be recorded refuses the call. */
  #record(ask: HostAsk, context: HostAuditContext, end: HostAuditAnswer): HostAskOutcome {
    try {
      this.#policy.recordAnswer(callOf(ask), ask.rule_id, end, context);
    } catch {
      this.#log.warn('ask.unrecorded', { approval_id: ask.id, tool: ask.tool, outcome: end.result });
      return 'unanswered';
    }
    return OUTCOME_OF[end.result];
  }

  /** The calls held now. */
  list(): HostAskList {
    return { revision: this.#revision, asks: [...this.#held.values()].map((held) => held.ask) };
  }

  /**
   * The desktop page's wait: the list as soon as its revision is past `after` (at once when it
   * already is), else after HOST_ASK_POLL_MS. While a page waits here the host can ask it.
   */
  async wait(after: number | undefined): Promise<HostAskList> {
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

  /**
   * The person's answer from the desktop page; not answered when nothing with that id is held.
   * For `always-allow` the held call's own rule is saved first: when it cannot be (none offered,
   * policy.json unusable, too many rules) this throws the HostError and the call stays held.
   */
  answer(id: string, answer: HostAskAnswer): HostAskAnswered {
    const held = this.#held.get(id);
    if (!held) return { answered: false };
    const rule = answer === 'always-allow' ? this.#saveAlwaysAllow(held.ask) : undefined;
    this.#log.info('ask.answered', { approval_id: id, tool: held.ask.tool, outcome: answer, channel: 'desktop' });
    held.settle(
      rule !== undefined
        ? { result: 'always-allowed', channel: 'desktop', saved_rule_id: rule.id }
        : { result: answer === 'deny' ? 'denied' : 'approved', channel: 'desktop' },
    );
    return rule === undefined ? { answered: true } : { answered: true, rule };
  }

  /** The host is stopping: every held call is refused and every waiting page answered. */
  close(): void {
    this.#closed = true;
    for (const held of [...this.#held.values()]) held.settle({ result: 'host-stopped' });
    this.#changed();
  }

  #changed(): void {
    this.#revision += 1;
    for (const wake of [...this.#waiters]) wake();
  }

  /** Save the rule the host offered for `ask`, for the held call's project. */
  #saveAlwaysAllow(ask: HostAsk): PolicyRule {
    if (ask.always_allow === undefined) {
      throw new HostError('POLICY_ALWAYS_ALLOW_UNAVAILABLE', 'the host offered no "always allow" rule for this call');
    }
    const rule = this.#policy.add({ kind: 'project', root: ask.workspace_root }, ask.always_allow);
    this.#log.info('ask.always-allowed', { approval_id: ask.id, rule_id: rule.id });
    return rule;
  }

  #askTerminal(ask: HostAsk, signal: AbortSignal): Promise<HostAuditAnswer> {
    const prompt = this.#prompt;
    if (!prompt) return Promise.resolve({ result: 'not-asked' });
    const asked = this.#terminalQueue.then(async (): Promise<HostAuditAnswer> => {
      if (signal.aborted) return { result: 'run-stopped' };
      let saved: PolicyRule | undefined;
      try {
        const yes = await prompt(ask, signal, () => (saved = this.#saveAlwaysAllow(ask)));
        this.#log.info('ask.answered', {
          approval_id: ask.id,
          tool: ask.tool,
          outcome: yes ? 'approved' : 'denied',
          channel: 'terminal',
        });
        if (signal.aborted) return { result: 'run-stopped' };
        if (!yes) return { result: 'denied', channel: 'terminal' };
        return saved === undefined
          ? { result: 'approved', channel: 'terminal' }
          : { result: 'always-allowed', channel: 'terminal', saved_rule_id: saved.id };
      } catch {
        return { result: 'not-answered', channel: 'terminal' };
      }
    });
    this.#terminalQueue = asked;
    return asked;
  }
}
