/**
 * SEC-004: keeps one sidecar's copy of the grant snapshot current. Every change is sent as a
 * revisioned `grant.update`; the sidecar must answer `grant.applied` with that revision within
 * TRANSPORT_GRANT_ACK_TIMEOUT_MS or `onAckTimeout` runs (the host restarts it). The host never
 * relies on the sidecar's copy for authorisation — the executor checks its own snapshot — so a
 * late ack costs availability, not safety.
 */
import { ChannelError, TRANSPORT_GRANT_ACK_TIMEOUT_MS, type Logger } from '@bastion/protocol';
import type { SidecarChannel } from '../supervisor/sidecar-supervisor.js';
import type { GrantSnapshot, NetworkAuthority } from './network-authority.js';

export class GrantSync {
  readonly #channel: SidecarChannel;
  readonly #authority: NetworkAuthority;
  readonly #log: Logger;
  readonly #onAckTimeout: () => void;
  readonly #pending = new Map<number, NodeJS.Timeout>();
  #detach: (() => void) | undefined;
  #lastSent = -1;
  #closed = false;

  constructor(options: {
    channel: SidecarChannel;
    authority: NetworkAuthority;
    log: Logger;
    onAckTimeout: () => void;
  }) {
    this.#channel = options.channel;
    this.#authority = options.authority;
    this.#log = options.log;
    this.#onAckTimeout = options.onAckTimeout;
    this.#channel.on('grant.applied', (frame) => {
      const timer = this.#pending.get(frame.revision);
      if (timer === undefined)
        throw new ChannelError('CHANNEL_GRANT_REVISION', 'grant.applied for a revision that was not sent');
      // An ack covers its revision and every earlier one.
      for (const [revision, pendingTimer] of this.#pending) {
        if (revision <= frame.revision) {
          clearTimeout(pendingTimer);
          this.#pending.delete(revision);
        }
      }
      this.#log.debug('grant.applied', { revision: frame.revision });
    });
  }

  /** Send the current snapshot and follow every later change. Call once the sidecar handles frames. */
  start(): void {
    if (this.#closed || this.#detach) return;
    this.#detach = this.#authority.onChange(({ snapshot }) => this.#sendSnapshot(snapshot));
    this.#sendSnapshot(this.#authority.snapshot);
  }

  close(): void {
    this.#closed = true;
    this.#detach?.();
    for (const timer of this.#pending.values()) clearTimeout(timer);
    this.#pending.clear();
  }

  #sendSnapshot(snapshot: GrantSnapshot): void {
    if (this.#closed || this.#channel.closed || snapshot.revision <= this.#lastSent) return;
    this.#lastSent = snapshot.revision;
    const timer = setTimeout(() => {
      if (this.#closed) return;
      this.#log.error('grant.ack-timeout', { revision: snapshot.revision });
      this.close();
      this.#onAckTimeout();
    }, TRANSPORT_GRANT_ACK_TIMEOUT_MS);
    timer.unref();
    this.#pending.set(snapshot.revision, timer);
    this.#channel.send({ v: 1, type: 'grant.update', revision: snapshot.revision, grants: [...snapshot.grants] });
  }
}
