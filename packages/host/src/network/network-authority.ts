/**
 * SEC-004: the network authority. It holds the grant snapshot every provider request is checked
 * against: the immutable built-in grants plus memory-only exact-origin grants for custom endpoints
 * (localhost, *.localhost, IP literals), each created only after the host-owned confirmer said
 * yes. Every change bumps the revision and is announced to listeners (the grant sync and the
 * executor, which aborts in-flight requests on a revoked grant). Nothing here is persisted: a
 * custom grant needs fresh consent on every host start.
 */
import {
  checkEndpointUrl,
  TRANSPORT_MAX_GRANTS,
  type EndpointUrlErrorCode,
  type Grant,
  type GrantErrorCode,
} from '@bastion/protocol';
import type { HostConfirmer } from '../consent/host-confirmer.js';
import { BUILTIN_GRANTS } from './builtin-grants.js';
import { describeRoutePosture, type RoutePosture } from './route-posture.js';

export interface GrantSnapshot {
  readonly revision: number;
  readonly grants: readonly Grant[];
}

export interface GrantChange {
  snapshot: GrantSnapshot;
  /** Grant ids that no longer exist. */
  revoked: readonly string[];
}

export type CustomGrantResult =
  | { ok: true; grant: Grant; posture: RoutePosture; created: boolean }
  | { ok: false; code: EndpointUrlErrorCode | GrantErrorCode; message: string };

export class NetworkAuthority {
  readonly #builtins: readonly Grant[];
  readonly #custom = new Map<string, Grant>();
  readonly #listeners = new Set<(change: GrantChange) => void>();
  readonly #env: NodeJS.ProcessEnv;
  #snapshot: GrantSnapshot;
  #nextCustom = 1;

  constructor(options: { builtins?: readonly Grant[]; env?: NodeJS.ProcessEnv } = {}) {
    this.#builtins = Object.freeze([...(options.builtins ?? BUILTIN_GRANTS)]);
    this.#env = options.env ?? process.env;
    this.#snapshot = Object.freeze({ revision: 1, grants: this.#builtins });
  }

  get snapshot(): GrantSnapshot {
    return this.#snapshot;
  }

  /** The grant with this id in the current snapshot. */
  find(grantId: string): Grant | undefined {
    return this.#snapshot.grants.find((grant) => grant.grant_id === grantId);
  }

  /** The grant for an exact origin and op in the current snapshot. */
  findByOrigin(origin: string, op: Grant['op']): Grant | undefined {
    return this.#snapshot.grants.find((grant) => grant.origin === origin && grant.op === op);
  }

  onChange(listener: (change: GrantChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The route posture the confirmer shows for an endpoint URL's origin. */
  posture(origin: string): RoutePosture {
    return describeRoutePosture(origin, this.#env);
  }

  /**
   * Grant a custom endpoint's exact origin, after the confirmer consents. Ineligible URLs are
   * refused before anyone is asked; an origin already granted is returned as is.
   */
  async requestCustomGrant(rawUrl: string, confirmer: HostConfirmer): Promise<CustomGrantResult> {
    const checked = checkEndpointUrl(rawUrl);
    if (!checked.ok) return checked;
    const posture = this.posture(checked.origin);
    const existing = this.#custom.get(checked.origin);
    if (existing) return { ok: true, grant: existing, posture, created: false };
    if (this.#snapshot.grants.length >= TRANSPORT_MAX_GRANTS) {
      return { ok: false, code: 'GRANT_LIMIT', message: 'too many grants' };
    }
    const consented = await confirmer.confirm({ kind: 'endpoint', origin: checked.origin, posture });
    if (!consented) return { ok: false, code: 'GRANT_DECLINED', message: 'the host did not consent to this endpoint' };
    const raced = this.#custom.get(checked.origin);
    if (raced) return { ok: true, grant: raced, posture, created: false };
    const grant: Grant = Object.freeze({
      grant_id: `custom-${this.#nextCustom++}`,
      origin: checked.origin,
      op: 'provider',
      kind: 'custom',
    });
    this.#custom.set(checked.origin, grant);
    this.#publish([]);
    return { ok: true, grant, posture, created: true };
  }

  /** Revoke a custom grant by origin; in-flight requests under it are aborted by the executor. */
  revokeCustomGrant(origin: string): boolean {
    const grant = this.#custom.get(origin);
    if (!grant) return false;
    this.#custom.delete(origin);
    this.#publish([grant.grant_id]);
    return true;
  }

  #publish(revoked: string[]): void {
    this.#snapshot = Object.freeze({
      revision: this.#snapshot.revision + 1,
      grants: Object.freeze([...this.#builtins, ...this.#custom.values()]),
    });
    const change: GrantChange = { snapshot: this.#snapshot, revoked };
    for (const listener of this.#listeners) listener(change);
  }
}
