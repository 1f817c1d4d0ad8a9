/// <reference lib="dom" />
/**
 * The approval card and the message box while a question waits, in real Chromium with the real
 * host and sidecar (scripted model). What is typed in the box while an approval waits is queued
 * as the next message, and the box and the queued line say so (it never answers: the type-ahead
 * guard); the queued message can be edited or cancelled. Esc in the "Always allow…" step closes
 * the step only, in the agent's prompt and in the host's own question; opening the step puts focus
 * on its Save, which a held Enter cannot reach in the step's first moments. In a short, narrow
 * window a long command scrolls inside the card while its heading, Reason, Allow and Deny stay in view.
 * Esc in the Reason field (or another text field than the message box) is the field's: the run
 * goes on and the approval still waits; Esc elsewhere still stops the run. At 400×560 the header is
 * one line and the transcript keeps a stated share of the height, with an approval waiting and
 * without, while the whole waiting card (question, Reason field, answers) shows without scrolling.
 * Screenshots go to test-output/ui/.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { UI_APPROVAL_ANSWER_GUARD_MS, type Session } from '@bastion/protocol';
import type { ScriptedTurn } from '@bastion/test-support';
import type { TempHost } from '../support/temp-host.js';
import { openScriptedDesktopWorld, useDesktopWorld, sendMessage } from './support/desktop-world.js';
import { expectInViewport, expectUncoveredInView, shotAllModes, SHOTS } from './support/layout.js';
import { settleTouch, touchTurns } from './support/touch-turns.js';

const turns: ScriptedTurn[] = [];
let host: TempHost;
let page: Page;
let sessionId: string;

useDesktopWorld(
  () => openScriptedDesktopWorld(turns, 'sk-approval-card-test-key'),
  (opened) => ({ host, page, sessionId } = opened),
);

/** Whether the daemon holds an approval of the session that can still be answered. */
async function approvalPending(): Promise<boolean> {
  return (await host.client.request<Session>('GET', `/sessions/${sessionId}`)).body.approval_pending;
}

/** The text of the element that has focus, or `<body>` when none has. */
function focusedName(): Promise<string> {
  return page.evaluate(() =>
    document.activeElement === document.body ? '<body>' : (document.activeElement?.textContent ?? ''),
  );
}

/**
 * Whether the field's placeholder begins with `start` (all of it when not given) and that much of
 * it fits the field's box, measured in the field's own font: shown, not cut.
 */
function placeholderFits(field: Locator, start?: string): Promise<boolean> {
  return field.evaluate((box: HTMLInputElement | HTMLTextAreaElement, prefix) => {
    const style = getComputedStyle(box);
    const context = document.createElement('canvas').getContext('2d');
    if (!context) return false;
    context.font = `${style.fontSize} ${style.fontFamily}`;
    const room = box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const shown = prefix ?? box.placeholder;
    return shown !== '' && box.placeholder.startsWith(shown) && context.measureText(shown).width <= room;
  }, start);
}

describe('the message box while an approval waits', () => {
  it('"yes" and Enter typed while an approval waits is queued as the next message, said not to be an answer; the approval still waits; Edit puts it back, Cancel drops it, and nothing is sent after Deny', async () => {
    const marker = 'queued-yes';
    turns.push(...touchTurns(marker));
    await sendMessage(page, `Touch ${marker}`);
    const region = page.getByRole('region', { name: 'Approval needed' });
    await region.getByText(`touch ${marker}`).waitFor();
    const composer = page.getByLabel('Message');
    expect(await composer.getAttribute('placeholder')).toBe(
      'Not an answer: queued as your next message · Allow or Deny above (Alt+Shift+A)',
    );
    await composer.focus();
    await page.keyboard.type('yes');
    await page
      .getByText(
        'Enter queues this as your next message, sent once this run finishes; it does not answer the approval. To answer, choose Allow or Deny above (Alt+Shift+A goes there).',
      )
      .waitFor();
    await page.keyboard.press('Enter');
    const queued = page.getByRole('status', { name: 'Queued' });
    await queued.getByText('Queued, not an answer: sent as your next message when this run finishes:').waitFor();
    expect(await queued.locator('.queued-text').textContent()).toBe('yes');
    expect(await composer.inputValue()).toBe('');
    // Still waiting: the card is there and the command has not run.
    expect(await region.count()).toBe(1);
    expect(existsSync(join(host.workspace, marker))).toBe(false);
    await shotAllModes(page, SHOTS, '64-queued-while-approval-waits', region);

    await queued.getByRole('button', { name: 'Edit' }).click();
    await queued.waitFor({ state: 'detached' });
    expect(await composer.inputValue()).toBe('yes');
    await composer.press('Enter');
    await queued.waitFor();
    await queued.getByRole('button', { name: 'Cancel' }).click();
    await queued.waitFor({ state: 'detached' });
    expect(await composer.inputValue()).toBe('');

    await region.getByRole('button', { name: 'Deny' }).click();
    await settleTouch(page, region, marker);
    expect(await page.getByTestId('user-bubble').allTextContents()).toEqual([`Touch ${marker}`]);
    expect(existsSync(join(host.workspace, marker))).toBe(false);
  });
});

