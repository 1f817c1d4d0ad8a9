import { describe, expect, it } from 'vitest';
import { describeAttack } from '../../../../../test/support/attack.js';
import { authGuard } from './auth-guard.js';
import { appBehind, codeOf } from '../../../test/support/perimeter-kit.js';

const PASSWORD = 'correct-horse-battery-staple-0123456789abc';
const basic = (credentials: string, scheme = 'Basic') => `${scheme} ${Buffer.from(credentials).toString('base64')}`;

describeAttack('authentication', 'daemon Basic auth (authGuard)', () => {
  const refused: [string, string | undefined][] = [
    ['a missing Authorization header', undefined],
    ['a wrong password of equal length', basic(`bastion:${PASSWORD.replace(/.$/, 'X')}`)],
    ['a wrong password of different length', basic('bastion:short')],
    ['the password with a suffix', basic(`bastion:${PASSWORD}x`)],
    ['a prefix of the password', basic(`bastion:${PASSWORD.slice(0, -1)}`)],
    ['an empty password', basic('bastion:')],
    ['the wrong user name', basic(`admin:${PASSWORD}`)],
    ['no user name', basic(`:${PASSWORD}`)],
    ['the password alone', basic(PASSWORD)],
    ['a Bearer token carrying the password', `Bearer ${PASSWORD}`],
    ['a Digest scheme', `Digest ${Buffer.from(`bastion:${PASSWORD}`).toString('base64')}`],
    ['the scheme without credentials', 'Basic'],
    ['invalid base64', 'Basic !!!!'],
    [
      'percent-encoded credentials',
      `Basic ${encodeURIComponent(Buffer.from(`bastion:${PASSWORD}`).toString('base64'))}=`,
    ],
    ['raw unencoded credentials', `Basic bastion:${PASSWORD}`],
    ['an over-long header', `Basic ${'A'.repeat(2000)}`],
    ['a wrong password with a lowercase scheme', basic('bastion:nope', 'basic')],
  ];
  for (const [name, header] of refused) {
    it(`refuses ${name} with PERIMETER_AUTH and never reaches the handler`, async () => {
      const { app, reached } = appBehind(authGuard({ password: PASSWORD }));
      const response = await app.request('/x', { headers: header === undefined ? {} : { authorization: header } });
      expect(response.status).toBe(401);
      expect(await codeOf(response)).toBe('PERIMETER_AUTH');
      expect(response.headers.get('www-authenticate')).toMatch(/^Basic realm="bastion"/);
      expect(reached()).toBe(0);
    });
  }

  it('refuses a previous password once the guard holds a new one', async () => {
    const { app, reached } = appBehind(authGuard({ password: `${PASSWORD}-next` }));
    const response = await app.request('/x', { headers: { authorization: basic(`bastion:${PASSWORD}`) } });
    expect(response.status).toBe(401);
    expect(reached()).toBe(0);
  });
});

describe('auth-guard lets the legitimate caller through', () => {
  it('passes the right credentials, whatever the case of the scheme (RFC 7235)', async () => {
    for (const scheme of ['Basic', 'basic', 'BASIC']) {
      const { app, reached } = appBehind(authGuard({ password: PASSWORD }));
      const response = await app.request('/x', { headers: { authorization: basic(`bastion:${PASSWORD}`, scheme) } });
      expect(response.status).toBe(200);
      expect(reached()).toBe(1);
    }
  });
});
