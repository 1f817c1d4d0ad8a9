/// <reference lib="dom" />
/**
 * A session of a folder this Bastion was not started in — what `bastion run` in that folder leaves
 * in the home — opened in real Chromium against the real host: the page says the agent cannot
 * reach the folder; "Work in this folder too" asks the host, whose confirmer decides (the page
 * never does); declined, the folder stays out and the page says so (a session of the granted
 * folder shows no banner); approved, the host restarts the agent with the folder granted, the banner
 * goes, and the agent lists the folder.
 */
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsentRequest } from '../../src/consent/host-confirmer.js';
import type { TempHost } from '../support/temp-host.js';
import { openDesktopWorld, sendMessage, type DesktopWorld } from './support/desktop-world.js';
import { expectNoHorizontalOverflow, shotAllModes, SHOTS } from './support/layout.js';

const SESSION = 'ses_OtherFolder001';

let world: DesktopWorld | undefined;
let host: TempHost;
let elsewhere: string;
/** What the host's confirmer answers next, and every request it was asked. */
let approve = false;
const asked: ConsentRequest[] = [];

async function grantedRoots(): Promise<string[]> {
  const answer = await host.client.request<{ workspaces: { root: string }[] }>('POST', '/workspaces/list', {});
  return answer.body.workspaces.map((workspace) => workspace.root);
}

beforeAll(async () => {
  world = await openDesktopWorld({
    confirmer: { confirm: (request) => (asked.push(request), Promise.resolve(approve)) },
  });
  host = world.host;
  elsewhere = join(host.root, 'elsewhere');
  mkdirSync(elsewhere);
  writeFileSync(join(elsewhere, 'only-here.txt'), 'made elsewhere\n');
  elsewhere = realpathSync(elsewhere);
  // The row `bastion run --workspace elsewhere` would have left in this home.
  const db = new Database(join(host.root, 'home', 'sessions.db'));
  try {
    const now = new Date().toISOString();
    db.prepare(
      `INSERT INTO sessions (id, title, mode, provider, model, workspace, created_at, updated_at)
       VALUES (?, 'made elsewhere', 'accept-edits', 'demo', 'demo', ?, ?, ?)`,
    ).run(SESSION, elsewhere, now, now);
  } finally {
    db.close();
  }
}, 90_000);

afterAll(() => world?.close());

describe('a session of a folder this Bastion was not started in', () => {
  it('says the folder is out of reach; declined, it stays out (a granted folder’s session has no banner); approved, it is granted and the agent lists it', async () => {
    const page = (world as DesktopWorld).page;
    await page.goto(`${host.uiOrigin}/desktop/sessions/${SESSION}`);
    const banner = page.locator('.other-folder');
    await banner.getByText(elsewhere).waitFor();
    // The session list names the folder of such a session.
    const listed = page.locator('li.session').filter({ hasText: 'made elsewhere' });
    await listed.getByText('· in elsewhere').waitFor();
    await expectNoHorizontalOverflow(page);
    await shotAllModes(page, SHOTS, '43-other-folder');

    approve = false;
    await banner.getByRole('button', { name: 'Work in this folder too' }).click();
    await banner.getByText('Not approved: the folder stays out of reach.').waitFor();
    expect(asked).toEqual([{ kind: 'workspace', path: elsewhere }]);
    expect(await grantedRoots()).not.toContain(elsewhere);

    // A session of the folder Bastion works in, opened from the list (the roots are known by now): no banner.
    await page.getByRole('button', { name: 'New session' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith(SESSION));
    await page.locator('.chat-meta').getByText('offline demo model').waitFor();
    expect(await page.locator('.other-folder').count()).toBe(0);
    await page.locator('li.session').filter({ hasText: 'made elsewhere' }).getByRole('button').first().click();
    await banner.getByText(elsewhere).waitFor();

    approve = true;
    await banner.getByRole('button', { name: 'Work in this folder too' }).click();
    await banner.waitFor({ state: 'detached' });
    await listed.getByText('· in elsewhere').waitFor({ state: 'detached' });
    expect(asked).toHaveLength(2);
    expect(await grantedRoots()).toContain(elsewhere);
    await sendMessage(page, 'ls');
    await page.locator('.bubble.assistant').filter({ hasText: 'only-here.txt' }).waitFor();
  });
});
