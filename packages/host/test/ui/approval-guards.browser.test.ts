/// <reference lib="dom" />
/**
 * The approval questions against keys and clicks aimed elsewhere, and against a command that
 * reads as another, in real Chromium with the real host and sidecar (scripted model): a person
 * typing their next message on while the agent's question, or the host's own (a project `ask`
 * rule), appears keeps typing into the message box and answers nothing; a click on Allow in the
 * question's first moments does nothing, one after them answers; an argv with a newline after a
 * `#`, an argument with spaces and a right-to-left override shows each argument as one shell word
 * with `\n` and `\u202e` spelled out, in both prompts and on the tool card. Screenshots (light and
 * dark, 1280 and 420 px) go to test-output/ui/.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { UI_APPROVAL_ANSWER_GUARD_MS } from '@bastion/protocol';
import type { ScriptedTurn } from '@bastion/test-support';
import type { TempHost } from '../support/temp-host.js';
import { openScriptedDesktopWorld, useDesktopWorld, sendMessage } from './support/desktop-world.js';
import { shotAllModes, SHOTS } from './support/layout.js';
import { settleTouch, touchTurns } from './support/touch-turns.js';

/** How long typing goes on after the question shows: well past the guard, so a key that reached Allow would answer. */
const TYPING_AFTER_SHOWN_MS = 1_500;

const turns: ScriptedTurn[] = [];
let host: TempHost;
let page: Page;

useDesktopWorld(
  () => openScriptedDesktopWorld(turns, 'sk-approval-guards-test-key'),
  (opened) => ({ host, page } = opened),
);

/** The agent's question, or the host's own one (a project rule asks about `touch <marker>`). */
const PROMPTS = [
  { who: 'the agent’s approval prompt', region: 'Approval needed', hostRule: false },
  { who: 'the host’s own question', region: 'The host asks', hostRule: true },
] as const;

describe('a question that appears while the person types does not take their keys', () => {
  for (const prompt of PROMPTS) {
    it(`typing on into the message box while ${prompt.who} appears: the typed text stays in the box, no allow answer, the command’s file not made`, async () => {
      const marker = `typed-ahead-${prompt.hostRule ? 'host' : 'agent'}`;
      if (prompt.hostRule) {
        host.policy.add(
          { kind: 'project', root: host.workspace },
          { decision: 'ask', command: 'touch', argv_prefix: [marker] },
        );
      }
      turns.push(...touchTurns(marker));
      const recordsBefore = host.records.length;
      await sendMessage(page, `Touch ${marker}`);
      const composer = page.getByLabel('Message');
      const region = page.getByRole('region', { name: prompt.region });
      // The sent message has left the box (the question may show any moment now, or already has
      // on a loaded machine: focus must stay in the box either way).
      await expect.poll(() => composer.inputValue()).toBe('');
      // Keys as a person types them (spaces among them: a space on a focused Allow would answer it).
      let typed = '';
      let shownAt: number | undefined;
      while (shownAt === undefined || Date.now() - shownAt < TYPING_AFTER_SHOWN_MS) {
        await page.keyboard.type('next ', { delay: 10 });
        typed += 'next ';
        if (shownAt === undefined && (await region.count()) > 0) shownAt = Date.now();
      }
      expect(await composer.inputValue()).toBe(typed);
      expect(await region.getByText(`touch ${marker}`).count()).toBe(1);
      expect(existsSync(join(host.workspace, marker))).toBe(false);
      expect(host.records.slice(recordsBefore).filter((record) => record.event === 'ask.answered')).toEqual([]);
      if (prompt.hostRule) {
        expect(host.asks.list().asks).toEqual([
          expect.objectContaining({ command: expect.objectContaining({ args: [marker] }) }),
        ]);
      }
      await shotAllModes(page, SHOTS, `37-type-ahead-${prompt.hostRule ? 'host' : 'agent'}`, region);
      await region.getByRole('button', { name: 'Deny' }).click();
      await settleTouch(page, region, marker);
      expect(existsSync(join(host.workspace, marker))).toBe(false);
      await composer.fill('');
    });
  }
});