/** The agent's prompt, or the host's own question (a global `ask` rule, so the project's allow may be saved). */
const PROMPTS = [
  { who: 'the agent’s approval prompt', region: 'Approval needed', hostRule: false },
  { who: 'the host’s own question', region: 'The host asks', hostRule: true },
] as const;

describe('the "Always allow…" step', () => {
  for (const prompt of PROMPTS) {
    it(`on ${prompt.who}, the message box's hint saying it is not an answer, the session listed and the tab titled as needing approval: opening it focuses Save rule and allow, set apart from the rule above it; Esc closes it only (the question still waits, the run not stopped) and gives focus back to Always allow…`, async () => {
      const marker = `esc-in-step-${prompt.hostRule ? 'host' : 'agent'}`;
      if (prompt.hostRule) {
        host.policy.add({ kind: 'global' }, { decision: 'ask', command: 'touch', argv_prefix: [marker] });
      }
      turns.push(...touchTurns(marker));
      await sendMessage(page, `Touch ${marker}`);
      const region = page.getByRole('region', { name: prompt.region });
      await region.getByText(`touch ${marker}`).waitFor();
      // The message box says typing there answers neither question, the agent's nor the host's.
      expect(await page.getByLabel('Message').getAttribute('placeholder')).toMatch(/^Not an answer: /);
      // And the session list and the tab's title say an approval is needed, whichever asks.
      await page.locator('li.session.selected').getByText('needs approval').waitFor();
      await expect.poll(() => page.title()).toMatch(/^Approval needed · /);
      await region.getByRole('button', { name: 'Always allow…' }).click();
      const step = region.getByRole('group', { name: 'Always allow' });
      await step.waitFor();
      expect(await focusedName()).toBe('Save rule and allow');
      // Save stands apart from the rule's last line above it (they touched).
      const ruleLine = await step.locator('p').last().boundingBox();
      const save = await step.getByRole('button', { name: 'Save rule and allow' }).boundingBox();
      expect((save?.y ?? 0) - ((ruleLine?.y ?? 0) + (ruleLine?.height ?? 0))).toBeGreaterThanOrEqual(4);
      await shotAllModes(page, SHOTS, `65-always-allow-focus-${prompt.hostRule ? 'host' : 'agent'}`, step);

      await page.keyboard.press('Escape');
      await step.waitFor({ state: 'detached' });
      expect(await focusedName()).toBe('Always allow…');
      // Long enough for a stop the key started to have ended the run.
      await page.waitForTimeout(1_000);
      expect(await region.count()).toBe(1);
      expect(await page.locator('.composer-actions button.danger').count()).toBe(1);
      expect(await page.locator('span.stopped').count()).toBe(0);
      expect(existsSync(join(host.workspace, marker))).toBe(false);

      await region.getByRole('button', { name: 'Deny' }).click();
      await settleTouch(page, region, marker);
      expect(existsSync(join(host.workspace, marker))).toBe(false);
    });
  }

  it(`Enter on Always allow… pressed again at once (a held key) does not save the rule: Save waits ${UI_APPROVAL_ANSWER_GUARD_MS} ms like the answers`, async () => {
    const marker = 'held-enter';
    turns.push(...touchTurns(marker));
    await sendMessage(page, `Touch ${marker}`);
    const region = page.getByRole('region', { name: 'Approval needed' });
    await region.getByText(`touch ${marker}`).waitFor();
    const always = region.getByRole('button', { name: 'Always allow…' });
    // Past the question's own guard, so the first Enter opens the step.
    await expect.poll(() => always.getAttribute('aria-disabled')).toBeNull();
    await always.focus();
    // The key's auto-repeat: keydowns in quick succession, the later ones landing on Save.
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    const step = region.getByRole('group', { name: 'Always allow' });
    await step.waitFor();
    await page.waitForTimeout(1_000);
    expect(await region.count()).toBe(1);
    expect(existsSync(join(host.workspace, marker))).toBe(false);
    expect(
      host.policy.listing(host.workspace).project?.rules.some((rule) => rule.argv_prefix?.[0] === marker) ?? false,
    ).toBe(false);
    await step.getByRole('button', { name: 'Cancel' }).click();
    await region.getByRole('button', { name: 'Deny' }).click();
    await settleTouch(page, region, marker);
  });
});

