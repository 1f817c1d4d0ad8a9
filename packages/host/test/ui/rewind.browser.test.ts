/// <reference lib="dom" />
/**
 * Rewind in the desktop app, in real Chromium against the real host and sidecar and the scripted
 * loopback endpoint: a prompt's Rewind asks first, saying how many turns leave the conversation
 * and what putting back their files does; confirming greys those turns, puts the bytes back on
 * disk, brings the prompt back to the message box, and the model's next request no longer holds
 * the rewound prompt. `/rewind` with a file changed since leaves the files as they are and says
 * so. Screenshots (light and dark, 1280 and 420 px) go to test-output/ui/.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { ScriptedTurn } from '@bastion/test-support';
import type { TempHost } from '../support/temp-host.js';
import {
  openScriptedDesktopWorld,
  useDesktopWorld,
  sendMessage,
  type ScriptedDesktopWorld,
} from './support/desktop-world.js';
import { expectInViewport, expectNoHorizontalOverflow, shotAllModes, SHOTS } from './support/layout.js';

const turns: ScriptedTurn[] = [];
let world: ScriptedDesktopWorld | undefined;
let host: TempHost;
let page: Page;

useDesktopWorld(
  () => openScriptedDesktopWorld(turns, 'sk-ui-rewind-test-key'),
  (opened) => {
    world = opened;
    ({ host, page } = opened);
  },
);

/** Every message text of the model's latest request, as one string. */
const lastRequest = () => JSON.stringify(world?.endpoint.seen.at(-1)?.body.messages ?? []);

describe('Rewind in the desktop app', () => {
  it('asks first, then greys the rewound turn, puts its file back, returns its prompt to the message box, and the next request lacks it', async () => {
    writeFileSync(join(host.workspace, 'notes.md'), 'alpha\n');
    turns.push({ kind: 'text', pieces: ['Hello there.'] });
    await sendMessage(page, 'First, say hello');
    await page.getByText('Hello there.').waitFor();
    turns.push(
      { kind: 'tool-call', name: 'edit_file', input: { path: 'notes.md', old_string: 'alpha', new_string: 'beta' } },
      { kind: 'text', pieces: ['Edited the notes.'] },
    );
    await sendMessage(page, 'Second, edit the notes');
    await page.getByTestId('run-end').last().getByText('Files changed (1)').waitFor();

    const second = page.locator('.transcript-row', { hasText: 'Second, edit the notes' });
    await second.getByRole('button', { name: 'Rewind' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rewind to before this prompt?' });
    await dialog.getByText('This prompt and its reply leave the conversation', { exact: false }).waitFor();
    expect(await dialog.getByRole('list', { name: 'Files' }).locator('li').allTextContents()).toEqual([
      'notes.md — put back as it was before those turns',
    ]);
    expect(await dialog.getByRole('checkbox', { name: 'Also put back the files they changed' }).isChecked()).toBe(true);
    await shotAllModes(page, SHOTS, '46-rewind-confirm');
    // The confirmation touched nothing.
    expect(readFileSync(join(host.workspace, 'notes.md'), 'utf8')).toBe('beta\n');

    await dialog.getByRole('button', { name: 'Rewind and put back 1 file' }).click();
    await dialog.waitFor({ state: 'detached' });
    const notice = page.getByTestId('rewound');
    await notice.waitFor();
    expect(await notice.textContent()).toBe(
      'Rewound. That prompt and its reply are no longer in the conversation. Put back: notes.md.',
    );
    expect(readFileSync(join(host.workspace, 'notes.md'), 'utf8')).toBe('alpha\n');
    const composer = page.getByLabel('Message');
    expect(await composer.inputValue()).toBe('Second, edit the notes');
    expect(await second.evaluate((row) => row.classList.contains('rewound'))).toBe(true);
    await second.getByText('Rewound: not in the conversation').waitFor();
    expect(await second.getByRole('button', { name: 'Rewind' }).count()).toBe(0);
    const first = page.locator('.transcript-row', { hasText: 'First, say hello' });
    expect(await first.evaluate((row) => row.classList.contains('rewound'))).toBe(false);
    await expectNoHorizontalOverflow(page);
    await shotAllModes(page, SHOTS, '47-rewound');

    turns.push({ kind: 'text', pieces: ['Left the notes alone.'] });
    await composer.fill('Second, but leave the notes alone');
    await composer.press('Enter');
    await page.getByText('Left the notes alone.').waitFor();
    const seen = lastRequest();
    expect(seen).toContain('First, say hello');
    expect(seen).toContain('Hello there.');
    expect(seen).toContain('Second, but leave the notes alone');
    expect(seen).not.toContain('Second, edit the notes');
    expect(seen).not.toContain('Edited the notes.');
  });

  it('/rewind with a file changed since keeps the files as they are, says so, and still takes the turn out; its dialog quotes the prompt, and at 400 px keeps a margin each side', async () => {
    writeFileSync(join(host.workspace, 'todo.md'), 'first\n');
    turns.push(
      { kind: 'tool-call', name: 'write_file', input: { path: 'todo.md', content: 'by the run\n' } },
      { kind: 'text', pieces: ['Wrote the todo.'] },
    );
    await sendMessage(page, 'Write the todo');
    await page.getByTestId('run-end').last().getByText('Files changed (1)').waitFor();
    writeFileSync(join(host.workspace, 'todo.md'), 'a person’s edit\n');

    const composer = page.getByLabel('Message');
    await composer.fill('/rewind');
    await composer.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Rewind to before this prompt?' });
    await dialog.getByText('todo.md — cannot be undone: it changed since those turns').waitFor();
    // /rewind names no prompt: the dialog quotes the one it goes back to before.
    expect(await dialog.getByLabel('Prompt').textContent()).toBe('Write the todo');
    await dialog.getByRole('alert').getByText('the files stay as they are', { exact: false }).waitFor();
    const putBack = dialog.getByRole('checkbox', { name: 'Also put back the files they changed' });
    expect(await putBack.isDisabled()).toBe(true);
    expect(await putBack.isChecked()).toBe(false);
    // At 400 px the dialog keeps a margin each side (it met both edges) and Rewind is in view.
    await page.setViewportSize({ width: 400, height: 560 });
    const box = await dialog.boundingBox();
    expect(box?.x).toBeGreaterThanOrEqual(8);
    expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(400 - 8);
    await expectInViewport(page, dialog.getByRole('button', { name: 'Rewind', exact: true }), 'Rewind at 400 px');
    await page.setViewportSize({ width: 1280, height: 800 });
    await dialog.getByRole('button', { name: 'Rewind', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByTestId('rewound').last().getByText('The files were left as they are.', { exact: false }).waitFor();
    expect(readFileSync(join(host.workspace, 'todo.md'), 'utf8')).toBe('a person’s edit\n');
    expect(await composer.inputValue()).toBe('Write the todo');
  });
});
