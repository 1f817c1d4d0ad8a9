/// <reference lib="dom" />
/**
 * The frame around a session's transcript, in real Chromium against the real host and a scripted
 * endpoint: the header keeps its height as the session's token counts grow (at 1280 px its line
 * of model, usage, context, Export, Changes and Host record wrapped once the numbers were long,
 * pushing Host record onto a line of its own and the transcript down mid-session), and at 400 px,
 * opened under Options, wraps them instead of scrolling sideways; on a 1920 px window the message
 * box sits in the transcript's column, not across the whole pane; and the box's hint is shown
 * whole at 400 px (a shorter one there), the full one where it fits. The tests share one session,
 * in order. Screenshots (light and dark) go to test-output/ui/.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { CONTEXT_WINDOW_MAX_TOKENS } from '@bastion/protocol';
import type { ScriptedTurn, ScriptedUsage } from '@bastion/test-support';
import { openScriptedDesktopWorld, sendMessage, useDesktopWorld } from './support/desktop-world.js';
import { expectNoHorizontalOverflow, shotAllModes, SHOTS } from './support/layout.js';

const SETTLED = { timeout: 20_000 };
const WIDE = { width: 1280, height: 800 };
const NARROW = { width: 400, height: 560 };

const turns: ScriptedTurn[] = [];
let page: Page;

// The largest window an endpoint may declare, so a long session's counts stay under the share that summarises.
useDesktopWorld(
  () => openScriptedDesktopWorld(turns, 'sk-ui-session-frame-key', { context_window: CONTEXT_WINDOW_MAX_TOKENS }),
  (opened) => {
    ({ page } = opened);
  },
);

/** Sends `message`, the model answering `reply` (reporting `usage` when given), and waits for the run's end. */
async function run(message: string, reply: string, usage?: ScriptedUsage): Promise<void> {
  const ends = await page.getByTestId('run-end').count();
  turns.push({ kind: 'text', pieces: [reply], ...(usage && { usage }) });
  await sendMessage(page, message);
  await page.getByTestId('run-end').nth(ends).waitFor(SETTLED);
}

/** The header's height, and the tops of its Export and Host record buttons. */
const header = () =>
  page.locator('.chat-head').evaluate((head) => {
    const top = (name: string) =>
      Array.from(head.querySelectorAll('button'))
        .find((button) => button.textContent === name)
        ?.getBoundingClientRect().top;
    return { height: head.getBoundingClientRect().height, export: top('Export'), hostRecord: top('Host record') };
  });

/** The hint the message box shows, its width in the box's font, and the width the box has for text. */
const placeholderFit = () =>
  page.getByRole('combobox', { name: 'Message' }).evaluate((box: HTMLTextAreaElement) => {
    const style = getComputedStyle(box);
    const context = document.createElement('canvas').getContext('2d')!;
    context.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    return {
      placeholder: box.placeholder,
      text: context.measureText(box.placeholder).width,
      room: box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight),
    };
  });

