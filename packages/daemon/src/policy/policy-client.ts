/**
 * The daemon's end of the watchdog hook: `policy.check` out to the host, `policy.decision` back.
 * The host owns the rules; this only asks. No answer in time, a closed channel or too many
 * checks waiting all count as `deny` (fail closed), with a reason saying so.
 */
import { randomBytes } from 'node:crypto';
import {
  POLICY_CHECK_TIMEOUT_MS,
  POLICY_MAX_PENDING_CHECKS,
  type PolicyAnswer,
  type PolicyCall,
} from '@bastion/protocol';
import type { HostChannel } from '../channel/host-channel.js';

const unanswered = (reason: string): PolicyAnswer => ({ verdict: 'deny', reason });

/** The session and run a call belongs to, told to the host for its audit log (it decides nothing by them). */
export interface CallRun {
  session_id: string;
  run_id?: string | undefined;
}

/** What the agent asks before a tool call; the host channel's client, or a test's stand-in. */
export interface PolicyChecker {
  check(call: PolicyCall, run?: CallRun): Promise<PolicyAnswer>;
}

export class PolicyClient implements PolicyChecker {
  readonly #channel: HostChannel;
  readonly #pending = new Map<string, (answer: PolicyAnswer) => void>();

  /** Registers the `policy.decision` handler (an unhandled frame type would close the channel). */
  constructor(channel: HostChannel) {
    this.#channel = channel;
    channel.on('policy.decision', (frame) => {
      const settle = this.#pending.get(frame.id);
      if (!settle) return;
      const { verdict, rule_id, layer, reason } = frame;
      settle({
        verdict,
        ...(rule_id === undefined ? {} : { rule_id }),
        ...(layer === undefined ? {} : { layer }),
        ...(reason === undefined ? {} : { reason }),
      });
    });
  }

  /** The host's verdict for one call. */
  check(call: PolicyCall, run?: CallRun): Promise<PolicyAnswer> {
    if (this.#channel.closed) return Promise.resolve(unanswered('the host is not reachable'));
    if (this.#pending.size >= POLICY_MAX_PENDING_CHECKS) {
      return Promise.resolve(unanswered('too many policy checks are waiting'));
    }
    const id = `pol_${randomBytes(12).toString('base64url')}`;
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => settle(unanswered('the host did not answer the policy check')),
        POLICY_CHECK_TIMEOUT_MS,
      );
      const settle = (answer: PolicyAnswer) => {
        clearTimeout(timer);
        this.#pending.delete(id);
        resolve(answer);
      };
      this.#pending.set(id, settle);
      try {
        this.#channel.send({ v: 1, type: 'policy.check', id, ...call, ...run });
      } catch {
        // A call the frame schema refuses (an odd tool name, too many paths) is never sent.
        settle(unanswered('the call cannot be described to the host'));
      }
    });
  }
}
