/**
 * Test support: what a desktop browser test starts in its beforeAll — Chromium and a temp host
 * side by side, then a desktop page on the host at 1280×800 — and, for tests of the agent's work,
 * the scripted loopback endpoint granted, defined as provider `local` and the page on a new
 * session of it. `close()` ends all of it; a start that fails part-way closes what it started.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Session } from '@bastion/protocol';
import {
  defineScriptedProvider,
  SCRIPTED_MODEL,
  startScriptedEndpoint,
  type Script,
  type ScriptedEndpoint,
} from '@bastion/test-support';
import type { BastionHostOptions } from '../../../src/bastion-host.js';
import { startTempHost, type TempHost } from '../../support/temp-host.js';
import { launchChromium, openDesktop } from './browser.js';

export interface DesktopWorld {
  browser: Browser;
  host: TempHost;
  context: BrowserContext;
  page: Page;
  close: () => Promise<void>;
}

export interface ScriptedDesktopWorld extends DesktopWorld {
  endpoint: ScriptedEndpoint;
  /** The session the page is on. */
  sessionId: string;
}

/** Chromium and a host on `hostOptions`, started side by side, and a desktop page on the host at 1280×800. */
export async function openDesktopWorld(hostOptions: Partial<BastionHostOptions> = {}): Promise<DesktopWorld> {
  const settled = await Promise.allSettled([launchChromium(), startTempHost(hostOptions)]);
  const [launched, started] = settled;
  const browser = launched.status === 'fulfilled' ? launched.value : undefined;
  const host = started.status === 'fulfilled' ? started.value : undefined;
  const closeBoth = async () => {
    await Promise.all([browser?.close(), host?.stop()]);
  };
  if (!browser || !host) {
    await closeBoth();
    throw settled.find((result) => result.status === 'rejected')?.reason;
  }
  try {
    const { context, page } = await openDesktop(browser, host);
    await page.setViewportSize({ width: 1280, height: 800 });
    return {
      browser,
      host,
      context,
      page,
      close: async () => {
        await context.close();
        await closeBoth();
      },
    };
  } catch (error) {
    await closeBoth();
    throw error;
  }
}

/**
 * openDesktopWorld with the scripted endpoint playing `script` granted to the host (as
 * `--allow-endpoint` does), defined as provider `local` with API key `key`, and the page on a new
 * session of it, its header showing the model.
 */
export async function openScriptedDesktopWorld(script: Script, key: string): Promise<ScriptedDesktopWorld> {
  const endpoint = await startScriptedEndpoint(script);
  let world: DesktopWorld | undefined;
  try {
    world = await openDesktopWorld({ allowEndpoints: [endpoint.baseUrl] });
    const { host, page } = world;
    await defineScriptedProvider(host, endpoint, key);
    const created = await host.client.request<Session>('POST', '/sessions', {
      provider: 'local',
      model: SCRIPTED_MODEL,
    });
    await page.goto(`${host.uiOrigin}/desktop/sessions/${created.body.id}`);
    await page.locator('.chat-head').getByText(`local · ${SCRIPTED_MODEL}`).waitFor();
    const close = world.close;
    return {
      ...world,
      endpoint,
      sessionId: created.body.id,
      close: async () => {
        await Promise.all([close(), endpoint.close()]);
      },
    };
  } catch (error) {
    await Promise.all([world?.close(), endpoint.close()]);
    throw error;
  }
}