describe('the frame around a session’s transcript', () => {
  it('at 1280 px the header is as tall with a long session’s counts (millions of tokens in, out and cached) as with a short one’s, Host record on the line of Export', async () => {
    await run('Say little', 'Short.');
    const short = await header();
    await run('Say a lot', 'Long.', { promptTokens: 6_543_210, completionTokens: 987_654, cachedTokens: 6_012_345 });
    const usage = page.locator('.chat-head').getByTestId('usage');
    await expect
      .poll(() => usage.textContent())
      .toMatch(/^Session: 6,543,\d{3} in · 987,\d{3} out · 6,012,\d{3} cached/);
    await expect.poll(() => page.getByTestId('context-meter').textContent()).toMatch(/75% of 10M$/);
    const long = await header();
    expect(long).toEqual(short);
    expect(long.hostRecord).toBe(long.export);
    await shotAllModes(page, SHOTS, 'session-frame-header', undefined, [WIDE, NARROW]);
    // At 400 px, opened under Options, the counts wrap rather than scroll the page sideways.
    await page.setViewportSize(NARROW);
    const options = page.getByRole('button', { name: /^Options:/ });
    try {
      await options.click();
      await expectNoHorizontalOverflow(page);
      await shotAllModes(page, SHOTS, 'session-frame-header-options', undefined, [NARROW]);
    } finally {
      await options.click();
      await page.setViewportSize(WIDE);
    }
  });

  it('on a 1920 px window the message box’s edges are the transcript column’s, not the pane’s', async () => {
    await page.setViewportSize({ width: 1920, height: 1080 });
    try {
      const edges = await page.evaluate(() => {
        const column = document.querySelector('.transcript')!.getBoundingClientRect();
        const form = document.querySelector('form.composer')!;
        const style = getComputedStyle(form);
        const box = form.getBoundingClientRect();
        return {
          column: [column.left, column.right],
          composer: [box.left + parseFloat(style.paddingLeft), box.right - parseFloat(style.paddingRight)],
        };
      });
      expect(edges.composer).toEqual(edges.column);
      await shotAllModes(page, SHOTS, 'session-frame-composer-1920', undefined, [{ width: 1920, height: 1080 }]);
    } finally {
      await page.setViewportSize(WIDE);
    }
  });

  it('the message box’s hint fits in the box at 400 px (a shorter one), idle, while a run goes and while an approval waits; at 1280 px it is the full one', async () => {
    const hints: Record<string, { wide: string; narrow: string }> = {};
    const look = async (state: string) => {
      await page.setViewportSize(NARROW);
      try {
        await expect
          .poll(async () => {
            const fit = await placeholderFit();
            return fit.text <= fit.room ? 'fits' : JSON.stringify(fit);
          })
          .toBe('fits');
        const narrow = (await placeholderFit()).placeholder;
        if (state === 'idle') await shotAllModes(page, SHOTS, 'session-frame-placeholder', undefined, [NARROW, WIDE]);
        await page.setViewportSize(WIDE);
        await expect.poll(async () => (await placeholderFit()).placeholder).not.toBe(narrow);
        hints[state] = { wide: (await placeholderFit()).placeholder, narrow };
      } finally {
        await page.setViewportSize(WIDE);
      }
    };
    await look('idle');

    let release = () => {};
    turns.push({ kind: 'text', pieces: ['Held.'], hold: new Promise<void>((resolve) => (release = resolve)) });
    await sendMessage(page, 'Wait a moment');
    await expect.poll(async () => (await placeholderFit()).placeholder).toMatch(/^Next message/);
    await look('running');
    release();
    await page.locator('.bubble.assistant', { hasText: 'Held.' }).waitFor(SETTLED);

    await page.getByLabel('Ask before file edits').check();
    turns.push(
      { kind: 'tool-call', name: 'write_file', input: { path: 'asked.txt', content: 'one\n' } },
      { kind: 'text', pieces: ['Not written.'] },
    );
    await sendMessage(page, 'Write asked.txt');
    const approval = page.getByRole('region', { name: 'Approval needed' });
    await approval.waitFor(SETTLED);
    await look('asked');
    const deny = approval.getByRole('button', { name: 'Deny', exact: true });
    await expect.poll(() => deny.getAttribute('aria-disabled')).toBeNull();
    await deny.click();
    await page.locator('.bubble.assistant', { hasText: 'Not written.' }).waitFor(SETTLED);
    await page.getByLabel('Ask before file edits').uncheck();

    expect(hints).toEqual({
      idle: { wide: 'Ask the agent… (@ for files, / for commands)', narrow: 'Ask the agent…' },
      running: {
        wide: 'Next message… (Enter queues it for when this run finishes)',
        narrow: 'Next message…',
      },
      asked: {
        wide: 'Not an answer: queued as your next message · Allow or Deny above (Alt+Shift+A)',
        narrow: 'Not an answer',
      },
    });
  });
});
