/// <reference lib="dom" />
/**
 * Images in a message, in real Chromium against the real host and the offline demo model (which
 * answers with the format and size of each image it got, so the bytes are proved to have
 * arrived): a screenshot pasted into the box and a file chosen with Attach image show as chips
 * and go with the message; the prompt shows them as thumbnails, from the daemon after a reload
 * too, and one opens larger in a dialog that Escape closes; a file that is not an image and a
 * fifth image are refused in words and never sent; a removed chip is not sent; the home page
 * starts a session with an image; a message queued while a run waits carries its images, and Edit
 * takes them back; a model that takes none (a custom endpoint's) has Attach image off and a paste
 * refused in words; Rewind brings a prompt's images back with its text, a dropped file is attached,
 * and the box keeps its images while another session is open. Screenshots (light and dark, 1280
 * and 420 px) go to test-output/ui/.
 */

import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { IMAGE_MAX_BYTES, type MessageListResponse, type Session } from '@bastion/protocol';
import { SCRIPTED_MODEL, type ScriptedTurn } from '@bastion/test-support';
import type { TempHost } from '../support/temp-host.js';
import { openScriptedDesktopWorld, useDesktopWorld, type ScriptedDesktopWorld } from './support/desktop-world.js';
import { expectInViewport, expectNoHorizontalOverflow, shotAllModes, SHOTS } from './support/layout.js';

const SETTLED = { timeout: 30_000 };

/** CRC-32 as PNG chunks carry it. */
function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** A real PNG of `width` × `height`: an RGB gradient from `from` to `to`, row by row. */
function makePng(width: number, height: number, from: [number, number, number], to: [number, number, number]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const rows: number[] = [];
  for (let y = 0; y < height; y += 1) {
    rows.push(0);
    for (let x = 0; x < width; x += 1) {
      const share = (x + y) / (width + height - 2);
      for (let channel = 0; channel < 3; channel += 1) {
        rows.push(Math.round(from[channel]! + (to[channel]! - from[channel]!) * share));
      }
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.from(rows))),
    chunk('IEND', new Uint8Array()),
  ]);
}

/** A red 1 × 1 GIF: a real image of another format. */
const GIF = Buffer.from('R0lGODlhAQABAIAAAP8AAAAAACwAAAAAAQABAAACAkQBADs=', 'base64');
const SCREENSHOT = makePng(320, 200, [36, 86, 214], [245, 158, 11]);
const DIAGRAM = makePng(48, 48, [19, 115, 51], [230, 255, 236]);
const SKETCH = makePng(30, 20, [180, 35, 24], [253, 236, 234]);

/** The scripted endpoint (provider `local`, a custom endpoint: it takes no images) answers nothing here. */
const turns: ScriptedTurn[] = [];
let world: ScriptedDesktopWorld | undefined;
let host: TempHost;
let page: Page;

useDesktopWorld(
  () => openScriptedDesktopWorld(turns, 'sk-ui-images-test-key'),
  (opened) => {
    world = opened;
    ({ host, page } = opened);
  },
);

const composer = () => page.getByRole('combobox', { name: 'Message' });
const chips = () => page.getByRole('list', { name: 'Attached images' }).getByRole('listitem');
const note = () => page.locator('#composer-image-note');
const imageInput = () => page.getByTestId('image-input');
const userMessages = async (sessionId: string) => {
  const answer = await host.client.request<MessageListResponse>('GET', `/sessions/${sessionId}/messages`);
  return answer.body.messages.filter((message) => message.role === 'user');
};
const session = async (id: string) => (await host.client.request<Session>('GET', `/sessions/${id}`)).body;

/** Paste files into the message box as a screenshot tool's copy puts them on the clipboard. */
async function paste(files: { name: string; type: string; bytes: Buffer }[]): Promise<void> {
  await composer().evaluate(
    (box, pasted) => {
      const transfer = new DataTransfer();
      for (const file of pasted) {
        transfer.items.add(new File([new Uint8Array(file.bytes)], file.name, { type: file.type }));
      }
      box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }));
    },
    files.map((file) => ({ ...file, bytes: [...file.bytes] })),
  );
}

