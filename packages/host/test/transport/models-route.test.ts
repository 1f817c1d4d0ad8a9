/**
 * `GET /models` and `POST /models/default` on the real host and sidecar: the demo model always;
 * a key provider only once its key is stored (the key never in the answer or a log); a custom
 * endpoint approved with allowEndpoints listed with what its `/v1/models` says, through the
 * transport; an endpoint not approved in this run listed as unavailable with no connection made;
 * the default model persisted in preferences.json (0600) across a sidecar restart.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelListResponse } from '@bastion/protocol';
import { startForbiddenServer } from './transport-harness.js';
import { startScriptedEndpoint, type ScriptedEndpoint } from '@bastion/test-support';
import { startTempHost, type TempHost } from '../support/temp-host.js';

const CANARY = 'sk-models-route-CANARY-77c1';

let host: TempHost | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await host?.stop();
  host = undefined;
  for (const close of closers.splice(0)) await close();
});

async function models(): Promise<ModelListResponse> {
  const answer = await host!.client.request<ModelListResponse>('GET', '/models');
  expect(answer.status).toBe(200);
  return answer.body;
}

describe('GET /models', () => {
  it('lists the demo model, and a key provider with its catalog models only once its key is stored', async () => {
    host = await startTempHost();
    const before = await models();
    expect(before.groups.map((group) => group.provider)).toEqual(['demo']);
    expect(before.default).toEqual({ provider: 'demo', model: 'demo' });
    await host.client.request('POST', '/secrets/set', { provider: 'openai', key: CANARY });
    const after = await models();
    const openai = after.groups.find((group) => group.provider === 'openai');
    expect(openai).toMatchObject({ kind: 'api-key', available: true });
    expect(openai?.models.map((model) => model.id)).toContain('gpt-4.1-mini');
    expect(after.groups.some((group) => group.provider === 'anthropic')).toBe(false);
    expect(JSON.stringify(after)).not.toContain(CANARY);
    expect(JSON.stringify(host.records)).not.toContain(CANARY);
  });

  it('lists an approved endpoint with the models its /models answers, fetched through the transport', async () => {
    const endpoint: ScriptedEndpoint = await startScriptedEndpoint([], ['llama3.2:latest', 'qwen2.5-coder']);
    closers.push(() => endpoint.close());
    host = await startTempHost({ allowEndpoints: [endpoint.baseUrl] });
    await host.client.request('POST', '/providers/endpoints/set', { id: 'local', base_url: endpoint.baseUrl });
    await host.client.request('POST', '/secrets/set', { provider: 'local', key: CANARY });
    const local = (await models()).groups.find((group) => group.provider === 'local');
    expect(local).toMatchObject({ kind: 'endpoint', available: true, base_url: endpoint.baseUrl });
    expect(local?.models.map((model) => model.id)).toEqual(['llama3.2:latest', 'qwen2.5-coder']);
    expect(endpoint.hits).toBeGreaterThan(0);
    expect(JSON.stringify(await models())).not.toContain(CANARY);
  });

  it('lists an endpoint not approved in this run as unavailable, without connecting to it', async () => {
    const forbidden = await startForbiddenServer();
    closers.push(() => forbidden.close());
    host = await startTempHost();
    await host.client.request('POST', '/providers/endpoints/set', {
      id: 'elsewhere',
      base_url: `${forbidden.origin}/v1`,
      models: ['stored-model'],
    });
    const group = (await models()).groups.find((entry) => entry.provider === 'elsewhere');
    expect(group).toMatchObject({ available: false, code: 'ENDPOINT_NOT_GRANTED', models: [{ id: 'stored-model' }] });
    expect(forbidden.hits).toBe(0);
  });
});

describe('POST /models/default', () => {
  it('persists the default in preferences.json (0600) across a sidecar restart; an unknown provider is refused', async () => {
    host = await startTempHost();
    await host.client.request('POST', '/secrets/set', { provider: 'anthropic', key: CANARY });
    const refused = await host.client.request('POST', '/models/default', { provider: 'nope', model: 'x' });
    expect(refused).toMatchObject({ status: 400, body: { code: 'PROVIDER_UNKNOWN' } });
    expect((await models()).default).toEqual({ provider: 'demo', model: 'demo' });
    const set = await host.client.request('POST', '/models/default', {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
    });
    expect(set.status).toBe(200);
    await host.supervisor.restart('models-test');
    expect((await models()).default).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(statSync(join(host.userData, 'preferences.json')).mode & 0o777).toBe(0o600);
  });
});
