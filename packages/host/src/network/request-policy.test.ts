import { describe, expect, it } from 'vitest';
import type { Grant } from '@bastion/protocol';
import type { GrantSnapshot } from './network-authority.js';
import { authorizeRedirect, authorizeStart, type StartRequest } from './request-policy.js';

const grants: Grant[] = [
  { grant_id: 'api', origin: 'https://api.example.test', op: 'provider', kind: 'builtin' },
  { grant_id: 'files', origin: 'https://files.example.test', op: 'asset', kind: 'builtin' },
  { grant_id: 'files-alt', origin: 'https://cdn.example.test', op: 'asset', kind: 'builtin' },
];
const snapshot: GrantSnapshot = { revision: 1, grants };
const asset = (patch: Partial<StartRequest>): StartRequest => ({
  grant_id: 'files',
  op: 'asset',
  method: 'GET',
  url: 'https://files.example.test/a.png',
  headers: [],
  has_body: false,
  ...patch,
});

describe('asset downloads', () => {
  it('allow a credential-free GET or HEAD over https on the default port', () => {
    expect(authorizeStart(asset({}), snapshot)).toMatchObject({ ok: true, carriesCredentials: false });
    expect(authorizeStart(asset({ method: 'HEAD' }), snapshot)).toMatchObject({ ok: true });
  });

  it('refuse other methods, any credential header, and a provider grant used for an asset', () => {
    expect(authorizeStart(asset({ method: 'POST', has_body: true }), snapshot)).toEqual({
      ok: false,
      code: 'TRANSPORT_METHOD',
    });
    for (const name of ['authorization', 'x-api-key', 'chatgpt-account-id', 'Authorization']) {
      expect(authorizeStart(asset({ headers: [[name, 'secret']] }), snapshot)).toEqual({
        ok: false,
        code: 'TRANSPORT_ASSET_CREDENTIALS',
      });
    }
    expect(authorizeStart(asset({ grant_id: 'api', url: 'https://api.example.test/x' }), snapshot)).toEqual({
      ok: false,
      code: 'TRANSPORT_OP_MISMATCH',
    });
  });

  it('a non-default port or plain http never matches an asset grant', () => {
    expect(authorizeStart(asset({ url: 'https://files.example.test:8443/a.png' }), snapshot)).toEqual({
      ok: false,
      code: 'TRANSPORT_ORIGIN_NOT_GRANTED',
    });
    expect(authorizeStart(asset({ url: 'http://files.example.test/a.png' }), snapshot)).toEqual({
      ok: false,
      code: 'TRANSPORT_ORIGIN_NOT_GRANTED',
    });
  });

  it('an asset redirect may move between enumerated asset origins, but not to a provider origin or off https', () => {
    const current = new URL('https://files.example.test/a.png');
    const base = { current, op: 'asset' as const, carriesCredentials: false, hops: 0, snapshot };
    expect(authorizeRedirect({ ...base, location: 'https://cdn.example.test/a.png' })).toMatchObject({
      ok: true,
      grant: { grant_id: 'files-alt' },
    });
    expect(authorizeRedirect({ ...base, location: 'https://api.example.test/a.png' })).toEqual({
      ok: false,
      code: 'TRANSPORT_REDIRECT_NOT_GRANTED',
    });
    expect(authorizeRedirect({ ...base, location: 'http://cdn.example.test/a.png' })).toEqual({
      ok: false,
      code: 'TRANSPORT_REDIRECT_DOWNGRADE',
    });
    expect(authorizeRedirect({ ...base, location: 'https://user:pw@cdn.example.test/' })).toEqual({
      ok: false,
      code: 'TRANSPORT_REDIRECT_INVALID',
    });
    expect(authorizeRedirect({ ...base, location: 'https://cdn.example.test/', hops: 5 })).toEqual({
      ok: false,
      code: 'TRANSPORT_TOO_MANY_REDIRECTS',
    });
  });
});

describe('provider requests', () => {
  it('strip accept-encoding and flag credential headers', () => {
    const decision = authorizeStart(
      {
        grant_id: 'api',
        op: 'provider',
        method: 'POST',
        url: 'https://api.example.test/v1/responses',
        headers: [
          ['Accept-Encoding', 'gzip'],
          ['Authorization', 'Bearer k'],
        ],
        has_body: true,
      },
      snapshot,
    );
    expect(decision).toMatchObject({ ok: true, carriesCredentials: true, headers: [['authorization', 'Bearer k']] });
  });
});