/** The thumbnails under prompts, each drawn (its image decoded). */
async function expectThumbnailsDrawn(thumbnails: Locator, alts: string[]): Promise<void> {
  await expect.poll(() => thumbnails.count(), SETTLED).toBe(alts.length);
  await expect
    .poll(() =>
      thumbnails.evaluateAll((images) => images.every((image) => (image as HTMLImageElement).naturalWidth > 0)),
    )
    .toBe(true);
  expect(await thumbnails.evaluateAll((images) => images.map((image) => image.getAttribute('alt')))).toEqual(alts);
}

async function newDemoSession(): Promise<string> {
  const created = await host.client.request<Session>('POST', '/sessions', { provider: 'demo' });
  await page.goto(`${host.uiOrigin}/desktop/sessions/${created.body.id}`);
  await expect.poll(() => composer().getAttribute('placeholder'), SETTLED).toContain('/ for commands');
  return created.body.id;
}

describe('images in a message', () => {
  let sessionId: string;

  it('a pasted screenshot and a chosen file show as chips and go with the message: the demo names their formats and sizes', async () => {
    sessionId = await newDemoSession();
    const attach = page.getByRole('button', { name: 'Attach image' });
    expect(await attach.isDisabled()).toBe(false);

    await paste([{ name: 'screenshot.png', type: 'image/png', bytes: SCREENSHOT }]);
    await expect.poll(() => chips().count()).toBe(1);
    await imageInput().setInputFiles({ name: 'dot.gif', mimeType: 'image/gif', buffer: GIF });
    await expect.poll(() => chips().count()).toBe(2);
    expect(await chips().allTextContents()).toEqual([
      expect.stringContaining('screenshot.png'),
      expect.stringContaining('dot.gif'),
    ]);
    // The chips' thumbnails are drawn, and each remove button is named for its file and reachable by Tab.
    await expect
      .poll(() =>
        chips()
          .locator('img')
          .evaluateAll((images) => images.every((image) => (image as HTMLImageElement).naturalWidth > 0)),
      )
      .toBe(true);
    await composer().fill('What is in these?');
    await composer().press('Shift+Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Remove dot.gif');
    await expectInViewport(page, composer(), 'the message box under the chips');
    await expectNoHorizontalOverflow(page);
    await shotAllModes(page, SHOTS, '50-images-attached');

    await composer().press('Enter');
    const reply = `demo: 2 images received (PNG, ${SCREENSHOT.length} bytes; GIF, ${GIF.length} bytes); the demo model cannot look at images.`;
    await page.getByText(reply).waitFor(SETTLED);
    expect(await chips().count()).toBe(0);
    expect(await composer().inputValue()).toBe('');
    const [sent] = await userMessages(sessionId);
    expect(
      sent?.parts.map((part) => (part.type === 'image' ? [part.media_type, part.bytes, part.name] : part.type)),
    ).toEqual(['text', ['image/png', SCREENSHOT.length, 'screenshot.png'], ['image/gif', GIF.length, 'dot.gif']]);
    // Shown under the prompt at once, from what was sent.
    const thumbnails = page.getByRole('list', { name: 'Images with this message' }).getByRole('img');
    await expectThumbnailsDrawn(thumbnails, ['screenshot.png', 'dot.gif']);
  });

  it('after a reload the prompt shows its images from the daemon, and one opens larger; Escape closes it', async () => {
    await page.reload();
    const thumbnails = page.getByRole('list', { name: 'Images with this message' }).getByRole('img');
    await expectThumbnailsDrawn(thumbnails, ['screenshot.png', 'dot.gif']);
    await expectNoHorizontalOverflow(page);
    await shotAllModes(page, SHOTS, '51-images-in-transcript');

    await page.getByRole('button', { name: /^screenshot\.png/ }).click();
    const viewer = page.getByRole('dialog', { name: 'screenshot.png' });
    await viewer.waitFor();
    const large = viewer.getByRole('img', { name: 'screenshot.png' });
    await expect.poll(() => large.evaluate((image) => (image as HTMLImageElement).naturalWidth)).toBe(320);
    await expect
      .poll(() => viewer.locator('.image-viewer-meta').textContent())
      .toMatch(/^PNG, [\d.]+ KB, 320 × 200 px$/);
    await shotAllModes(page, SHOTS, '52-image-viewer');
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached' });
  });

  it('refuses a file that is not an image, in words, and sends nothing', async () => {
    const before = (await userMessages(sessionId)).length;
    const lastRun = (await session(sessionId)).last_run?.id;
    // Named like an image and declared one: its bytes say otherwise.
    await imageInput().setInputFiles({
      name: 'notes.png',
      mimeType: 'image/png',
      buffer: Buffer.from('These are my notes, not a picture.\n'),
    });
    await expect
      .poll(() => note().textContent())
      .toBe('“notes.png” is not an image Bastion can send: only PNG, JPEG, GIF and WebP images can go with a message.');
    expect(await chips().count()).toBe(0);
    // Pasted, too large: refused by its size before it is read.
    const large = Buffer.alloc(IMAGE_MAX_BYTES + 1);
    SCREENSHOT.copy(large, 0, 0, 16);
    await imageInput().setInputFiles({ name: 'huge.png', mimeType: 'image/png', buffer: large });
    await expect.poll(() => note().textContent()).toBe('“huge.png” is 3.75 MB; an image can be at most 3.75 MB.');
    expect(await chips().count()).toBe(0);
    // An image alone is not a message: Enter says so and sends nothing.
    await paste([{ name: 'sketch.png', type: 'image/png', bytes: SKETCH }]);
    await expect.poll(() => chips().count()).toBe(1);
    await composer().press('Enter');
    await expect
      .poll(() => note().textContent())
      .toBe('Write a message to go with the image: images are sent with one.');
    await page.waitForTimeout(300);
    expect((await userMessages(sessionId)).length).toBe(before);
    expect((await session(sessionId)).last_run?.id).toBe(lastRun);
    // Said until there is text.
    await composer().fill('x');
    await note().waitFor({ state: 'detached' });
    await composer().fill('');
    await page.getByRole('button', { name: 'Remove sketch.png' }).click();
    await expect.poll(() => chips().count()).toBe(0);
  });

  it('refuses a fifth image in words; a removed chip is not sent', async () => {
    const files = [
      { name: 'one.png', mimeType: 'image/png', buffer: SCREENSHOT },
      { name: 'two.png', mimeType: 'image/png', buffer: DIAGRAM },
      { name: 'three.gif', mimeType: 'image/gif', buffer: GIF },
      { name: 'four.png', mimeType: 'image/png', buffer: SKETCH },
      { name: 'five.png', mimeType: 'image/png', buffer: DIAGRAM },
    ];
    await imageInput().setInputFiles(files);
    await expect.poll(() => chips().count()).toBe(4);
    await expect
      .poll(() => note().textContent())
      .toBe('A message can carry at most 4 images: “five.png” was not attached.');
    // One more, pasted, is refused the same way.
    await paste([{ name: 'six.png', type: 'image/png', bytes: SKETCH }]);
    await expect
      .poll(() => note().textContent())
      .toBe('A message can carry at most 4 images: “six.png” was not attached.');
    expect(await chips().count()).toBe(4);
    await composer().fill('Compare them');
    await expectNoHorizontalOverflow(page);
    await shotAllModes(page, SHOTS, '53-images-refused');
    // Narrow, four chips and the note still leave the box and Send in view.
    await page.setViewportSize({ width: 420, height: 860 });
    await expectInViewport(page, composer(), 'the message box under four chips at 420 px');
    await expectInViewport(page, page.getByRole('button', { name: 'Send' }), 'Send at 420 px');
    await expectNoHorizontalOverflow(page);
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.getByRole('button', { name: 'Remove two.png' }).click();
    await expect.poll(() => chips().count()).toBe(3);
    // The next chip's remove button takes the focus.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Remove three.gif');
    await composer().press('Enter');
    await page
      .getByText(
        `demo: 3 images received (PNG, ${SCREENSHOT.length} bytes; GIF, ${GIF.length} bytes; PNG, ${SKETCH.length} bytes); the demo model cannot look at images.`,
      )
      .waitFor(SETTLED);
    const sent = (await userMessages(sessionId)).at(-1);
    expect(sent?.parts.flatMap((part) => (part.type === 'image' ? [part.name] : []))).toEqual([
      'one.png',
      'three.gif',
      'four.png',
    ]);
  });

  it('the home page starts a session with a pasted image (Attach image off while the model picked takes none)', async () => {
    await page.goto(`${host.uiOrigin}/desktop/`);
    await page.getByRole('heading', { name: 'Start a session' }).waitFor();
    const picker = page.locator('#home-model');
    await picker.selectOption({ label: SCRIPTED_MODEL });
    await page.locator('section.empty').getByText(`local · ${SCRIPTED_MODEL}`).waitFor();
    const attach = page.getByRole('button', { name: 'Attach image' });
    await expect.poll(() => attach.isDisabled()).toBe(true);
    expect(await attach.getAttribute('title')).toBe('This model does not take images');
    await picker.selectOption({ label: 'offline demo model' });
    await page.locator('section.empty').getByText('New sessions use the offline demo model').waitFor();
    await expect.poll(() => attach.isDisabled()).toBe(false);
    await paste([{ name: 'image.png', type: 'image/png', bytes: DIAGRAM }]);
    await expect.poll(() => chips().count()).toBe(1);
    await page.setViewportSize({ width: 420, height: 860 });
    await expectInViewport(page, chips().first(), 'the home page’s chip at 420 px');
    await expectInViewport(page, composer(), 'the home page’s message box at 420 px');
    await expectNoHorizontalOverflow(page);
    await page.setViewportSize({ width: 1280, height: 800 });
    await composer().fill('Start with this');
    await composer().press('Enter');
    await page
      .getByText(`demo: 1 image received (PNG, ${DIAGRAM.length} bytes); the demo model cannot look at images.`)
      .waitFor(SETTLED);
    const thumbnails = page.getByRole('list', { name: 'Images with this message' }).getByRole('img');
    await expectThumbnailsDrawn(thumbnails, ['image.png']);
  });

  it('a message queued while a run waits carries its images; Edit takes them back into the box', async () => {
    const sessionId = await newDemoSession();
    // A command outside the read-only set waits for an approval: the run goes on meanwhile.
    await composer().fill('$ sleep 0.1');
    await composer().press('Enter');
    const approval = page.getByRole('region', { name: 'Approval needed' });
    await approval.waitFor(SETTLED);
    await paste([{ name: 'queued.png', type: 'image/png', bytes: SKETCH }]);
    await expect.poll(() => chips().count()).toBe(1);
    await composer().fill('And this one');
    await composer().press('Enter');
    const queued = page.getByRole('status', { name: 'Queued', exact: true });
    await expect
      .poll(() => queued.textContent())
      .toBe(
        'Queued, not an answer: sent as your next message when this run finishes:And this onewith 1 imageEditCancel',
      );
    expect(await chips().count()).toBe(0);
    // Edit: the text and the image come back to the box.
    await queued.getByRole('button', { name: 'Edit' }).click();
    await expect.poll(() => chips().allTextContents()).toEqual([expect.stringContaining('queued.png')]);
    expect(await composer().inputValue()).toBe('And this one');
    await composer().press('Enter');
    await expect.poll(() => queued.textContent()).toContain('with 1 image');
    await approval.getByRole('button', { name: 'Allow', exact: true }).click();
    await page
      .getByText(`demo: 1 image received (PNG, ${SKETCH.length} bytes); the demo model cannot look at images.`)
      .waitFor(SETTLED);
    const sent = (await userMessages(sessionId)).at(-1);
    expect(sent?.parts.flatMap((part) => (part.type === 'image' ? [part.name] : []))).toEqual(['queued.png']);

    // Queued with an image, then the page reloads: the image is gone, so the text comes back to
    // the box with a note instead of going alone when the run finishes.
    await page.locator('.composer-actions button.danger').waitFor({ state: 'detached' });
    await composer().fill('$ sleep 0.1');
    await composer().press('Enter');
    await approval.waitFor(SETTLED);
    await paste([{ name: 'lost.png', type: 'image/png', bytes: SKETCH }]);
    await composer().fill('Second queued');
    await composer().press('Enter');
    await expect.poll(() => queued.textContent()).toContain('with 1 image');
    await page.reload();
    await expect.poll(() => composer().inputValue(), SETTLED).toBe('Second queued');
    await expect
      .poll(() => note().textContent())
      .toBe('This message was queued with 1 image, which a reload does not keep: attach it again, then send.');
    expect(await queued.count()).toBe(0);
    const before = (await userMessages(sessionId)).length;
    await approval.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.locator('.composer-actions button.danger').waitFor({ state: 'detached', ...SETTLED });
    await page.waitForTimeout(300);
    expect((await userMessages(sessionId)).length).toBe(before);
    expect(await composer().inputValue()).toBe('Second queued');
  });

  it('a session on a model that takes no images has Attach image off, and a paste is refused in words', async () => {
    await page.goto(`${host.uiOrigin}/desktop/sessions/${world!.sessionId}`);
    await page.locator('.chat-head').getByText(`local · ${SCRIPTED_MODEL}`).waitFor();
    const attach = page.getByRole('button', { name: 'Attach image' });
    await expect.poll(() => attach.isDisabled()).toBe(true);
    expect(await attach.getAttribute('title')).toBe('This model does not take images');
    await paste([{ name: 'shot.png', type: 'image/png', bytes: SCREENSHOT }]);
    await expect.poll(() => note().textContent()).toBe('This model does not take images: the image was not attached.');
    expect(await chips().count()).toBe(0);
    expect((await session(world!.sessionId)).last_run).toBeNull();
    expect(world!.endpoint.seen.length).toBe(0);
  });

  it('Rewind brings a prompt’s images back into the box with its text; a file dropped on the box is attached; the box keeps its images while another session is open', async () => {
    const sessionId = await newDemoSession();
    await paste([{ name: 'rewind.png', type: 'image/png', bytes: DIAGRAM }]);
    await composer().fill('Look at this');
    await composer().press('Enter');
    await page
      .getByText(`demo: 1 image received (PNG, ${DIAGRAM.length} bytes); the demo model cannot look at images.`)
      .waitFor(SETTLED);
    const row = page.locator('.user-turn', { hasText: 'Look at this' });
    await row.getByRole('button', { name: 'Rewind' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rewind to before this prompt?' });
    await dialog.getByRole('button', { name: 'Rewind', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => composer().inputValue()).toBe('Look at this');
    await expect.poll(() => chips().allTextContents(), SETTLED).toEqual([expect.stringContaining('rewind.png')]);

    // Dropped on the box, as a file dragged from a file manager.
    await page.locator('form.composer').evaluate(
      (form, bytes) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([new Uint8Array(bytes)], 'dropped.png', { type: 'image/png' }));
        form.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
        form.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      },
      [...SKETCH],
    );
    await expect
      .poll(() => chips().allTextContents())
      .toEqual([expect.stringContaining('rewind.png'), expect.stringContaining('dropped.png')]);

    // Another session opened from the list and this one again: the images are still in its box.
    const sessions = page.getByRole('complementary', { name: 'Sessions' });
    await sessions.getByRole('button', { name: /^What is in these\?/ }).click();
    await page.getByRole('heading', { name: 'What is in these?' }).waitFor();
    expect(await chips().count()).toBe(0);
    await sessions.getByRole('button', { name: /^Look at this/ }).click();
    await page.waitForURL(`**/sessions/${sessionId}`);
    await expect
      .poll(() => chips().allTextContents())
      .toEqual([expect.stringContaining('rewind.png'), expect.stringContaining('dropped.png')]);
    expect(await composer().inputValue()).toBe('Look at this');
  });
});
