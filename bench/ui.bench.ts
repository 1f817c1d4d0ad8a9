/// <reference lib="dom" />
/**
 * Issue 17: the desktop UI with a long session, in real Chromium (playwright-core) against the
 * real host and sidecar. A session of about 10 000 transcript parts (prompts, replies, tool calls
 * and results) is written to sessions.db, then:
 *  - first paint of the newest messages: from navigation start until the newest prompt is in the
 *    DOM, against rendering the same parts as plain text (one element each) in the same page;
 *  - scroll frame time (p95) over 120 frames of scrolling the transcript, against scrolling the
 *    plain-text rendering;
 *  - the longest main-thread task while a loopback endpoint streams about 1 000 text deltas a
 *    second into the session, against appending the same number of text nodes at the same rate.
 * Targets: first paint ≤ 300 ms; no long task over 100 ms while streaming.
 */
import { join } from 'node:path';
import { figure, median, percentile, type Benchmark } from './harness.js';
import { launchChromium, openDesktop } from '../packages/host/test/ui/support/browser.js';
import { seedLongSession } from '../packages/host/test/ui/support/long-session.js';
import {
  defineScriptedProvider,
  SCRIPTED_MODEL,
  startScriptedEndpoint,
  type ScriptedTurn,
} from '../packages/host/test/support/scripted-chat-endpoint.js';
import { makeTempDir, removeTempDirs, startTempHost } from '../packages/host/test/support/temp-host.js';

/** 2 858 turns of 3 parts, every fourth with 2 more: 10 003 parts. */
const TURNS = 2_858;
const PAINT_RUNS = 5;
const SCROLL_FRAMES = 120;
const STREAM_PIECES = 5_000;
/** Deltas a second the endpoint sends (the 1 000 events/s); the figure names the rate the page saw. */
const STREAM_RATE = 1_000;

interface PaintWindow {
  __bastionFirstPaint?: number;
}

/** The text each part shows, for the plain-text rendering. */
function plainParts(turns: number): string[] {
  const lines: string[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    lines.push(`prompt ${turn}`, `reply ${turn}`);
    if (turn % 4 === 0) lines.push('run_command ls -la', `file-${turn}.txt`);
    lines.push('—');
  }
  return lines;
}

