/// <reference lib="dom" />
/**
 * The host audit log says how each question the host asked ended, in real Chromium with the real
 * host and sidecar (scripted model): a project rule asks about `touch <marker>`, the host puts each
 * such command to the person on the page ("The host asks"), and the person allows one, denies one
 * and stops the run while a third waits. The host's own log (host/audit.jsonl) then holds each end
 * on a line of its own, with the program's name and no argument, and Settings → Activity → Host
 * audit log shows each call as one row whose "Host asked you" says how it ended and where. Its
 * Session column names the session by its start and short id (never its title, the first prompt,
 * which names the marker), links to it, and says so once the session is deleted.
 * Screenshots (light and dark, 1280 and 420 px) go to test-output/ui/.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Session } from '@bastion/protocol';
import type { ScriptedTurn } from '@bastion/test-support';
import { HostAuditLog } from '../../src/policy/host-audit-log.js';
import type { TempHost } from '../support/temp-host.js';
import { openScriptedDesktopWorld, useDesktopWorld, sendMessage } from './support/desktop-world.js';
import { shotAllModes, SHOTS } from './support/layout.js';
import { openSettingsTab } from './support/settings.js';
import { settleTouch, touchTurns } from './support/touch-turns.js';

const turns: ScriptedTurn[] = [];
let host: TempHost;
let page: Page;
let sessionId: string;

useDesktopWorld(
  () => openScriptedDesktopWorld(turns, 'sk-host-audit-answers-test-key'),
  (opened) => ({ host, page, sessionId } = opened),
);

/** Ask the agent to touch `marker`, which a project rule asks about; resolves once the host's question shows, answerable. */
async function askedAbout(marker: string) {
  host.policy.add(
    { kind: 'project', root: host.workspace },
    { id: `ask-${marker}`, decision: 'ask', command: 'touch', argv_prefix: [marker] },
  );
  turns.push(...touchTurns(marker));
  await sendMessage(page, `Touch ${marker}`);
  const region = page.getByRole('region', { name: 'The host asks' });
  await region.getByText(marker).first().waitFor();
  // Past the question's first moments, when a click answers (UI_APPROVAL_ANSWER_GUARD_MS).
  await expect
    .poll(() => region.getByRole('button', { name: 'Allow', exact: true }).getAttribute('aria-disabled'))
    .not.toBe('true');
  return region;
}

