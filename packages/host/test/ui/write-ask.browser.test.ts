/// <reference lib="dom" />
/**
 * A file write the policy asks about, in real Chromium with the real host and sidecar: the agent's
 * `write_file` of `.github/workflows/ci.yml` (the built-in CI-workflow `ask`) is held by the host,
 * which performs the write, and asked on the page once, by the host ("The host asks"), never by the
 * agent's own approval prompt; the file does not exist until Allow, and Deny refuses the next one
 * with POLICY_UNAPPROVED, nothing written; an overwrite's card and the host's question (the host's
 * own diff) show the lines it replaces, a held credential in a write is cut from the host's diff,
 * and an overwrite allowed after the file changed under the question is refused by the host, the
 * file as it changed to. Screenshots (light and dark, 1280 and 420 px) go to test-output/ui/.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { ScriptedTurn } from '@bastion/test-support';
import type { TempHost } from '../support/temp-host.js';
import { openScriptedDesktopWorld, useDesktopWorld, sendMessage } from './support/desktop-world.js';
import { shotAllModes, SHOTS } from './support/layout.js';

const WORKFLOW = 'on: push\njobs: {}\n';

const turns: ScriptedTurn[] = [];
let host: TempHost;
let page: Page;

/** The scripted provider's key, which Bastion holds in auth.json. */
const KEY = 'sk-write-ask-test-key';

useDesktopWorld(
  () => openScriptedDesktopWorld(turns, KEY),
  (opened) => ({ host, page } = opened),
);

