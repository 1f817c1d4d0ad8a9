import { describe, expect, it } from 'vitest';
import { PERIMETER_MAX_URL_HEADER_CHARS } from './limits.js';
import { allowedOriginOf, desktopRefererOf, hasLoopbackHost, type PerimeterRequest } from './perimeter-checks.js';

const PORT = 41_234;
const UI = 'http://127.0.0.1:5173';
const allowed: ReadonlySet<string> = new Set([UI]);

function request(headers: Record<string, string>): PerimeterRequest {
  return { header: (name) => headers[name] };
}

describe('hasLoopbackHost', () => {
  it('passes exactly 127.0.0.1:<port>', () => {
    expect(hasLoopbackHost(request({ host: `127.0.0.1:${PORT}` }), PORT)).toBe(true);
  });
  it.each([
    ['a missing Host', {}],
    ['a rebound name on the right port', { host: `evil.test:${PORT}` }],
    ['localhost', { host: `localhost:${PORT}` }],
    ['another port', { host: `127.0.0.1:${PORT + 1}` }],
    ['no port', { host: '127.0.0.1' }],
    ['a trailing dot', { host: `127.0.0.1.:${PORT}` }],
  ])('refuses %s', (_name, headers: Record<string, string>) => {
    expect(hasLoopbackHost(request(headers), PORT)).toBe(false);
  });
});

describe('allowedOriginOf', () => {
  it('answers the exact allowed origin', () => {
    expect(allowedOriginOf(request({ origin: UI }), allowed)).toBe(UI);
  });
  it.each([
    ['a missing Origin', {}],
    ['null', { origin: 'null' }],
    ['a prefix of the allowed origin', { origin: 'http://127.0.0.1:517' }],
    ['the allowed origin with a suffix', { origin: `${UI}.evil.test` }],
    ['a trailing slash', { origin: `${UI}/` }],
    ['another scheme', { origin: 'https://127.0.0.1:5173' }],
    ['a header over the bound', { origin: `${UI}${'x'.repeat(PERIMETER_MAX_URL_HEADER_CHARS)}` }],
  ])('refuses %s', (_name, headers: Record<string, string>) => {
    expect(allowedOriginOf(request(headers), allowed)).toBeUndefined();
  });
});

describe('desktopRefererOf', () => {
  it('answers a desktop page of the allowed origin', () => {
    expect(desktopRefererOf(request({ referer: `${UI}/desktop/session/1` }), allowed)?.pathname).toBe(
      '/desktop/session/1',
    );
  });
  it.each([
    ['a missing Referer', {}],
    ['a page outside /desktop', { referer: `${UI}/other` }],
    ['/desktopX', { referer: `${UI}/desktopX` }],
    ['a dot-segment out of /desktop', { referer: `${UI}/desktop/../other` }],
    ['an encoded separator', { referer: `${UI}/desktop%2f..%2fother` }],
    ['another origin', { referer: 'http://127.0.0.1:9999/desktop/' }],
    ['userinfo', { referer: 'http://user@127.0.0.1:5173/desktop/' }],
    ['two Referer headers read as one (joined with ", ")', { referer: `${UI}/desktop/, https://evil.test/` }],
    ['a raw space or tab in the URL', { referer: `${UI}/desktop/ x` }],
  ])('refuses %s', (_name, headers: Record<string, string>) => {
    expect(desktopRefererOf(request(headers), allowed)).toBeUndefined();
  });
});
