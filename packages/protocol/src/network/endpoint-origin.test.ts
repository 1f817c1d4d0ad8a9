import { describe, expect, it } from 'vitest';
import { checkEndpointUrl, isCanonicalUrl } from './endpoint-origin.js';

describe('checkEndpointUrl', () => {
  it('accepts localhost, *.localhost and IP literals, canonicalising the origin', () => {
    expect(checkEndpointUrl('http://localhost:11434/v1/')).toEqual({
      ok: true,
      origin: 'http://localhost:11434',
      baseUrl: 'http://localhost:11434/v1',
      hostKind: 'localhost',
    });
    expect(checkEndpointUrl('http://LLM.Localhost:1234')).toMatchObject({
      ok: true,
      origin: 'http://llm.localhost:1234',
      hostKind: 'localhost',
    });
    // Decimal, octal and hex IPv4 forms name 127.0.0.1: consent is for the canonical origin, which the prompt shows.
    for (const raw of ['http://2130706433:8080/v1', 'http://0177.0.0.1:8080/v1', 'http://0x7f.1:8080/v1']) {
      expect(checkEndpointUrl(raw)).toMatchObject({
        ok: true,
        origin: 'http://127.0.0.1:8080',
        baseUrl: 'http://127.0.0.1:8080/v1',
        hostKind: 'ipv4',
      });
    }
    expect(checkEndpointUrl('https://[0:0:0:0:0:0:0:1]:8443/')).toMatchObject({
      ok: true,
      origin: 'https://[::1]:8443',
      hostKind: 'ipv6',
    });
    expect(checkEndpointUrl('http://10.0.0.7:8000/v1')).toMatchObject({ ok: true, hostKind: 'ipv4' });
  });

  it('rejects lookalike subdomains and other host names, with the reason', () => {
    for (const raw of [
      'http://localhost.evil.test:11434/v1',
      'http://127.0.0.1.nip.io:11434/v1',
      'http://localhost.:11434/v1',
      'http://my-gpu-box.local:11434/v1',
      'http://evil-localhost:11434/v1',
      'http://-bad.localhost/v1',
      'http://api.openai.com/v1',
    ]) {
      const checked = checkEndpointUrl(raw);
      expect(checked).toMatchObject({ ok: false, code: 'ENDPOINT_HOST_INELIGIBLE' });
      expect(checked.ok ? '' : checked.message).toContain('only localhost, *.localhost and IP literals');
    }
  });

  it('rejects userinfo, queries, fragments, other schemes and junk', () => {
    expect(checkEndpointUrl('http://user:pw@127.0.0.1:1/')).toMatchObject({ ok: false, code: 'ENDPOINT_URL_USERINFO' });
    expect(checkEndpointUrl('http://127.0.0.1:1/v1?key=x')).toMatchObject({ ok: false, code: 'ENDPOINT_URL_QUERY' });
    expect(checkEndpointUrl('http://127.0.0.1:1/v1#x')).toMatchObject({ ok: false, code: 'ENDPOINT_URL_QUERY' });
    expect(checkEndpointUrl('ftp://127.0.0.1/')).toMatchObject({ ok: false, code: 'ENDPOINT_URL_SCHEME' });
    expect(checkEndpointUrl('127.0.0.1:11434')).toMatchObject({ ok: false });
    expect(checkEndpointUrl('')).toMatchObject({ ok: false, code: 'ENDPOINT_URL_INVALID' });
    expect(checkEndpointUrl(`http://127.0.0.1/${'a'.repeat(3000)}`)).toMatchObject({
      ok: false,
      code: 'ENDPOINT_URL_INVALID',
    });
  });
});

describe('isCanonicalUrl', () => {
  it('is true only for a URL that is already its own serialisation', () => {
    expect(isCanonicalUrl('http://127.0.0.1:8080/v1/models')).toBe(true);
    for (const raw of [
      'HTTP://127.0.0.1:8080/',
      'http://127.0.0.1:8080',
      'http://2130706433/',
      'http://127.0.0.1./',
      'http://[0::1]/',
      'http://a/b/../c',
      'not a url',
    ]) {
      expect({ raw, canonical: isCanonicalUrl(raw) }).toEqual({ raw, canonical: false });
    }
  });
});