describe('a click in the question’s first moments does not answer it', () => {
  for (const prompt of PROMPTS) {
    it(`Allow on ${prompt.who} clicked as it shows and within ${UI_APPROVAL_ANSWER_GUARD_MS} ms does nothing; clicked after that, it runs the command`, async () => {
      const marker = `early-click-${prompt.hostRule ? 'host' : 'agent'}`;
      if (prompt.hostRule) {
        host.policy.add(
          { kind: 'project', root: host.workspace },
          { decision: 'ask', command: 'touch', argv_prefix: [marker] },
        );
      }
      turns.push(...touchTurns(marker));
      // In the page: Allow clicked the moment it is in the DOM, and again 150 and 300 ms later.
      await page.evaluate((regionName) => {
        const clicks: number[] = [];
        (window as unknown as { earlyClicks: number[] }).earlyClicks = clicks;
        const observer = new MutationObserver(() => {
          const region = document.querySelector(`section[aria-label="${regionName}"]`);
          const buttons: HTMLButtonElement[] = region ? Array.from(region.querySelectorAll('button')) : [];
          const allow = buttons.find((button) => button.textContent === 'Allow');
          if (!allow) return;
          observer.disconnect();
          const shown = performance.now();
          for (const after of [0, 150, 300]) {
            window.setTimeout(() => {
              clicks.push(performance.now() - shown);
              allow.click();
            }, after);
          }
        });
        observer.observe(document.body, { childList: true, subtree: true });
      }, prompt.region);
      await sendMessage(page, `Touch ${marker}`);
      const region = page.getByRole('region', { name: prompt.region });
      await region.getByText(`touch ${marker}`).waitFor();
      await expect
        .poll(() => page.evaluate(() => (window as unknown as { earlyClicks: number[] }).earlyClicks.length))
        .toBe(3);
      const clickedAfter = await page.evaluate(() => (window as unknown as { earlyClicks: number[] }).earlyClicks);
      expect(Math.max(...clickedAfter)).toBeLessThan(UI_APPROVAL_ANSWER_GUARD_MS);
      // Long enough for an answer the clicks gave to have been acted on.
      await page.waitForTimeout(1_000);
      expect(await region.count()).toBe(1);
      expect(existsSync(join(host.workspace, marker))).toBe(false);
      if (prompt.hostRule) expect(host.asks.list().asks).toHaveLength(1);
      // After the window: a click answers.
      await region.getByRole('button', { name: 'Allow', exact: true }).click();
      await settleTouch(page, region, marker);
      expect(existsSync(join(host.workspace, marker))).toBe(true);
    });
  }
});

describe('the command shown is the command run', () => {
  const script = 'echo checking build #\ntouch deceptive-marker';
  const argv = ['sh', '-c', script, 'name with spaces', 'report\u202etxt.sh'];
  const words = [
    'sh',
    '-c',
    "$'echo checking build #\\ntouch deceptive-marker'",
    "'name with spaces'",
    "$'report\\u202etxt.sh'",
  ];
  const line = words.join(' ');

  for (const prompt of PROMPTS) {
    it(`${prompt.who} and the tool card show a newline as \\n, an argument with spaces as one quoted word, U+202E as \\u202e`, async () => {
      if (prompt.hostRule) {
        host.policy.add({ kind: 'project', root: host.workspace }, { decision: 'ask', command: 'sh' });
      }
      turns.push(
        { kind: 'tool-call', name: 'run_command', input: { command: argv[0], args: argv.slice(1) } },
        { kind: 'text', pieces: ['Left it.'] },
      );
      await sendMessage(page, 'Check the build');
      const region = page.getByRole('region', { name: prompt.region });
      const shown = region.locator('.approval-command');
      await shown.waitFor();
      expect(await shown.textContent()).toBe(line);
      expect(await shown.locator('.command-word').allTextContents()).toEqual(words);
      const card = page.getByRole('article', { name: 'Tool run_command' }).last();
      expect(await card.locator('.tool-fields .command-word').allTextContents()).toEqual(words);
      expect(await card.locator('.tool-subject').textContent()).toBe(line);
      // Nothing of the script reads as a line of its own, and no override reorders the text.
      const rendered = (await region.textContent()) ?? '';
      expect(rendered).not.toMatch(/[\n\u202e]/);
      await shotAllModes(page, SHOTS, `38-argv-shown-${prompt.hostRule ? 'host' : 'agent'}`, region);
      await region.getByRole('button', { name: 'Deny' }).click();
      await region.waitFor({ state: 'detached' });
      await page.getByText('Left it.').last().waitFor();
      await page.locator('.composer-actions button.danger').waitFor({ state: 'detached' });
      expect(existsSync(join(host.workspace, 'deceptive-marker'))).toBe(false);
    });
  }
});