describe('a long command in a short, narrow window', () => {
  it('at 400×560, a command of 3,000 characters scrolls inside the card: its heading, Allow, Deny and the Reason field stay in view and uncovered, the card takes at most 40% of the height, and the transcript keeps some; so does Save in the "Always allow…" step', async () => {
    const marker = 'long-command';
    const script = `echo ${'x'.repeat(3_000)} && touch ${marker}`;
    turns.push(
      { kind: 'tool-call', name: 'run_command', input: { command: 'sh', args: ['-c', script] } },
      { kind: 'text', pieces: [`Done with ${marker}.`] },
    );
    await page.setViewportSize({ width: 400, height: 560 });
    try {
      await sendMessage(page, `Touch ${marker}`);
      const region = page.getByRole('region', { name: 'Approval needed' });
      await region.locator('.approval-command').waitFor();
      await expectUncoveredInView(page, region.getByRole('heading'), 'the heading');
      await expectUncoveredInView(page, region.getByRole('button', { name: 'Allow', exact: true }), 'Allow');
      await expectUncoveredInView(page, region.getByRole('button', { name: 'Deny' }), 'Deny');
      await expectUncoveredInView(page, region.getByLabel('Reason if you deny'), 'the Reason field');
      const card = await region.boundingBox();
      expect(card?.height).toBeLessThanOrEqual(560 * 0.4 + 0.5);
      const transcript = await page.locator('.transcript-scroll').boundingBox();
      expect(transcript?.height).toBeGreaterThan(40);
      // The command is longer than the card: its body scrolls, and the last words can be reached.
      const body = region.locator('.approval-body');
      expect(await body.evaluate((element) => element.scrollHeight > element.clientHeight)).toBe(true);
      await page.screenshot({ path: `${SHOTS}66-long-command-400x560-light.png` });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.screenshot({ path: `${SHOTS}66-long-command-400x560-dark.png` });
      await page.emulateMedia({ colorScheme: 'light' });

      await region.getByRole('button', { name: 'Always allow…' }).click();
      const save = region.getByRole('button', { name: 'Save rule and allow' });
      await expectUncoveredInView(page, save, 'Save rule and allow');
      await expectUncoveredInView(page, region.getByRole('button', { name: 'Deny' }), 'Deny, the step open');
      await page.screenshot({ path: `${SHOTS}66-long-command-always-allow-400x560.png` });
      await page.keyboard.press('Escape');

      await page.setViewportSize({ width: 1400, height: 900 });
      await expectUncoveredInView(page, region.getByRole('button', { name: 'Deny' }), 'Deny at 1400 px');
      await page.screenshot({ path: `${SHOTS}66-long-command-1400.png` });
      await region.getByRole('button', { name: 'Deny' }).click();
      await settleTouch(page, region, marker);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });
});

describe('Esc in a text field while an approval waits', () => {
  it('Esc in the Reason field empties it, then leaves it for the card: the run goes on and the daemon still holds the approval; Esc in the session search does not stop it either; Esc on the card then stops the run', async () => {
    const marker = 'esc-in-reason';
    // Only the call: the run is stopped at its question, so the model is not asked for a reply.
    turns.push(...touchTurns(marker).slice(0, 1));
    await sendMessage(page, `Touch ${marker}`);
    const region = page.getByRole('region', { name: 'Approval needed' });
    await region.getByText(`touch ${marker}`).waitFor();
    const reason = region.getByLabel('Reason if you deny');
    await reason.fill('not now');
    // The card is a callout, a bar at its left: no whole border in the focus ring's colour, which
    // read as a second focused thing beside the field.
    const ring = await reason.evaluate((element) => getComputedStyle(element).outlineColor);
    const card = await region.evaluate((element) => {
      const style = getComputedStyle(element);
      return [style.borderTopColor, style.borderRightColor, style.borderBottomColor];
    });
    expect(card).not.toContain(ring);
    await shotAllModes(page, SHOTS, '93-approval-reason', region);
    await reason.press('Escape');
    expect(await reason.inputValue()).toBe('');
    expect(await reason.evaluate((element) => element === document.activeElement)).toBe(true);
    await reason.press('Escape');
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe('Approval needed');
    await page.getByLabel('Search sessions by title, prompt or reply').press('Escape');
    // Long enough for a stop either key started to have ended the run.
    await page.waitForTimeout(1_000);
    expect(await region.count()).toBe(1);
    expect(await page.locator('.composer-actions button.danger').count()).toBe(1);
    expect(await page.locator('span.stopped').count()).toBe(0);
    expect(await approvalPending()).toBe(true);

    await region.focus();
    await page.keyboard.press('Escape');
    await region.waitFor({ state: 'detached' });
    await page.getByTestId('run-end').last().getByText('Stopped').waitFor();
    expect(await approvalPending()).toBe(false);
    expect(existsSync(join(host.workspace, marker))).toBe(false);
  });
});

describe('the transcript’s share of a short, narrow window', () => {
  /** The transcript's height as a share of the window's. */
  const transcriptShare = () =>
    page.evaluate(
      () => (document.querySelector('.transcript-scroll')?.getBoundingClientRect().height ?? 0) / window.innerHeight,
    );

  /** Fails unless the title and Options are the header's one line and the message box is wholly in view. */
  async function expectCompactHeader(): Promise<void> {
    const head = page.locator('.chat-head');
    const title = await head.getByRole('heading', { level: 1 }).boundingBox();
    const options = await head.getByRole('button', { name: /^Options: / }).boundingBox();
    expect(
      Math.abs((title?.y ?? 0) + (title?.height ?? 0) / 2 - ((options?.y ?? 0) + (options?.height ?? 0) / 2)),
    ).toBeLessThan(4);
    expect(await head.getByRole('button', { name: 'Export' }).isVisible()).toBe(false);
    await expectInViewport(page, page.getByLabel('Message'), 'the message box');
  }

  it('at 400×560 the header is one line, the title and Options (the rest folded under it): the transcript gets at least a quarter of the height with an approval waiting and 70% without, the message box stays wholly in view, and the waiting card’s heading, command, Reason field, Allow, Deny and Always allow… are each wholly in view and uncovered, the box’s hint begins with “Not an answer”, shown whole, and so are the Reason field’s placeholder and the waiting line with its key (Alt+Shift+A to answer)', async () => {
    const marker = 'share-of-height';
    turns.push(...touchTurns(marker));
    await page.setViewportSize({ width: 400, height: 560 });
    try {
      await sendMessage(page, `Touch ${marker}`);
      const region = page.getByRole('region', { name: 'Approval needed' });
      await region.getByText(`touch ${marker}`).waitFor();
      await expectCompactHeader();
      expect(await transcriptShare()).toBeGreaterThanOrEqual(0.25);
      // The whole question shows without scrolling anything: what is asked, the Reason field and the answers.
      for (const [what, part] of [
        ['the heading', region.getByRole('heading')],
        ['the command', region.locator('.approval-command')],
        ['the Reason field', region.getByLabel('Reason if you deny')],
        ['Allow', region.getByRole('button', { name: 'Allow', exact: true })],
        ['Deny', region.getByRole('button', { name: 'Deny' })],
        ['Always allow…', region.getByRole('button', { name: 'Always allow…' })],
      ] as const) {
        await expectUncoveredInView(page, part, what);
      }
      // The message box's hint fits the box: its first words, that typing is no answer, still show.
      expect(await placeholderFits(page.getByLabel('Message'), 'Not an answer')).toBe(true);
      // The Reason field's placeholder and the line saying a question waits (with its key) show whole.
      expect(await placeholderFits(region.getByLabel('Reason if you deny'))).toBe(true);
      const activity = page.getByTestId('activity');
      expect(await activity.textContent()).toBe('Waiting for your approval · Alt+Shift+A to answer');
      expect(await activity.evaluate((line) => line.scrollWidth <= line.clientWidth)).toBe(true);
      await page.screenshot({ path: `${SHOTS}95-compact-header-approval-400x560-light.png` });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.screenshot({ path: `${SHOTS}95-compact-header-approval-400x560-dark.png` });
      await page.emulateMedia({ colorScheme: 'light' });

      await region.getByRole('button', { name: 'Deny' }).click();
      await settleTouch(page, region, marker);
      await expectCompactHeader();
      expect(await transcriptShare()).toBeGreaterThanOrEqual(0.7);
      await page.screenshot({ path: `${SHOTS}95-compact-header-400x560-light.png` });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.screenshot({ path: `${SHOTS}95-compact-header-400x560-dark.png` });
      await page.emulateMedia({ colorScheme: 'light' });
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });
});
