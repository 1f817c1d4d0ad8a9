/// <reference lib="dom" />
/**
 * A custom endpoint in trouble, in real Chromium against the real host and a loopback
 * OpenAI-compatible endpoint that answers 401 to any key but one: the run's error sends the user to
 * Settings → Custom endpoints, the endpoint's row there takes the key (never shown again), and Retry
 * then runs with it. A 403 (one prompt it refuses) says what to check of a valid key. Then its server stops: the home page says the default model's endpoint does not
 * answer and to start its server, not that it was deleted or not approved.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { SCRIPTED_MODEL, type ScriptedEndpoint } from '@bastion/test-support';
import type { TempHost } from '../support/temp-host.js';
import { openScriptedDesktopWorld, sendMessage, useDesktopWorld } from './support/desktop-world.js';
import { expectInViewport, shotAllModes, SHOTS } from './support/layout.js';

const OLD_KEY = 'sk-endpoint-key-test-old';
const NEW_KEY = 'sk-endpoint-key-test-new-5c1f';
/** A prompt the endpoint answers 403 to, whatever the key. */
const FORBIDDEN_PROMPT = 'Use the model this project may not use';

let page: Page;
let host: TempHost;
let endpoint: ScriptedEndpoint;
let sessionId: string;

useDesktopWorld(
  () =>
    openScriptedDesktopWorld(
      (_index, request) =>
        JSON.stringify(request.body.messages).includes(FORBIDDEN_PROMPT)
          ? { kind: 'status', status: 403, message: 'Project proj_x has no access to scripted-model' }
          : request.authorization === `Bearer ${NEW_KEY}`
            ? { kind: 'text', pieces: ['Answered with the new key.'] }
            : { kind: 'status', status: 401, message: 'Invalid API key' },
      OLD_KEY,
    ),
  (world) => ({ page, host, endpoint, sessionId } = world),
);

describe('a custom endpoint in trouble', () => {
  it('the 401’s advice and its Open Settings button lead to Settings → Custom endpoints (its heading focused and in view) and the endpoint’s row, which takes the key without showing it, and Retry runs with it', async () => {
    await sendMessage(page, 'Say hello');
    const failure = page.locator('.run-error').last();
    await failure.getByText('HTTP 401', { exact: false }).waitFor();
    expect(await failure.textContent()).toContain('set it in Settings → Custom endpoints');
    expect(endpoint.seen.map((request) => request.authorization)).toEqual([`Bearer ${OLD_KEY}`]);

    await failure.getByRole('button', { name: 'Open Settings' }).click();
    await page.waitForURL('**/desktop/settings');
    await expect
      .poll(() => page.getByRole('tab', { name: 'Models', exact: true }).getAttribute('aria-selected'))
      .toBe('true');
    const row = page.getByTestId('endpoint-local');
    await row.getByText('key stored').waitFor();
    // Landed at the Custom endpoints card, its heading focused, rather than at the top of Models.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('endpoints-title');
    await expectInViewport(
      page,
      page.getByRole('heading', { name: 'Custom endpoints' }),
      'the Custom endpoints heading',
    );
    const key = row.getByLabel('API key');
    expect(await key.getAttribute('type')).toBe('password');
    expect(await key.getAttribute('placeholder')).toBe('Enter a new key to replace it');
    await key.fill(NEW_KEY);
    await shotAllModes(page, SHOTS, 'endpoint-key-typed', row);
    await row.getByRole('button', { name: 'Save' }).click();
    await page.getByText('local: key saved; context window the default', { exact: false }).waitFor();
    expect(await key.inputValue()).toBe('');
    expect(await page.content()).not.toContain(NEW_KEY);

    await page.goto(`${host.uiOrigin}/desktop/sessions/${sessionId}`);
    await page.locator('.run-error').last().getByRole('button', { name: 'Retry' }).click();
    await page.getByText('Answered with the new key.').waitFor();
    expect(endpoint.seen.at(-1)?.authorization).toBe(`Bearer ${NEW_KEY}`);
  });

  it('a 403 shows the endpoint’s own message and the advice for a key that is valid but not allowed the request, without the 401’s', async () => {
    await sendMessage(page, FORBIDDEN_PROMPT);
    const failure = page.locator('.run-error').last();
    await failure.getByText('HTTP 403', { exact: false }).waitFor();
    expect(await failure.locator('p').first().textContent()).toBe(
      'The run failed — HTTP 403: local (custom endpoint ' +
        endpoint.baseUrl +
        ") refused the request: Project proj_x has no access to scripted-model — usually the key is valid but not allowed this request: check that the key (its project or organisation) has access to this model, and the account's region and billing; for an endpoint, its server's access settings (what a 403 means varies by provider; its own message, when it sent one, says more) (PROVIDER_FAILED)",
    );
    expect(await failure.textContent()).not.toContain('did not accept its key');
    expect(await failure.getByRole('button', { name: 'Open Settings' }).count()).toBe(0);
    await shotAllModes(page, SHOTS, 'endpoint-403-advice', failure, [
      { width: 1280, height: 800 },
      { width: 400, height: 860 },
    ]);
  });

  it('with its server stopped, the home page says the default model’s endpoint does not answer and to start it, and Send stays off', async () => {
    expect(
      (await host.client.request('POST', '/models/default', { provider: 'local', model: SCRIPTED_MODEL })).status,
    ).toBe(200);
    await endpoint.close();
    await page.goto(`${host.uiOrigin}/desktop/`);
    const alert = page.locator('section.empty [role=alert]');
    await alert.getByText('is not available now').waitFor();
    expect(await alert.textContent()).toBe(
      `The default model, local · ${SCRIPTED_MODEL}, is not available now: its endpoint, local (${endpoint.baseUrl}), does not answer — is its server running? Start it, then reload this page. Pick another model, or set it up again in Settings.`,
    );
    await page.getByRole('combobox', { name: 'Message' }).fill('hello');
    expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
    await shotAllModes(page, SHOTS, 'endpoint-server-stopped');
  });
});
