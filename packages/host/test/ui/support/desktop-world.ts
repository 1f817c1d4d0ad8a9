/**
 * Test support: what a desktop browser test starts in its beforeAll — Chromium launched while the
 * host starts, then a desktop page on the host at 1280×800 — and, for tests of the agent's work,
 * the host a scripted one (startScriptedHost) with the page on a new session of provider `local`.
 * `close()` ends all of it; a start that fails part-way closes what it started.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, SCRIPTED_MODEL, type Script, type ScriptedEndpoint } from '@bastion/test-support';
import type { Session, SessionListResponse } from '@bastion/protocol';
import type { BastionHostOptions } from '../../../src/bastion-host.js';
import { startScriptedHost } from '../../support/scripted-agent.js';
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

/** Chromium launched while `starting` starts the host and what goes with it (`stop` ends those), then the page. */
async function openDesktopOn<T extends { host: TempHost }>(
  starting: Promise<T>,
  stop: (started: T) => Promise<void>,
): Promise<T & DesktopWorld> {
  const settled = await Promise.allSettled([launchChromium(), starting]);
  const [launched, started] = settled;
  const browser = launched.status === 'fulfilled' ? launched.value : undefined;
  const hosted = started.status === 'fulfilled' ? started.value : undefined;
  const closeBoth = async () => {
    await Promise.all([browser?.close(), hosted && stop(hosted)]);
  };
  if (!browser || !hosted) {
    await closeBoth();
    throw settled.find((result) => result.status === 'rejected')?.reason;
  }
  try {
    const { context, page } = await openDesktop(browser, hosted.host);
    await page.setViewportSize({ width: 1280, height: 800 });
    const close = async () => {
      await context.close();
      await closeBoth();
    };
    return { ...hosted, browser, context, page, close };
  } catch (error) {
    await closeBoth();
    throw error;
  }
}

/** Chromium and a temp host on `hostOptions`, and a desktop page on the host at 1280×800. */
export function openDesktopWorld(hostOptions: Partial<BastionHostOptions> = {}): Promise<DesktopWorld> {
  return openDesktopOn(
    startTempHost(hostOptions).then((host) => ({ host })),
    ({ host }) => host.stop(),
  );
}

/**
 * Chromium and a host granted the scripted endpoint playing `script`, defined as provider `local`
 * with API key `key` (`definition`: more fields of its definition, e.g. `context_window`); the page
 * on a new session of it, its header showing the model.
 */
export async function openScriptedDesktopWorld(
  script: Script,
  key: string,
  definition: Record<string, unknown> = {},
): Promise<ScriptedDesktopWorld> {
  const world = await openDesktopOn(startScriptedHost(script, key, definition), async ({ host, endpoint }) => {
    await host.stop();
    await endpoint.close();
  });
  try {
    const { host, page } = world;
    const created = await host.client.request<Session>('POST', '/sessions', {
      provider: 'local',
      model: SCRIPTED_MODEL,
    });
    await page.goto(`${host.uiOrigin}/desktop/sessions/${created.body.id}`);
    await page.locator('.chat-head').getByText(`local · ${SCRIPTED_MODEL}`).waitFor();
    return { ...world, sessionId: created.body.id };
  } catch (error) {
    await world.close();
    throw error;
  }
}

/**
 * For a file whose tests share one world (openDesktopWorld, openScriptedDesktopWorld): opened by
 * `open` before its first test and handed to `opened`, for the file to keep what it uses; closed
 * after its last.
 */
export function useDesktopWorld<World extends DesktopWorld>(
  open: () => Promise<World>,
  opened: (world: World) => void,
): void {
  let world: World | undefined;
  beforeAll(async () => {
    world = await open();
    opened(world);
  }, 90_000);
  afterAll(() => world?.close());
}

/** A session on the demo model titled `title`, made through the daemon's API (as another tab or the CLI would); its id. */
export async function createDemoSession(host: TempHost, title: string): Promise<string> {
  const created = await host.client.request<Session>('POST', '/sessions', { title, provider: 'demo', model: 'demo' });
  if (created.status !== 201) throw new Error(`POST /sessions answered ${created.status}`);
  return created.body.id;
}

/** The sessions the daemon holds, newest first (up to 100). */
export async function storedSessions(host: TempHost): Promise<Session[]> {
  return (await host.client.request<SessionListResponse>('GET', '/sessions?limit=100')).body.sessions;
}

/**
 * Type `message` into the composer and send it, once the previous run has ended (its Stop button
 * gone) and Send is on: while an action of the page (an undo, say) still waits for its answer, or
 * the page has lost its link, Enter sends nothing and the text stays in the box.
 */
export async function sendMessage(page: Page, message: string): Promise<void> {
  await page.locator('.composer-actions button.danger').waitFor({ state: 'detached' });
  const composer = page.getByLabel('Message');
  await composer.fill(message);
  await page.locator('.composer-actions button[type="submit"]:enabled').waitFor();
  await composer.press('Enter');
}

/** A host whose userData `seed` filled first (its sessions.db, say), with Chromium on its desktop. */
export interface SeededDesktop {
  browser: Browser;
  host: TempHost;
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

export async function openSeededDesktop(prefix: string, seed: (userData: string) => void): Promise<SeededDesktop> {
  const userData = join(makeTempDir(prefix), 'home');
  mkdirSync(userData, { recursive: true, mode: 0o700 });
  seed(userData);
  const [browser, host] = await Promise.all([launchChromium(), startTempHost({ userData })]);
  const { context, page } = await openDesktop(browser, host);
  return {
    browser,
    host,
    context,
    page,
    close: async () => {
      await context.close();
      await Promise.all([browser.close(), host.stop()]);
    },
  };
}
