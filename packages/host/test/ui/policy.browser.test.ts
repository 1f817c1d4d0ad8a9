/// <reference lib="dom" />
/**
 * The watchdog in the desktop app, in real Chromium with the real host and sidecar (demo model):
 * "Always allow…" on an approval shows the exact rule, saves it for this project through host
 * IPC and runs the command; Settings lists the project, global and built-in rules, adds a rule
 * (it lands in policy.json under the workspace's real path) and removes it; the host audit log
 * shows the host's own record (host/audit.jsonl, through host IPC) and the session audit log the
 * agent's, both with the command's name only. A command the host's policy asks about is asked on
 * the page by the host itself, with "Always allow…" when the host offers a rule. Screenshots
 * (light and dark, 1280 and 420 px) go to test-output/ui/.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { HostAuditLog } from '../../src/policy/host-audit-log.js';
import type { TempHost } from '../support/temp-host.js';
import { openDesktopWorld, sendMessage, type DesktopWorld } from './support/desktop-world.js';
import { shotAllModes, SHOTS } from './support/layout.js';
import { openSettingsTab } from './support/settings.js';
import { waitFor } from '@bastion/test-support';

let world: DesktopWorld | undefined;
let host: TempHost;
let page: Page;
/** The session the first test runs its command in. */
let sessionId: string;

beforeAll(async () => {
  world = await openDesktopWorld();
  ({ host, page } = world);
}, 90_000);

afterAll(() => world?.close());