describe('the host audit log says how each of the host’s own questions ended', () => {
  it('Allow, Deny and Stop on the host’s questions are each recorded by the host as approved once, denied and the run stopped, on the page, with no argument', async () => {
    const allowed = await askedAbout('allowed-marker');
    await allowed.getByRole('button', { name: 'Allow', exact: true }).click();
    await settleTouch(page, allowed, 'allowed-marker');
    expect(existsSync(join(host.workspace, 'allowed-marker'))).toBe(true);

    const denied = await askedAbout('denied-marker');
    await denied.getByRole('button', { name: 'Deny', exact: true }).click();
    await settleTouch(page, denied, 'denied-marker');
    expect(existsSync(join(host.workspace, 'denied-marker'))).toBe(false);

    const stopped = await askedAbout('stopped-marker');
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await stopped.waitFor({ state: 'detached' });
    await page.locator('.composer-actions button.danger').waitFor({ state: 'detached' });
    expect(existsSync(join(host.workspace, 'stopped-marker'))).toBe(false);

    const log = new HostAuditLog(host.userData);
    // The host writes the end a moment after the question goes from the page.
    await expect.poll(() => log.entries().filter((entry) => entry.answer !== undefined).length).toBe(3);
    const ends = [
      { marker: 'allowed', answer: { result: 'approved', channel: 'desktop' } },
      { marker: 'denied', answer: { result: 'denied', channel: 'desktop' } },
      { marker: 'stopped', answer: { result: 'run-stopped' } },
    ];
    const answered = log.entries().filter((entry) => entry.answer !== undefined);
    expect(answered.map(({ rule_id, answer }) => ({ rule_id, answer }))).toEqual(
      ends.map(({ marker, answer }) => ({ rule_id: `ask-${marker}-marker`, answer })),
    );
    for (const entry of answered) {
      expect(entry).toMatchObject({ tool: 'run_command', command: 'touch', verdict: 'ask', stage: 'command' });
      expect(entry.session_id).toMatch(/^ses_/);
    }
    // The program's name only: no argument of any call is in the host's log.
    const text = readFileSync(log.path, 'utf8');
    for (const { marker } of ends) expect(text).not.toContain(`"${marker}-marker"`);
  });

  it('Settings → Activity → Host audit log shows each asked call as one row saying how the question ended and where', async () => {
    await openSettingsTab(page, 'Activity');
    const hostLog = page.getByRole('region', { name: 'Host audit log', exact: true });
    const rows = page.getByRole('table', { name: 'Host decisions, newest first' }).locator('tbody tr');
    // One row a call: its two checks, its run and its question's end together.
    await expect.poll(() => rows.count()).toBe(3);
    const cells = async (row: number) =>
      (await rows.nth(row).locator('td').allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim());
    const asked = (row: number) => cells(row).then((texts) => texts.slice(1, 5));
    expect(await asked(0)).toEqual([
      'run_command: touch',
      'ask ask-stopped-marker',
      'before the call, and as the host ran it',
      'The run stopped first',
    ]);
    expect(await asked(1)).toEqual([
      'run_command: touch',
      'ask ask-denied-marker',
      'before the call, and as the host ran it',
      'Denied in the page',
    ]);
    expect(await asked(2)).toEqual([
      'run_command: touch',
      'ask ask-allowed-marker',
      'before the call, and as the host ran it',
      'Approved once in the page',
    ]);
    // The reading notes are folded; opened, they say where the agent's own questions are answered.
    expect(await hostLog.getByText('out of the host’s sight').isVisible()).toBe(false);
    await hostLog.getByText('How to read the rows').click();
    await hostLog.getByText('out of the host’s sight').waitFor();
    await shotAllModes(page, SHOTS, '74-host-audit-answers', hostLog.getByRole('table'));
  });

  it('at 400 × 560 the session’s Host record opens with its newest row’s first lines in view, its reading notes and legend folded', async () => {
    await page.goto(`${host.uiOrigin}/desktop/sessions/${sessionId}`);
    await page.setViewportSize({ width: 400, height: 560 });
    try {
      await page.getByRole('button', { name: /^Options: / }).click();
      await page.locator('.chat-meta').getByRole('button', { name: 'Host record' }).click();
      const dialog = page.getByRole('dialog', { name: 'The host’s record of this session' });
      const newest = dialog.getByRole('table', { name: 'Host decisions, newest first' }).locator('tbody tr').first();
      await newest.waitFor();
      const shown = await dialog.boundingBox();
      const row = await newest.boundingBox();
      // Its first lines at least (when, tool, policy) without scrolling the dialog.
      expect((row?.y ?? 0) + 60).toBeLessThanOrEqual((shown?.y ?? 0) + (shown?.height ?? 0));
      expect(await dialog.getByText('no rule matched', { exact: false }).isVisible()).toBe(false);
      await page.screenshot({ path: `${SHOTS}97-host-record-400x560-light.png` });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.screenshot({ path: `${SHOTS}97-host-record-400x560-dark.png` });
      await page.emulateMedia({ colorScheme: 'light' });
      await page.keyboard.press('Escape');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('the Session column names each call’s session by when it started and a short id, never its title; the link opens the session, and once it is deleted the row says so with no link', async () => {
    const session = (await host.client.request<Session>('GET', `/sessions/${sessionId}`)).body;
    expect(session.title).toContain('allowed-marker');
    const started = await page.evaluate((at) => new Date(at).toLocaleString(), session.created_at);
    const sessionCells = () =>
      page
        .getByRole('table', { name: 'Host decisions, newest first' })
        .locator('tbody td[data-label="Session (as the agent reported)"]');
    await openSettingsTab(page, 'Activity');
    await expect.poll(() => sessionCells().count()).toBe(3);
    await expect
      .poll(() => sessionCells().allTextContents())
      .toEqual(Array(3).fill(`Started ${started} · ${sessionId.slice(0, 10)}`));
    const hostLog = page.getByRole('region', { name: 'Host audit log', exact: true });
    expect(await hostLog.textContent()).not.toContain(session.title);
    await shotAllModes(page, SHOTS, '96-host-audit-session-link', hostLog.getByRole('table'));

    await sessionCells().first().getByRole('link').click();
    await page.waitForURL(`**/desktop/sessions/${sessionId}`);
    await page
      .locator('.chat-head')
      .getByRole('heading', { name: session.title ?? '' })
      .waitFor();

    expect((await host.client.request('DELETE', `/sessions/${sessionId}`)).status).toBe(200);
    await openSettingsTab(page, 'Activity');
    await expect
      .poll(() => sessionCells().allTextContents())
      .toEqual(Array(3).fill(`Deleted session · ${sessionId.slice(0, 10)}`));
    expect(await sessionCells().getByRole('link').count()).toBe(0);
    await shotAllModes(page, SHOTS, '96-host-audit-session-deleted', hostLog.getByRole('table'));
  });
});