export const uiBenchmark: Benchmark = {
  id: 'ui',
  title: 'desktop UI: open and scroll a 10 000-part session, stream 1 000 events/s (Chromium) vs plain text',
  async run() {
    const userData = join(makeTempDir('bastion-bench-ui-'), 'home');
    const { sessionId, parts } = seedLongSession(userData, TURNS);
    const turns: ScriptedTurn[] = [];
    const endpoint = await startScriptedEndpoint(turns);
    const [browser, host] = await Promise.all([
      launchChromium(),
      startTempHost({ userData, allowEndpoints: [endpoint.baseUrl] }),
    ]);
    try {
      await defineScriptedProvider(host, endpoint, 'sk-bench-ui');
      const { context, page } = await openDesktop(browser, host);
      await page.setViewportSize({ width: 1280, height: 800 });
      const newest = `prompt ${TURNS - 1}`;
      await page.addInitScript((text) => {
        const observer = new MutationObserver(() => {
          for (const bubble of Array.from(document.querySelectorAll('[data-testid="user-bubble"]'))) {
            if (bubble.textContent === text) {
              (window as PaintWindow).__bastionFirstPaint = performance.now();
              observer.disconnect();
              return;
            }
          }
        });
        document.addEventListener('DOMContentLoaded', () =>
          observer.observe(document.body, { childList: true, subtree: true, characterData: true }),
        );
      }, newest);

      const paints: number[] = [];
      for (let run = 0; run < PAINT_RUNS; run += 1) {
        await page.goto(`${host.uiOrigin}/desktop/sessions/${sessionId}`);
        await page.waitForFunction(() => (window as PaintWindow).__bastionFirstPaint !== undefined, undefined, {
          timeout: 60_000,
        });
        paints.push(await page.evaluate(() => (window as PaintWindow).__bastionFirstPaint ?? Number.NaN));
      }

      const scrollFrames = (selector: string) =>
        page.evaluate(
          async ({ target, frames }) => {
            const element = document.querySelector(target) as HTMLElement;
            element.scrollTop = element.scrollHeight;
            const deltas: number[] = [];
            let last = await new Promise<number>((resolve) => requestAnimationFrame(resolve));
            for (let frame = 0; frame < frames; frame += 1) {
              element.scrollTop -= 600;
              const now = await new Promise<number>((resolve) => requestAnimationFrame(resolve));
              deltas.push(now - last);
              last = now;
            }
            return deltas;
          },
          { target: selector, frames: SCROLL_FRAMES },
        );
      const appScroll = await scrollFrames('[data-testid="transcript"]');

      // The same parts as plain text, one element each, in the same page (over the app).
      const plain = plainParts(TURNS);
      const plainPaint = await page.evaluate(async (lines) => {
        const start = performance.now();
        const box = document.createElement('div');
        box.id = 'plain-baseline';
        box.style.cssText = 'position:fixed;inset:0;overflow:auto;background:Canvas;z-index:10';
        for (const line of lines) {
          const row = document.createElement('div');
          row.textContent = line;
          box.append(row);
        }
        document.body.append(box);
        box.scrollTop = box.scrollHeight;
        await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
        return performance.now() - start;
      }, plain);
      const plainScroll = await scrollFrames('#plain-baseline');

      // Streaming: a live run of STREAM_PIECES deltas sent at STREAM_RATE a second.
      const stream = await host.client.request<{ id: string }>('POST', '/sessions', {
        provider: 'local',
        model: SCRIPTED_MODEL,
      });
      await page.goto(`${host.uiOrigin}/desktop/sessions/${stream.body.id}`);
      await page.getByLabel('Message').waitFor();
      await page.evaluate(() => {
        const tasks: number[] = [];
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) tasks.push(entry.duration);
        }).observe({ type: 'longtask' });
        (window as unknown as { __longTasks: number[] }).__longTasks = tasks;
      });
      turns.push({
        kind: 'text',
        pieces: Array.from({ length: STREAM_PIECES }, (_, i) => `w${i} `),
        perSecond: STREAM_RATE,
      });
      const streamStart = performance.now();
      await page.getByLabel('Message').fill('stream');
      await page.getByLabel('Message').press('Enter');
      await page.getByTestId('run-end').last().waitFor({ timeout: 120_000 });
      const streamSeconds = (performance.now() - streamStart) / 1000;
      const appTasks = await page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks);
      const plainTasks = await page.evaluate(
        async ({ count, seconds }) => {
          const tasks: number[] = [];
          const observer = new PerformanceObserver((list) => {
            for (const entry of list.getEntries()) tasks.push(entry.duration);
          });
          observer.observe({ type: 'longtask' });
          const pre = document.createElement('pre');
          document.body.append(pre);
          const perTick = Math.max(1, Math.round(count / (seconds * 1000)));
          let sent = 0;
          await new Promise<void>((resolve) => {
            const timer = setInterval(() => {
              for (let i = 0; i < perTick && sent < count; i += 1, sent += 1) pre.append(`w${sent} `);
              if (sent >= count) {
                clearInterval(timer);
                resolve();
              }
            }, 1);
          });
          await new Promise((resolve) => setTimeout(resolve, 100));
          observer.disconnect();
          return tasks;
        },
        { count: STREAM_PIECES, seconds: streamSeconds },
      );
      await context.close();

      const longest = (tasks: number[]) => (tasks.length === 0 ? 0 : Math.max(...tasks));
      const rate = Math.round(STREAM_PIECES / streamSeconds);
      return [
        figure(
          `ui first paint of the newest messages, ${parts}-part session (ms; baseline: same parts as plain text)`,
          'ms',
          median(paints),
          plainPaint,
          '≤ 300 ms',
          (_ratio, bastion) => bastion <= 300,
        ),
        figure(
          `ui scroll frame time p95 over ${SCROLL_FRAMES} frames (ms; baseline: plain text)`,
          'ms',
          percentile(appScroll, 95),
          percentile(plainScroll, 95),
          '≤ 50 ms (20 fps)',
          (_ratio, bastion) => bastion <= 50,
        ),
        figure(
          `ui longest task while streaming ${STREAM_PIECES} deltas at ~${rate}/s (ms; baseline: appending text)`,
          'ms',
          longest(appTasks),
          longest(plainTasks),
          'no task > 100 ms',
          (_ratio, bastion) => bastion <= 100,
        ),
      ];
    } finally {
      await Promise.all([browser.close(), host.stop(), endpoint.close()]);
      removeTempDirs();
    }
  },
};
