/// <reference lib="dom" />
/**
 * Settings in real Chromium against the real host, its logs seeded longer than a page: the cards
 * are grouped under tabs (one shown at a time, the chosen one kept in the address across a reload,
 * the arrow keys, Home and End moving between them, a strip that scrolls sideways on a narrow
 * window); the host audit log and the session audit log read AUDIT_VIEW_PAGE lines at a time,
 * newest first, with "Show older" for the rest; the host's check and enforcement of one call are
 * one entry whose verdict is said in words; policy rules read as one line each, the built-in ones
 * folded with their exact matcher on expand. Screenshots (light and dark, 1280 and 420 px) go to
 * test-output/ui/.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page, Request } from 'playwright-core';
import { AuditLog, openDatabase, SessionStore } from '@bastion/daemon/testing';
import { AUDIT_VIEW_PAGE } from '@bastion/protocol';
import { makeTempDir } from '@bastion/test-support';
import { HostAuditLog } from '../../src/policy/host-audit-log.js';
import type { TempHost } from '../support/temp-host.js';
import { launchChromium, openDesktop } from './support/browser.js';
import { openDesktopWorld, type DesktopWorld } from './support/desktop-world.js';
import { expectInViewport, expectNoHorizontalOverflow, shotAllModes, SHOTS } from './support/layout.js';
import { openSettingsTab } from './support/settings.js';

/** Calls in each seeded log: more than two pages of the session's log, and of the host's two lines a call. */
const CALLS = 2 * AUDIT_VIEW_PAGE + 10;

let world: DesktopWorld | undefined;
let host: TempHost;
let page: Page;

/**
 * A session with CALLS audited `run_command` calls (program `prog-1` … `prog-CALLS`, the newest
 * last), and the host's log with each call's check and enforcement, no rule matching.
 */
function seedLogs(userData: string): void {
  mkdirSync(join(userData, 'host'), { recursive: true, mode: 0o700 });
  const db = openDatabase(join(userData, 'sessions.db'));
  try {
    const session = new SessionStore(db).sessions.create({
      provider: 'demo',
      model: 'demo',
      workspace: null,
      title: 'Audited session',
    });
    const audit = new AuditLog(db);
    const hostLog = new HostAuditLog(userData);
    for (let call = 1; call <= CALLS; call += 1) {
      const name = `prog-${call}`;
      audit.append({
        session_id: session.id,
        run_id: null,
        tool_call_id: `call_${call}`,
        tool_name: 'run_command',
        command_name: name,
        mode: 'ask',
        verdict: 'none',
        rule_id: null,
        rule_layer: null,
        approval: 'approved',
        outcome: 'ran',
        code: null,
      });
      const policyCall = {
        tool: 'run_command',
        workspace_root: '/w',
        command: { name, args: [], cwd: '/w' },
      };
      const context = { session_id: session.id, run_id: 'run_seeded' };
      hostLog.record(policyCall, { verdict: 'none' }, { stage: 'check', ...context });
      hostLog.record(policyCall, { verdict: 'none' }, { stage: 'command', ...context });
    }
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  const userData = join(makeTempDir('bastion-settings-'), 'home');
  seedLogs(userData);
  world = await openDesktopWorld({ userData });
  ({ host, page } = world);
}, 120_000);

afterAll(() => world?.close());

const tabs = () => page.getByRole('tablist', { name: 'Settings sections' });
const tab = (name: string) => tabs().getByRole('tab', { name, exact: true });

/** The visible table's body rows: the view draws only what it has read. */
const rowsOf = (table: string) => page.getByRole('table', { name: table }).locator('tbody tr');

