import { describe, expect, it } from 'vitest';
import { buildDesktopCsp } from './csp.js';

const nonce = 'q83vEjRWeJCrze8SNFZ4kA==';
const daemonOrigin = 'http://127.0.0.1:41234';

function directives(csp: string): Map<string, string> {
  return new Map(
    csp.split('; ').map((part) => {
      const [name = '', ...values] = part.split(' ');
      return [name, values.join(' ')];
    }),
  );
}

describe('buildDesktopCsp', () => {
  it('builds exactly the desktop policy', () => {
    expect(buildDesktopCsp({ nonce, daemonOrigin })).toBe(
      `default-src 'self'; script-src 'nonce-${nonce}' 'strict-dynamic'; style-src 'self' 'nonce-${nonce}'; ` +
        `img-src 'self' data: blob:; font-src 'self'; connect-src 'self' ${daemonOrigin}; frame-ancestors 'none'; ` +
        `object-src 'none'; base-uri 'none'; form-action 'self'`,
    );
  });

  it('has no unsafe source and one occurrence of each directive', () => {
    const csp = buildDesktopCsp({ nonce, daemonOrigin });
    expect(csp).not.toMatch(/unsafe|\*/);
    const names = csp.split('; ').map((part) => part.split(' ')[0]);
    expect(new Set(names).size).toBe(names.length);
    expect(directives(csp).get('script-src')).toBe(`'nonce-${nonce}' 'strict-dynamic'`);
  });

  it('accepts a base64url nonce', () => {
    expect(buildDesktopCsp({ nonce: 'q83vEjRWeJCrze8SNFZ4kA', daemonOrigin })).toContain(
      "'nonce-q83vEjRWeJCrze8SNFZ4kA'",
    );
  });

  const smuggledNonces = [
    `${nonce}'; script-src *`,
    `${nonce}; script-src 'unsafe-inline'`,
    `${nonce} 'unsafe-eval'`,
    `${nonce},script-src *`,
    `${nonce}\nscript-src *`,
    `${nonce}'`,
    'short',
    '',
  ];
  for (const bad of smuggledNonces) {
    it(`refuses a nonce that smuggles a directive or source: ${JSON.stringify(bad)}`, () => {
      expect(() => buildDesktopCsp({ nonce: bad, daemonOrigin })).toThrow(
        expect.objectContaining({ code: 'CSP_VALUE' }),
      );
    });
  }

  const smuggledOrigins = [
    `${daemonOrigin}; script-src *`,
    `${daemonOrigin} https://evil.test`,
    `${daemonOrigin},*`,
    `${daemonOrigin}/`,
    'http://127.0.0.1:41234\n',
    'http://127.0.0.1:0',
    'http://127.0.0.1:65536',
    'http://localhost:41234',
    'https://127.0.0.1:41234',
    'http://127.0.0.1.evil.test:41234',
    '*',
    "'self'",
  ];
  for (const bad of smuggledOrigins) {
    it(`refuses a daemon origin that is not exactly http://127.0.0.1:<port>: ${JSON.stringify(bad)}`, () => {
      expect(() => buildDesktopCsp({ nonce, daemonOrigin: bad })).toThrow(
        expect.objectContaining({ code: 'CSP_VALUE' }),
      );
    });
  }
});