describe('a file write the policy asks about, asked by the host', () => {
  it('is held and asked once on the page by the host: nothing is written until Allow, then the host writes it', async () => {
    turns.push(
      { kind: 'tool-call', name: 'write_file', input: { path: '.github/workflows/ci.yml', content: WORKFLOW } },
      { kind: 'text', pieces: ['Workflow written.'] },
    );
    await sendMessage(page, 'Add a CI workflow');
    const hostAsk = page.getByRole('region', { name: 'The host asks' });
    await hostAsk.getByText('Bastion’s policy asks before this file is written').waitFor();
    await hostAsk.getByText('write_file .github/workflows/ci.yml').waitFor();
    expect(await page.getByRole('region', { name: 'Approval needed' }).count()).toBe(0);
    expect(host.asks.list().asks).toEqual([
      expect.objectContaining({
        tool: 'write_file',
        rule_id: 'builtin.ci-workflows-write',
        workspace_root: host.workspace,
      }),
    ]);
    expect(existsSync(join(host.workspace, '.github'))).toBe(false);
    await shotAllModes(page, SHOTS, '36-host-ask-write', hostAsk);
    await hostAsk.getByRole('button', { name: 'Allow' }).click();
    await hostAsk.waitFor({ state: 'detached' });
    await page.getByText('Workflow written.').waitFor();
    expect(readFileSync(join(host.workspace, '.github', 'workflows', 'ci.yml'), 'utf8')).toBe(WORKFLOW);
  });

  it('Deny at the host refuses the write with POLICY_UNAPPROVED and writes nothing', async () => {
    turns.push(
      { kind: 'tool-call', name: 'write_file', input: { path: '.github/workflows/deploy.yml', content: WORKFLOW } },
      { kind: 'text', pieces: ['The write was refused.'] },
    );
    await sendMessage(page, 'Add a deploy workflow');
    const hostAsk = page.getByRole('region', { name: 'The host asks' });
    await hostAsk.getByText('write_file .github/workflows/deploy.yml').waitFor();
    await hostAsk.getByRole('button', { name: 'Deny' }).click();
    await hostAsk.waitFor({ state: 'detached' });
    await page.getByText('The write was refused.').waitFor();
    // POLICY_UNAPPROVED's own message, as the daemon gives it for the host's refusal.
    expect(await page.locator('.refusal').last().textContent()).toContain('needs your approval for this write');
    expect(existsSync(join(host.workspace, '.github', 'workflows', 'deploy.yml'))).toBe(false);
    expect(host.asks.list().asks).toEqual([]);
  });

  it('an overwrite the host asks about shows, on its card and in the host’s own question (the host’s diff of the bytes it holds), the lines it replaces in the file as it is; Deny keeps the file’s bytes', async () => {
    const changed = 'on: push\njobs: { leak: {} }\n';
    turns.push(
      { kind: 'tool-call', name: 'write_file', input: { path: '.github/workflows/ci.yml', content: changed } },
      { kind: 'text', pieces: ['Left the workflow as it was.'] },
    );
    await sendMessage(page, 'Change the CI workflow');
    const hostAsk = page.getByRole('region', { name: 'The host asks' });
    await hostAsk.getByText('write_file .github/workflows/ci.yml').waitFor();
    const card = page.getByRole('article', { name: 'Tool write_file' }).last();
    await expect.poll(() => card.locator('.diff-del').allTextContents(), { timeout: 15_000 }).toEqual(['-jobs: {}\n']);
    expect(await card.locator('.diff-add').allTextContents()).toEqual(['+jobs: { leak: {} }\n']);
    // The host's question shows the host's diff, not only the card above it the sidecar's.
    const asked = hostAsk.getByTestId('diff');
    expect(await asked.locator('.diff-del').allTextContents()).toEqual(['-jobs: {}\n']);
    expect(await asked.locator('.diff-add').allTextContents()).toEqual(['+jobs: { leak: {} }\n']);
    expect(await asked.locator('.diff-ctx').allTextContents()).toEqual([' on: push\n']);
    expect(host.asks.list().asks[0]?.diff).toContain('@@ -1,2 +1,2 @@');
    await shotAllModes(page, SHOTS, '36-host-ask-overwrite', hostAsk);
    await shotAllModes(page, SHOTS, '36-host-ask-overwrite-narrow', hostAsk, [{ width: 400, height: 700 }]);
    await hostAsk.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('Left the workflow as it was.').waitFor();
    expect(readFileSync(join(host.workspace, '.github', 'workflows', 'ci.yml'), 'utf8')).toBe(WORKFLOW);
  });

  it('a write holding a credential Bastion holds shows it cut in the host’s diff: neither the page nor the host’s question carries the key', async () => {
    turns.push(
      {
        kind: 'tool-call',
        name: 'write_file',
        input: { path: '.github/workflows/leak.yml', content: `env:\n  KEY: ${KEY}\n` },
      },
      { kind: 'text', pieces: ['The leak was refused.'] },
    );
    await sendMessage(page, 'Add a workflow with the key');
    const hostAsk = page.getByRole('region', { name: 'The host asks' });
    await hostAsk.getByText('write_file .github/workflows/leak.yml').waitFor();
    const asked = hostAsk.getByTestId('diff');
    expect(await asked.locator('.diff-add').allTextContents()).toEqual([
      '+env:\n',
      "+  KEY: [redacted: Bastion's local credential]\n",
    ]);
    expect(await hostAsk.textContent()).not.toContain(KEY);
    expect(JSON.stringify(host.asks.list())).not.toContain(KEY);
    await hostAsk.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('The leak was refused.').waitFor();
    expect(existsSync(join(host.workspace, '.github', 'workflows', 'leak.yml'))).toBe(false);
  });

  it('an overwrite allowed after the file changed under the question is refused by the host (FS_CHANGED_SINCE_SHOWN): the file keeps the bytes it changed to, the card says why', async () => {
    const ciFile = join(host.workspace, '.github', 'workflows', 'ci.yml');
    const meanwhile = 'on: push\njobs: { test: {} }\n';
    turns.push(
      {
        kind: 'tool-call',
        name: 'write_file',
        input: { path: '.github/workflows/ci.yml', content: 'on: push\njobs: { leak: {} }\n' },
      },
      { kind: 'text', pieces: ['The workflow had changed.'] },
    );
    await sendMessage(page, 'Change the CI workflow again');
    const hostAsk = page.getByRole('region', { name: 'The host asks' });
    await hostAsk.getByText('write_file .github/workflows/ci.yml').waitFor();
    const card = page.getByRole('article', { name: 'Tool write_file' }).last();
    await expect.poll(() => card.locator('.diff-del').allTextContents(), { timeout: 15_000 }).toEqual(['-jobs: {}\n']);
    writeFileSync(ciFile, meanwhile);
    await hostAsk.getByRole('button', { name: 'Allow' }).click();
    await page.getByText('The workflow had changed.').waitFor();
    expect(await card.locator('.refusal').textContent()).toBe(
      'The file changed after you were shown this diff, so nothing was written.',
    );
    expect(readFileSync(ciFile, 'utf8')).toBe(meanwhile);
    await shotAllModes(page, SHOTS, '36-host-ask-changed', card);
  });
});
