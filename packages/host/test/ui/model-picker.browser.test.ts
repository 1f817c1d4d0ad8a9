/// <reference lib="dom" />
/**
 * The model picker with a custom endpoint whose server is down, in real Chromium against the real
 * host and a loopback OpenAI-compatible server on a port of its own: the endpoint's group says that
 * its server does not answer, with its URL, and what to do, where it was an empty group; once the
 * server is started, opening the picker lists the endpoint's models, with no reload of the page.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { SCRIPTED_MODEL } from '@bastion/test-support';
import type { TempHost } from '../support/temp-host.js';
import { openDesktopWorld, useDesktopWorld } from './support/desktop-world.js';

/** A loopback server answering `GET /v1/models` with SCRIPTED_MODEL, on `port` (0: any free one). */
async function startModelsServer(port: number): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/v1/models')
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'list', data: [{ id: SCRIPTED_MODEL, object: 'model' }] }));
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

function stopServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A free loopback port: a server started on it, then stopped, so the endpoint's server is down. */
const stopped = await startModelsServer(0);
const port = (stopped.address() as AddressInfo).port;
await stopServer(stopped);
const baseUrl = `http://127.0.0.1:${port}/v1`;

let page: Page;
let host: TempHost;
let server: Server | undefined;
useDesktopWorld(
  () => openDesktopWorld({ allowEndpoints: [baseUrl] }),
  (world) => ({ page, host } = world),
);
afterAll(async () => {
  if (server) await stopServer(server);
});

/** The home page's picker's group for endpoint `local`: its label and its options' texts and whether each is disabled. */
function localGroup(page: Page): Promise<{ label: string; options: { text: string; disabled: boolean }[] } | null> {
  return page.locator('#home-model').evaluate((select) => {
    const group = Array.from(select.querySelectorAll('optgroup')).find((candidate) =>
      candidate.label.startsWith('local '),
    );
    return group === undefined
      ? null
      : {
          label: group.label,
          options: Array.from(group.querySelectorAll('option')).map((option) => ({
            text: option.textContent ?? '',
            disabled: option.disabled,
          })),
        };
  });
}

describe('the model picker with an endpoint whose server is down', () => {
  it('the endpoint’s group says its server at its URL does not answer and to start it or check its URL, not an empty list', async () => {
    const set = await host.client.request('POST', '/providers/endpoints/set', { id: 'local', base_url: baseUrl });
    expect(set.status).toBe(200);
    await page.goto(`${host.uiOrigin}/desktop/`);
    await expect.poll(() => localGroup(page), { timeout: 10_000 }).not.toBeNull();
    expect(await localGroup(page)).toEqual({
      label: `local (${baseUrl}) — its server does not answer`,
      options: [{ text: 'Start its server, or check its URL in Settings → Custom endpoints', disabled: true }],
    });
  });

  it('once its server is started, opening the picker lists its models, without reloading the page', async () => {
    server = await startModelsServer(port);
    const picker = page.locator('#home-model');
    await picker.click();
    await expect
      .poll(() => localGroup(page), { timeout: 10_000 })
      .toEqual({
        label: `local (${baseUrl})`,
        options: [{ text: SCRIPTED_MODEL, disabled: false }],
      });
    await picker.press('Escape');
  });
});
