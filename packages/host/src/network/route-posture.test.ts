import { describe, expect, it } from 'vitest';
import { describeRoutePosture } from './route-posture.js';

describe('describeRoutePosture', () => {
  it('says direct when no proxy is configured, naming the address class', () => {
    expect(describeRoutePosture('http://127.0.0.1:11434', {})).toMatchObject({ route: 'direct', address: 'loopback' });
    expect(describeRoutePosture('http://[::1]:8080', {})).toMatchObject({ route: 'direct', address: 'loopback' });
    expect(describeRoutePosture('http://192.168.1.20:8000', {})).toMatchObject({ address: 'private' });
    expect(describeRoutePosture('http://llm.localhost:8000', {})).toMatchObject({ address: 'localhost-name' });
    expect(describeRoutePosture('http://8.8.8.8', {})).toMatchObject({ address: 'public' });
  });

  it('shows the proxy a request would take, without its credentials, unless NO_PROXY bypasses it', () => {
    const env = { HTTP_PROXY: 'http://user:secret@proxy.corp:3128' };
    const via = describeRoutePosture('http://10.0.0.5:8000', env);
    expect(via).toMatchObject({ route: 'proxy', proxy: 'http://proxy.corp:3128' });
    expect(via.summary).not.toContain('secret');
    expect(describeRoutePosture('http://10.0.0.5:8000', { ...env, NO_PROXY: 'localhost,10.0.0.5' })).toMatchObject({
      route: 'direct',
    });
    expect(describeRoutePosture('http://10.0.0.5:8000', { ...env, no_proxy: '*' })).toMatchObject({ route: 'direct' });
    expect(describeRoutePosture('http://10.0.0.5:8000', { ...env, NO_PROXY: '10.0.0.5:9999' })).toMatchObject({
      route: 'proxy',
    });
    // https uses HTTPS_PROXY, not HTTP_PROXY.
    expect(describeRoutePosture('https://10.0.0.5:8443', env)).toMatchObject({ route: 'direct' });
  });
});