describe('Settings', () => {
  it('shows one tab of cards at a time, keeps the chosen tab across a reload, and moves between tabs with the arrow keys, Home and End', async () => {
    await page.goto(`${host.uiOrigin}/desktop/settings`);
    await expect.poll(() => tab('Models').getAttribute('aria-selected')).toBe('true');
    await page.getByRole('region', { name: 'Default model' }).waitFor();
    expect(await page.getByRole('region', { name: 'Policy rules' }).count()).toBe(0);
    expect(await page.getByRole('tabpanel').count()).toBe(1);

    await tab('Permissions').click();
    await page.getByRole('region', { name: 'Policy rules' }).waitFor();
    expect(await page.getByRole('region', { name: 'Default model' }).count()).toBe(0);
    expect(new URL(page.url()).hash).toBe('#permissions');
    await shotAllModes(page, SHOTS, '70-settings-tabs');

    await page.reload();
    await page.getByRole('region', { name: 'Policy rules' }).waitFor();
    expect(await tab('Permissions').getAttribute('aria-selected')).toBe('true');

    await tab('Permissions').focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => tab('MCP servers').getAttribute('aria-selected')).toBe('true');
    expect(await tab('MCP servers').evaluate((element) => element === document.activeElement)).toBe(true);
    await page.getByRole('region', { name: 'MCP servers' }).waitFor();
    await page.keyboard.press('End');
    await expect.poll(() => tab('General').getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => tab('Models').getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => tab('General').getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Home');
    await expect.poll(() => tab('Models').getAttribute('aria-selected')).toBe('true');
    expect(await tab('Models').evaluate((element) => element === document.activeElement)).toBe(true);
    expect(new URL(page.url()).hash).toBe('#models');
  });

  it('at 420 px every tab is in view (the strip wraps), the page does not scroll sideways, and a tab named in the address is shown', async () => {
    await page.setViewportSize({ width: 420, height: 860 });
    try {
      await page.goto(`${host.uiOrigin}/desktop/settings#general`);
      await page.getByRole('region', { name: 'Notifications' }).waitFor();
      expect(await tab('General').getAttribute('aria-selected')).toBe('true');
      for (const name of ['Models', 'Permissions', 'MCP servers', 'Activity', 'General'])
        await expectInViewport(page, tab(name), `the ${name} tab`);
      await expectNoHorizontalOverflow(page);
      await shotAllModes(page, SHOTS, '70-settings-tabs-general');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('switching between a tab that scrolls (Models) and one that fits (General) does not move the title, the tabs or the cards sideways, with scrollbars that take room', async () => {
    const classic = await launchChromium({ scrollbars: true });
    try {
      const { page: shown } = await openDesktop(classic, host);
      await shown.setViewportSize({ width: 1280, height: 700 });
      const column = () =>
        shown.evaluate(() => {
          const left = (selector: string) => document.querySelector(selector)?.getBoundingClientRect().left;
          const pane = document.querySelector('.content');
          return {
            scrolls: pane !== null && pane.scrollHeight > pane.clientHeight,
            at: [left('.settings h1'), left('.settings-tabs'), left('.settings-panel:not([hidden]) .card')],
          };
        });
      await openSettingsTab(shown, 'Models');
      const models = await column();
      await openSettingsTab(shown, 'General');
      await shown.getByRole('region', { name: 'Notifications' }).waitFor();
      const general = await column();
      expect([models.scrolls, general.scrolls]).toEqual([true, false]);
      expect(general.at).toEqual(models.at);
    } finally {
      await classic.close();
    }
  });

  it('choosing a tab moves no tab: each tab keeps its place and width whichever one is chosen (the chosen one’s bold label does not widen it)', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${host.uiOrigin}/desktop/settings#models`);
    await expect.poll(() => tab('Models').getAttribute('aria-selected')).toBe('true');
    const boxes = () =>
      tabs()
        .getByRole('tab')
        .evaluateAll((all) =>
          all.map((element) => [element.getBoundingClientRect().left, element.getBoundingClientRect().width]),
        );
    const withModels = await boxes();
    for (const name of ['Permissions', 'MCP servers', 'Activity', 'General']) {
      await tab(name).click();
      await expect.poll(() => tab(name).getAttribute('aria-selected')).toBe('true');
      expect(await boxes(), `the tabs with ${name} chosen`).toEqual(withModels);
    }
  });

  it('at 400 px the Model for new sessions list is as wide as at 1280 px (the model’s whole name), under its label', async () => {
    await openSettingsTab(page, 'Models');
    const picker = page.getByLabel('Model for new sessions');
    await picker.waitFor();
    const wide = (await picker.boundingBox())?.width ?? 0;
    await page.setViewportSize({ width: 400, height: 560 });
    try {
      expect((await picker.boundingBox())?.width).toBeGreaterThanOrEqual(wide - 0.5);
      await expectInViewport(page, picker, 'the Model list at 400 px');
      await expectNoHorizontalOverflow(page);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('at 400 px the Custom endpoints form puts each label above its field, which takes the form’s width and shows the URL’s placeholder whole', async () => {
    await openSettingsTab(page, 'Models');
    await page.setViewportSize({ width: 400, height: 560 });
    try {
      const form = page.locator('form.endpoint-form').last();
      const url = form.getByLabel('URL');
      await url.scrollIntoViewIfNeeded();
      const label = await form.getByText('URL', { exact: true }).boundingBox();
      const field = await url.boundingBox();
      const whole = await form.boundingBox();
      expect((label?.y ?? 0) + (label?.height ?? 0)).toBeLessThanOrEqual((field?.y ?? 0) + 0.5);
      expect(field?.width).toBeGreaterThanOrEqual((whole?.width ?? 0) - 1);
      const fits = await url.evaluate((input: HTMLInputElement) => {
        const style = getComputedStyle(input);
        const context = document.createElement('canvas').getContext('2d');
        if (!context) return false;
        context.font = `${style.fontSize} ${style.fontFamily}`;
        const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        return context.measureText(input.placeholder).width <= room;
      });
      expect(fits).toBe(true);
      await expectNoHorizontalOverflow(page);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('the host audit log shows its newest page as calls, each check and enforcement one entry, "none" said in words, and Show older decisions reads the rest without reading the session they name again', async () => {
    await openSettingsTab(page, 'Activity');
    const hostLog = page.getByRole('region', { name: 'Host audit log', exact: true });
    const calls = rowsOf('Host decisions, newest first');
    // A page of AUDIT_VIEW_PAGE lines is half as many calls: both stages of each in one entry.
    await expect.poll(() => calls.count()).toBe(AUDIT_VIEW_PAGE / 2);
    const newest = calls.first();
    expect(await newest.textContent()).toContain(`run_command: prog-${CALLS}`);
    expect(await newest.textContent()).toContain('before the call, and as the host ran it');
    expect(await newest.textContent()).toContain('no rule mode decided');
    // The legend, folded with the reading notes, says what "no rule" means in words.
    await hostLog.getByText('How to read the rows').click();
    await hostLog.getByText('no rule matched: the session’s mode decided (and may have asked you)').waitFor();
    expect(await calls.filter({ hasText: `prog-${CALLS}` }).count()).toBe(1);
    await shotAllModes(page, SHOTS, '71-host-audit-calls', hostLog.getByRole('heading', { name: 'Host audit log' }));

    // Each page adds the next AUDIT_VIEW_PAGE lines, as many calls as that is, down to the first;
    // the session they name, read for the first page, is not read again for each.
    const sessionReads: string[] = [];
    const countSessionRead = (request: Request) => {
      if (/\/sessions\/ses_[^/?]+$/.test(new URL(request.url()).pathname)) sessionReads.push(request.url());
    };
    await hostLog
      .getByRole('link', { name: /^Started / })
      .first()
      .waitFor();
    page.on('request', countSessionRead);
    const older = hostLog.getByRole('button', { name: 'Show older decisions' });
    for (let shown = AUDIT_VIEW_PAGE / 2; shown < CALLS; shown += AUDIT_VIEW_PAGE / 2) {
      await older.click();
      await expect.poll(() => calls.count()).toBe(Math.min(shown + AUDIT_VIEW_PAGE / 2, CALLS));
    }
    expect(await calls.last().textContent()).toContain('run_command: prog-1');
    expect(await older.count()).toBe(0);
    page.off('request', countSessionRead);
    expect(sessionReads).toEqual([]);
  });

  it('the session audit log shows its newest AUDIT_VIEW_PAGE calls first and Show older calls reads the next page, down to the first', async () => {
    await openSettingsTab(page, 'Activity');
    const audit = page.getByRole('region', { name: 'Session audit log (the agent’s record)' });
    const calls = rowsOf('Tool calls, newest first');
    await expect.poll(() => calls.count()).toBe(AUDIT_VIEW_PAGE);
    expect(await calls.first().textContent()).toContain(`run_command: prog-${CALLS}`);
    expect(await calls.first().textContent()).toContain('you approved it');
    await audit.getByRole('button', { name: 'Show older calls' }).click();
    await expect.poll(() => calls.count()).toBe(2 * AUDIT_VIEW_PAGE);
    await shotAllModes(page, SHOTS, '72-session-audit-paged', audit.getByRole('button', { name: 'Show older calls' }));
    await audit.getByRole('button', { name: 'Show older calls' }).click();
    await expect.poll(() => calls.count()).toBe(CALLS);
    expect(await calls.last().textContent()).toContain('run_command: prog-1');
    expect(await audit.getByRole('button', { name: 'Show older calls' }).count()).toBe(0);
  });

  it('policy rules read as one line each; the built-in ones are folded, each with its description, and show their exact matcher on expand', async () => {
    await openSettingsTab(page, 'Permissions');
    const rules = page.getByRole('region', { name: 'Policy rules' });
    const builtins = rules.getByRole('list', { name: 'Built-in rules' });
    expect(await builtins.isVisible()).toBe(false);
    await rules.getByText('Built-in rules (6): shipped with Bastion, checked after yours').click();
    const forcePush = builtins.getByRole('listitem').filter({ hasText: 'a force push overwrites the remote branch' });
    await forcePush.getByText('run_command: git … push …', { exact: true }).waitFor();
    await forcePush.getByText('and 1 more argument condition').waitFor();
    const ci = builtins.getByRole('listitem').filter({ hasText: 'CI workflows run with' });
    await ci.getByText('write_file, edit_file: .github/workflows/**', { exact: true }).waitFor();
    // The raw patterns are there only on expand.
    const pattern = forcePush.getByText(/^some argument is one of --fo {2}--for {2}--forc\* {2}-f\*/);
    expect(await pattern.isVisible()).toBe(false);
    await forcePush.getByText('Exact matcher').click();
    await pattern.waitFor();
    await forcePush.getByText('builtin.git-force-push', { exact: true }).waitFor();
    await shotAllModes(page, SHOTS, '73-policy-rules-readable', forcePush);
  });
});
