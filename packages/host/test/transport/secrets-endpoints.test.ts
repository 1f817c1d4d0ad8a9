/**
 * Secrets and custom endpoints through a real host and a real sidecar: keys go in and never come
 * back out; auth.json stays 0600; an endpoint definition is not a grant — only `--allow-endpoint`
 * consent on the host lets the sidecar's probe reach the server.
 */
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { startForbiddenServer } from './transport-harness.js';
import { startServer, type TestServer } from '@bastion/test-support';

const CANARY = 'sk-canary-6f1d2c3b4a5e';
let host: TempHost | undefined;
const servers: TestServer[] = [];
afterEach(async () => {
  await host?.stop();
  host = undefined;
  for (const server of servers.splice(0)) await server.close();
});

async function modelsServer(): Promise<TestServer & { seen: string[] }> {
  const seen: string[] = [];
  const server = await startServer((req, res) => {
    seen.push(req.headers.authorization ?? '');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ object: 'list', data: [{ id: 'local-model', object: 'model' }] }));
  });
  servers.push(server);
  return Object.assign(server, { seen });
}

describe('secrets routes', () => {
  it('set/has/delete for allowlisted providers; no get route; the key never comes back or reaches a log', async () => {
    host = await startTempHost();
    const set = await host.client.request('POST', '/secrets/set', { provider: 'openai', key: CANARY });
    expect(set).toEqual({ status: 200, body: { provider: 'openai', present: true } });
    const authPath = join(host.userData, 'auth.json');
    expect(statSync(authPath).mode & 0o777).toBe(0o600);
    expect(await host.client.request('POST', '/secrets/has', { provider: 'openai' })).toEqual({
      status: 200,
      body: { provider: 'openai', present: true },
    });
    for (const path of ['/secrets/get', '/secrets/list', '/secrets/openai']) {
      const response = await host.client.request('POST', path, { provider: 'openai' });
      expect(response.status).toBe(404);
      expect(JSON.stringify(response.body)).not.toContain(CANARY);
    }
    expect((await host.client.request('GET', '/secrets/has')).status).toBe(404);
    const unknown = await host.client.request('POST', '/secrets/set', { provider: 'evil', key: 'x' });
    expect(unknown).toMatchObject({ status: 404, body: { code: 'SECRETS_PROVIDER_UNKNOWN' } });
    const deleted = await host.client.request('POST', '/secrets/delete', { provider: 'openai' });
    expect(deleted).toEqual({ status: 200, body: { provider: 'openai', present: false, deleted: true } });
    expect(statSync(authPath).mode & 0o777).toBe(0o600);
    expect(readFileSync(authPath, 'utf8')).not.toContain(CANARY);
    expect(JSON.stringify(host.records)).not.toContain(CANARY);
  });

  it('a loose auth.json is refused with the chmod 600 fix and keeps its bytes', async () => {
    host = await startTempHost();
    await host.client.request('POST', '/secrets/set', { provider: 'anthropic', key: CANARY });
    const authPath = join(host.userData, 'auth.json');
    const before = readFileSync(authPath);
    chmodSync(authPath, 0o644);
    const has = await host.client.request<{ code: string; message: string }>('POST', '/secrets/has', {
      provider: 'anthropic',
    });
    expect(has.status).toBe(409);
    expect(has.body.code).toBe('SECRETS_FILE_PERMISSIONS');
    expect(has.body.message).toContain('chmod 600');
    const set = await host.client.request('POST', '/secrets/set', { provider: 'anthropic', key: 'sk-other' });
    expect(set).toMatchObject({ status: 409, body: { code: 'SECRETS_FILE_PERMISSIONS' } });
    expect(readFileSync(authPath).equals(before)).toBe(true);
    expect(statSync(authPath).mode & 0o777).toBe(0o644);
  });
});

describe('custom endpoints', () => {
  it('--allow-endpoint lets the probe list models through the transport, with the stored key attached', async () => {
    const server = await modelsServer();
    host = await startTempHost({ allowEndpoints: [`${server.origin}/v1`] });
    const set = await host.client.request('POST', '/providers/endpoints/set', {
      id: 'local',
      base_url: `${server.origin}/v1/`,
    });
    expect(set).toMatchObject({ status: 200, body: { endpoint: { id: 'local', base_url: `${server.origin}/v1` } } });
    await host.client.request('POST', '/secrets/set', { provider: 'local', key: CANARY });
    const probe = await host.client.request('POST', '/providers/endpoints/probe', { id: 'local' });
    expect(probe).toEqual({ status: 200, body: { id: 'local', models: ['local-model'] } });
    expect(server.seen).toEqual([`Bearer ${CANARY}`]);
    const list = await host.client.request('POST', '/providers/endpoints/list', {});
    expect(list.body).toEqual({
      endpoints: [{ id: 'local', base_url: `${server.origin}/v1`, granted: true, has_key: true }],
    });
    expect(statSync(join(host.userData, 'endpoints.json')).mode & 0o777).toBe(0o600);
    expect(JSON.stringify(host.records)).not.toContain(CANARY);
  });

  it('a defined but ungranted endpoint is refused before any connection', async () => {
    const forbidden = await startForbiddenServer();
    servers.push(forbidden);
    host = await startTempHost();
    await host.client.request('POST', '/providers/endpoints/set', {
      id: 'unconsented',
      base_url: `${forbidden.origin}/v1`,
    });
    const probe = await host.client.request('POST', '/providers/endpoints/probe', { id: 'unconsented' });
    expect(probe).toMatchObject({ status: 403, body: { code: 'ENDPOINT_NOT_GRANTED' } });
    expect(forbidden.hits).toBe(0);
  });

  it('ineligible base URLs are refused and endpoints.json is not written', async () => {
    host = await startTempHost();
    for (const [url, code] of [
      ['http://localhost.evil.test:11434/v1', 'ENDPOINT_HOST_INELIGIBLE'],
      ['http://127.0.0.1.nip.io:11434/v1', 'ENDPOINT_HOST_INELIGIBLE'],
      ['http://localhost.:11434/v1', 'ENDPOINT_HOST_INELIGIBLE'],
      ['http://my-gpu-box.local:11434/v1', 'ENDPOINT_HOST_INELIGIBLE'],
      ['http://user:pw@127.0.0.1:11434/v1', 'ENDPOINT_URL_USERINFO'],
      ['ftp://127.0.0.1/v1', 'ENDPOINT_URL_SCHEME'],
    ]) {
      const response = await host.client.request('POST', '/providers/endpoints/set', { id: 'bad', base_url: url });
      expect({ url, response }).toMatchObject({ url, response: { status: 400, body: { code } } });
    }
    expect(existsSync(join(host.userData, 'endpoints.json'))).toBe(false);
  });

  it('an ineligible --allow-endpoint refuses to start the host', async () => {
    await expect(startTempHost({ allowEndpoints: ['http://localhost.evil.test:8080/v1'] })).rejects.toMatchObject({
      code: 'ENDPOINT_HOST_INELIGIBLE',
    });
  });
});
