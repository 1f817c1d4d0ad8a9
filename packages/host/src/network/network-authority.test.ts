import { describe, expect, it } from 'vitest';
import type { HostConfirmer } from '../consent/host-confirmer.js';
import { BUILTIN_GRANTS } from './builtin-grants.js';
import { NetworkAuthority, type GrantChange } from './network-authority.js';

const yes: HostConfirmer = { confirm: () => Promise.resolve(true) };
const no: HostConfirmer = { confirm: () => Promise.resolve(false) };

describe('NetworkAuthority', () => {
  it('starts with the immutable built-in exact-origin grants', () => {
    const authority = new NetworkAuthority();
    expect(authority.snapshot.grants.map((grant) => grant.origin)).toEqual([
      'https://api.openai.com',
      'https://api.anthropic.com',
      'https://openrouter.ai',
      'https://auth.openai.com',
      'https://chatgpt.com',
      'https://files.oaiusercontent.com',
      'https://cdn.openai.com',
    ]);
    expect(Object.isFrozen(BUILTIN_GRANTS) && BUILTIN_GRANTS.every((grant) => Object.isFrozen(grant))).toBe(true);
    expect(Object.isFrozen(authority.snapshot.grants)).toBe(true);
  });

  it('creates a custom grant only after consent, never for an ineligible host, and never asks for one', async () => {
    const authority = new NetworkAuthority({ env: {} });
    let asked = 0;
    const counting: HostConfirmer = { confirm: () => ((asked += 1), Promise.resolve(true)) };
    expect(await authority.requestCustomGrant('http://localhost.evil.test:1/v1', counting)).toMatchObject({
      ok: false,
      code: 'ENDPOINT_HOST_INELIGIBLE',
    });
    expect(asked).toBe(0);
    const before = authority.snapshot.revision;
    expect(await authority.requestCustomGrant('http://127.0.0.1:11434/v1', no)).toMatchObject({
      ok: false,
      code: 'GRANT_DECLINED',
    });
    expect(authority.snapshot.revision).toBe(before);
    expect(authority.findByOrigin('http://127.0.0.1:11434', 'provider')).toBeUndefined();
    const granted = await authority.requestCustomGrant('http://127.0.0.1:11434/v1', yes);
    expect(granted).toMatchObject({
      ok: true,
      created: true,
      grant: { origin: 'http://127.0.0.1:11434', op: 'provider', kind: 'custom' },
    });
    expect(authority.snapshot.revision).toBe(before + 1);
    expect(await authority.requestCustomGrant('http://127.0.0.1:11434/other', counting)).toMatchObject({
      ok: true,
      created: false,
    });
  });

  it('revocation publishes a new revision naming the revoked grant; built-ins cannot be revoked', async () => {
    const authority = new NetworkAuthority({ env: {} });
    const changes: GrantChange[] = [];
    authority.onChange((change) => changes.push(change));
    const granted = await authority.requestCustomGrant('http://[::1]:8080', yes);
    if (!granted.ok) throw new Error('not granted');
    expect(authority.revokeCustomGrant('https://api.openai.com')).toBe(false);
    expect(authority.revokeCustomGrant('http://[::1]:8080')).toBe(true);
    expect(changes.map((change) => change.revoked)).toEqual([[], [granted.grant.grant_id]]);
    expect(authority.find(granted.grant.grant_id)).toBeUndefined();
    // A re-grant of the same origin is a new grant id: nothing in flight can ride the old one.
    const again = await authority.requestCustomGrant('http://[::1]:8080', yes);
    expect(again.ok && again.grant.grant_id).not.toBe(granted.grant.grant_id);
  });
});