describe('the watchdog in the desktop app', () => {
  it('Always allow shows the rule, saves it for this project only and runs the command', async () => {
    await page.getByRole('button', { name: 'New session' }).click();
    await page.waitForURL(/\/desktop\/sessions\/ses_/);
    sessionId = /\/sessions\/(ses_[A-Za-z0-9_-]+)/.exec(page.url())?.[1] ?? '';
    await sendMessage(page, '$ touch always-marker');
    const approval = page.getByRole('region', { name: 'Approval needed' });
    await approval.getByText('touch always-marker').first().waitFor();
    await approval.getByRole('button', { name: 'Always allow…' }).click();
    const confirm = approval.getByRole('group', { name: 'Always allow' });
    await confirm.getByText('allow run_command · touch always-marker …').waitFor();
    await confirm.getByText(host.workspace).waitFor();
    expect(existsSync(join(host.workspace, 'always-marker'))).toBe(false);
    await shotAllModes(page, SHOTS, '30-always-allow');
    await confirm.getByRole('button', { name: 'Save rule and allow' }).click();
    await approval.waitFor({ state: 'detached' });
    await page.locator('[data-testid="tool-status"]').last().filter({ hasText: 'exit 0' }).waitFor();
    expect(existsSync(join(host.workspace, 'always-marker'))).toBe(true);
    const listing = host.policy.listing(host.workspace);
    expect(listing.project?.rules).toEqual([
      expect.objectContaining({ decision: 'allow', command: 'touch', argv_prefix: ['always-marker'] }),
    ]);
    expect(listing.global).toEqual([]);
  });

  it('Settings lists the rules in order, adds a project rule through host IPC and removes it', async () => {
    await openSettingsTab(page, 'Permissions');
    const panel = page.getByRole('region', { name: 'Policy rules' });
    await panel.getByText('run_command: touch always-marker …').waitFor();
    await panel.getByText(/^Built-in rules/).click();
    await panel.getByText('run_command: rm … on the workspace root').waitFor();
    const form = panel.getByRole('form', { name: 'Add a rule' });
    await form.getByLabel('Command and first arguments (exact words)').fill('git push');
    await form.getByLabel('Reason').fill('not from the agent');
    await form.getByRole('button', { name: 'Add rule' }).click();
    await panel.getByText('not from the agent').waitFor();
    const added = host.policy.listing(host.workspace).project?.rules.find((rule) => rule.command === 'git');
    expect(added).toMatchObject({ decision: 'deny', argv_prefix: ['push'], reason: 'not from the agent' });
    await shotAllModes(page, SHOTS, '31-policy-rules');
    await panel.getByRole('button', { name: `Remove rule ${added?.id ?? ''}` }).click();
    await panel.getByText('not from the agent').waitFor({ state: 'detached' });
    expect(host.policy.listing(host.workspace).project?.rules.some((rule) => rule.command === 'git')).toBe(false);
  });

  it('the host audit log shows the host’s own record from host/audit.jsonl: each call, where it was checked, no argument', async () => {
    await openSettingsTab(page, 'Activity');
    const hostLog = page.getByRole('region', { name: 'Host audit log', exact: true });
    await hostLog.getByText('The host’s own record').waitFor();
    const rows = hostLog.getByRole('table', { name: 'Host decisions, newest first' });
    // The always-allowed touch: the sidecar's check and the host's own enforcement, one call allowed by the saved rule.
    await rows
      .getByRole('row')
      .filter({ hasText: 'run_command: touch' })
      .filter({ hasText: 'before the call, and as the host ran it' })
      .filter({ hasText: 'allow' })
      .first()
      .waitFor();
    expect(await rows.textContent()).not.toContain('always-marker');
    // The view reads the host's file: a decision the host records now (and no agent row holds) shows on Refresh.
    new HostAuditLog(host.userData).record(
      { tool: 'host_only_marker', workspace_root: host.workspace },
      { verdict: 'deny', rule_id: 'marker-rule' },
      { stage: 'check' },
    );
    await hostLog.getByRole('button', { name: 'Refresh' }).click();
    await rows
      .locator('tbody tr')
      .first()
      .filter({ hasText: 'host_only_marker' })
      .filter({ hasText: 'marker-rule' })
      .waitFor();
    await hostLog.scrollIntoViewIfNeeded();
    await shotAllModes(page, SHOTS, '33-host-audit-log', hostLog);
  });

  it('the session’s Host record shows the host’s decisions the sidecar reported for this session, and none of another’s', async () => {
    // The real sidecar named this session and its run on each check and command.
    const mine = new HostAuditLog(host.userData).entriesOf(sessionId);
    expect(mine).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          tool: 'run_command',
          command: 'touch',
          stage: 'check',
          run_id: expect.stringMatching(/^run_/),
        }),
        expect.objectContaining({
          tool: 'run_command',
          command: 'touch',
          stage: 'command',
          run_id: expect.stringMatching(/^run_/),
        }),
      ]),
    );
    new HostAuditLog(host.userData).record(
      { tool: 'other_session_marker', workspace_root: host.workspace },
      { verdict: 'none' },
      { stage: 'check', session_id: 'ses_someoneelse' },
    );
    await page.goto(`${host.uiOrigin}/desktop/sessions/${sessionId}`);
    await page.getByRole('button', { name: 'Host record' }).click();
    const dialog = page.getByRole('dialog', { name: 'The host’s record of this session' });
    const rows = dialog.getByRole('table', { name: 'Host decisions, newest first' });
    await rows
      .getByRole('row')
      .filter({ hasText: 'run_command: touch' })
      .filter({ hasText: 'before the call, and as the host ran it' })
      .first()
      .waitFor();
    // The one touch: checked under no rule before the person was asked, then (Always allow saved a
    // rule) checked twice and run under that rule. The like checks and the enforcement are one row.
    expect(mine.map((entry) => [entry.stage, entry.verdict])).toEqual([
      ['check', 'none'],
      ['check', 'allow'],
      ['check', 'allow'],
      ['command', 'allow'],
    ]);
    expect(await rows.locator('tbody tr').count()).toBe(2);
    const text = (await dialog.textContent()) ?? '';
    for (const absent of ['other_session_marker', 'host_only_marker', 'always-marker'])
      expect(text).not.toContain(absent);
    await shotAllModes(page, SHOTS, '34-host-record-dialog');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('the audit log shows the session’s decisions, the command’s name and no argument', async () => {
    await openSettingsTab(page, 'Activity');
    const audit = page.getByRole('region', { name: 'Session audit log (the agent’s record)' });
    await audit.getByText('run_command: touch').waitFor();
    // The session's title (its first message) is in the picker; the rows hold no argument.
    expect(await audit.getByRole('table').textContent()).not.toContain('always-marker');
    await audit.scrollIntoViewIfNeeded();
    await shotAllModes(page, SHOTS, '32-audit-log');
  });

  it('a command the policy asks about is held by the host and asked on the page once, by the host: Allow runs it, Deny refuses it', async () => {
    for (const marker of ['host-asked-marker', 'host-denied-marker']) {
      host.policy.add(
        { kind: 'project', root: host.workspace },
        { decision: 'ask', command: 'touch', argv_prefix: [marker] },
      );
    }
    await page.goto(`${host.uiOrigin}/desktop/sessions/${sessionId}`);
    await sendMessage(page, '$ touch host-asked-marker');
    const hostAsk = page.getByRole('region', { name: 'The host asks' });
    await hostAsk.getByText('touch host-asked-marker').waitFor();
    // One prompt: the host's. The agent shows none of its own, and the command has not run.
    expect(await page.getByRole('region', { name: 'Approval needed' }).count()).toBe(0);
    expect(host.asks.list().asks).toEqual([
      expect.objectContaining({
        tool: 'run_command',
        command: { name: 'touch', args: ['host-asked-marker'], cwd: host.workspace },
        session_id: sessionId,
      }),
    ]);
    expect(existsSync(join(host.workspace, 'host-asked-marker'))).toBe(false);
    // A rule of this project asks: an allow saved beside it would not stop the asking, so none is offered.
    expect(await hostAsk.getByRole('button', { name: 'Always allow…' }).count()).toBe(0);
    await hostAsk.getByText('“Always allow” is not offered').waitFor();
    await shotAllModes(page, SHOTS, '35-host-ask', hostAsk);
    await hostAsk.getByRole('button', { name: 'Allow', exact: true }).click();
    await hostAsk.waitFor({ state: 'detached' });
    await page.locator('[data-testid="tool-status"]').last().filter({ hasText: 'exit 0' }).waitFor();
    expect(existsSync(join(host.workspace, 'host-asked-marker'))).toBe(true);

    await page.locator('button', { hasText: 'Stop' }).waitFor({ state: 'detached' });
    await sendMessage(page, '$ touch host-denied-marker');
    await hostAsk.getByText('touch host-denied-marker').waitFor();
    await hostAsk.getByRole('button', { name: 'Deny' }).click();
    await hostAsk.waitFor({ state: 'detached' });
    await page.locator('[data-testid="tool-status"]').last().filter({ hasText: 'refused' }).waitFor();
    expect(await page.locator('.refusal').last().textContent()).toContain('approval');
    expect(existsSync(join(host.workspace, 'host-denied-marker'))).toBe(false);
    expect(host.asks.list().asks).toEqual([]);
  });

  it('Always allow on the host’s question shows the host’s rule, saves it for this project only, runs the command, and the next identical one runs unasked', async () => {
    // A global rule asks: the project's allow, once saved, decides before it.
    host.policy.add(
      { kind: 'global' },
      { id: 'ask-host-always', decision: 'ask', command: 'touch', argv_prefix: ['host-always-marker'] },
    );
    await page.goto(`${host.uiOrigin}/desktop/sessions/${sessionId}`);
    await page.getByLabel('Message').waitFor();
    await page.locator('button', { hasText: 'Stop' }).waitFor({ state: 'detached' });
    await sendMessage(page, '$ touch host-always-marker');
    const hostAsk = page.getByRole('region', { name: 'The host asks' });
    await hostAsk.getByText('touch host-always-marker').waitFor();
    await hostAsk.getByRole('button', { name: 'Always allow…' }).click();
    const confirm = hostAsk.getByRole('group', { name: 'Always allow' });
    await confirm.getByText('allow run_command · touch host-always-marker …').waitFor();
    await confirm.getByText(host.workspace).waitFor();
    // Shown, not yet saved: the rule is not in policy.json and the command has not run.
    expect(
      host.policy.listing(host.workspace).project?.rules.some((rule) => rule.argv_prefix?.[0] === 'host-always-marker'),
    ).toBe(false);
    expect(existsSync(join(host.workspace, 'host-always-marker'))).toBe(false);
    await shotAllModes(page, SHOTS, '36-host-ask-always-allow', confirm);
    await confirm.getByRole('button', { name: 'Save rule and allow' }).click();
    await hostAsk.waitFor({ state: 'detached' });
    await page.locator('[data-testid="tool-status"]').last().filter({ hasText: 'exit 0' }).waitFor();
    expect(existsSync(join(host.workspace, 'host-always-marker'))).toBe(true);
    expect(host.policy.listing(host.workspace).project?.rules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          decision: 'allow',
          tools: ['run_command'],
          command: 'touch',
          argv_prefix: ['host-always-marker'],
        }),
      ]),
    );
    // Only for this project: elsewhere the global rule still asks.
    const elsewhere = {
      tool: 'run_command',
      workspace_root: '/',
      command: { name: 'touch', args: ['host-always-marker'], cwd: '/' },
    };
    expect(host.policy.evaluate(elsewhere)).toMatchObject({ verdict: 'ask', rule_id: 'ask-host-always' });

    // The same command again: the host holds nothing and asks nobody; it runs.
    rmSync(join(host.workspace, 'host-always-marker'));
    await page.locator('button', { hasText: 'Stop' }).waitFor({ state: 'detached' });
    await sendMessage(page, '$ touch host-always-marker');
    // Nobody answers anything here: a held command would never run, so the marker proves none was held.
    await waitFor(() => existsSync(join(host.workspace, 'host-always-marker')), 30_000, 'the command to run unasked');
    await page.locator('button', { hasText: 'Stop' }).waitFor({ state: 'detached' });
    await page.locator('[data-testid="tool-status"]').last().filter({ hasText: 'exit 0' }).waitFor();
    expect(await hostAsk.count()).toBe(0);
    expect(await page.getByRole('region', { name: 'Approval needed' }).count()).toBe(0);
    expect(host.asks.list().asks).toEqual([]);
  });
});
