/// <reference lib="dom" />
/**
 * MCP servers in the desktop app, in real Chromium against the real host, its srt sandbox, the
 * real @modelcontextprotocol/server-memory and the offline demo model. Settings → MCP servers
 * shows the host's mcp.json and that servers run in the sandbox; Add server (one argument a line,
 * no shell) saves the server and shows it ready with its tools, a program that does not exist as
 * failed, in words; what the form or the host refuses is said beside the form with nothing saved;
 * Restart starts it again; Remove asks first and takes it out of mcp.json. In a session, the
 * demo's `mcp SERVER TOOL {json}` calls the tool: in `auto` the card shows "memory › read_graph",
 * the arguments and the server's answer, and a failure the server reports as one; in
 * `accept-edits` it asks first, titled the same, and "Always allow…" saves the tool by name for
 * this project. Screenshots (light and dark, 1280 and 420 px) go to test-output/ui/.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import type { McpConfigFile, Session } from '@bastion/protocol';
import { McpConfigStore } from '../../src/mcp/mcp-config-store.js';
import type { TempHost } from '../support/temp-host.js';
import { openDesktopWorld, sendMessage, type DesktopWorld } from './support/desktop-world.js';
import { expectInViewport, expectNoHorizontalOverflow, shotAllModes, SHOTS } from './support/layout.js';
import { openSettingsTab } from './support/settings.js';

const MEMORY_SERVER = fileURLToPath(
  new URL('../../../../node_modules/@modelcontextprotocol/server-memory/dist/index.js', import.meta.url),
);
/** What the page shows after the host has done its part: a server's start takes seconds on a loaded machine. */
const SETTLED = { timeout: 45_000 };

let world: DesktopWorld | undefined;
let host: TempHost;
let page: Page;

const card = () => page.getByRole('region', { name: 'MCP servers' });
const form = () => card().getByRole('form', { name: 'Add server' });
const server = (name: string) => card().getByRole('listitem', { name: `MCP server ${name}` });
const stateOf = (name: string) => server(name).getByTestId('mcp-state');
const mcpFile = () => join(host.userData, 'host', 'mcp.json');
const savedNames = () =>
  (JSON.parse(readFileSync(mcpFile(), 'utf8')) as McpConfigFile).servers.map((saved) => saved.name);

async function openSettings(): Promise<void> {
  await openSettingsTab(page, 'MCP servers');
  await card().waitFor();
}

async function fillForm(fields: { name: string; command: string; args?: string; env?: string }): Promise<void> {
  await form().getByLabel('Server', { exact: true }).fill(fields.name);
  await form().getByLabel('Program').fill(fields.command);
  await form()
    .getByLabel('Arguments, one per line')
    .fill(fields.args ?? '');
  await form()
    .getByLabel('Environment, VARIABLE=value per line (optional)')
    .fill(fields.env ?? '');
}

/** A session of the demo model in `mode` (auto recorded as the page's consent), the page on it. */
async function openSession(mode: 'auto' | 'accept-edits'): Promise<string> {
  const created = await host.client.request<Session>('POST', '/sessions', { provider: 'demo', model: 'demo' });
  const id = created.body.id;
  if (mode === 'auto') await host.client.request('PATCH', `/sessions/${id}`, { mode, consent_by: 'ui' });
  await page.goto(`${host.uiOrigin}/desktop/sessions/${id}`);
  await expect.poll(() => page.getByLabel('Mode', { exact: true }).inputValue(), SETTLED).toBe(mode);
  return id;
}

const toolCard = (title: string): Locator => page.getByRole('article', { name: `Tool ${title}` });

beforeAll(async () => {
  world = await openDesktopWorld();
  ({ host, page } = world);
}, 90_000);

afterAll(() => world?.close());

describe('Settings → MCP servers', () => {
  it('shows the host’s mcp.json, the project and what a server can do here, and no server yet', async () => {
    await openSettings();
    await card().getByText(mcpFile(), { exact: true }).waitFor(SETTLED);
    await card().getByText(host.workspace, { exact: true }).waitFor();
    await card()
      .getByText(/runs in the sandbox: no network, your project read-only, nothing of your home’s secrets/)
      .waitFor();
    await card().getByText('No servers yet.').waitFor();
    // The sandbox runs here: nothing says servers cannot run.
    expect(await card().getByText('Servers cannot run here').count()).toBe(0);
  });

  it('Add server with node and server-memory’s path, one argument a line: saved to mcp.json, ready, read_graph among its tools, the env’s name and never its value', async () => {
    await fillForm({ name: 'memory', command: 'node', args: MEMORY_SERVER, env: 'MEMORY_NOTE=value-not-shown' });
    const preview = form().getByLabel('Will run');
    expect(await preview.locator('code').allTextContents()).toEqual(['node', MEMORY_SERVER]);
    await form().getByRole('button', { name: 'Add server' }).click();
    await expect.poll(() => stateOf('memory').textContent(), SETTLED).toBe('ready');
    const tools = server('memory').getByRole('list', { name: 'Tools' });
    await card()
      .getByRole('status')
      .getByText(/^memory added: ready, with \d+ tools\.$/)
      .waitFor();
    expect(await server('memory').getByLabel('Command line').locator('code').allTextContents()).toEqual([
      'node',
      MEMORY_SERVER,
    ]);
    await server('memory').getByText('MEMORY_NOTE', { exact: true }).waitFor();
    expect(await card().textContent()).not.toContain('value-not-shown');
    // The form is empty again for the next server.
    expect(await form().getByLabel('Server', { exact: true }).inputValue()).toBe('');
    expect(JSON.parse(readFileSync(mcpFile(), 'utf8'))).toEqual({
      version: 1,
      servers: [{ name: 'memory', command: 'node', args: [MEMORY_SERVER], env: { MEMORY_NOTE: 'value-not-shown' } }],
    });
    // server-memory lists nine tools (read_graph the seventh): more than the card shows before "Show all".
    const count = Number(
      /^(\d+) tools$/.exec((await server('memory').locator('dt', { hasText: 'tools' }).textContent()) ?? '')?.[1],
    );
    expect(count).toBeGreaterThan(6);
    expect(await tools.getByRole('listitem').count()).toBe(6);
    await server('memory')
      .getByRole('button', { name: `Show all ${count} tools` })
      .click();
    expect(await tools.getByRole('listitem').count()).toBe(count);
    await tools.getByText('read_graph', { exact: true }).waitFor();
    await server('memory')
      .getByText(/^read_graph Read the entire knowledge graph/)
      .waitFor();
    // Its data folder, kept between runs, for the person to point the server's own setting at.
    await server('memory')
      .getByText(join(host.userData, 'host', 'mcp-data', 'memory'), { exact: true })
      .waitFor();
    await shotAllModes(page, SHOTS, '57-mcp-server-ready', server('memory'));
  });

  it('a program that does not exist is saved but shows failed, with why in words', async () => {
    await fillForm({ name: 'broken', command: '/nonexistent/x', args: '--serve\nwith space' });
    await form().getByRole('button', { name: 'Add server' }).click();
    await expect.poll(() => stateOf('broken').textContent(), SETTLED).toBe('failed');
    // The hub's words: the program could not be run.
    expect(await server('broken').getByTestId('mcp-error').textContent()).toMatch(
      /\/nonexistent\/x was not found in the sandbox: it is not installed/,
    );
    await card()
      .getByRole('alert')
      .getByText('broken added, but it failed to start: its error is shown above.')
      .waitFor();
    expect(await server('broken').getByLabel('Command line').locator('code').allTextContents()).toEqual([
      '/nonexistent/x',
      '--serve',
      'with space',
    ]);
    expect(savedNames()).toEqual(['memory', 'broken']);
    await shotAllModes(page, SHOTS, '57-mcp-server-failed', server('broken'));
  });

  it('what the form cannot send and what the host refuses are said beside the form in words, nothing saved', async () => {
    const before = readFileSync(mcpFile());
    await fillForm({ name: 'My_Server', command: 'node' });
    await form().getByRole('button', { name: 'Add server' }).click();
    await form()
      .getByRole('alert')
      .getByText(/^A name is 1 to 24 lower-case letters, digits and "-"/)
      .waitFor();

    await fillForm({ name: 'other', command: 'node', env: 'PATH=/tmp' });
    await form().getByRole('button', { name: 'Add server' }).click();
    await form().getByRole('alert').getByText('Environment line 1: PATH is set by Bastion', { exact: false }).waitFor();

    await fillForm({ name: 'memory', command: 'node', args: ' leading-space' });
    await form().getByText('Argument 1 starts with a space, passed as it is.').waitFor();
    await form().getByRole('button', { name: 'Add server' }).click();
    await form()
      .getByRole('alert')
      .getByText(/\(MCP_SERVER_EXISTS\)$/)
      .waitFor(SETTLED);
    expect(await form().getByRole('alert').textContent()).toMatch(/^Not added: a server named memory exists already/);
    // The fields stay, to be corrected.
    expect(await form().getByLabel('Server', { exact: true }).inputValue()).toBe('memory');
    await shotAllModes(page, SHOTS, '57-mcp-form-error', form());
    expect(readFileSync(mcpFile())).toEqual(before);
    await fillForm({ name: '', command: '' });
  });

  it('Restart starts the server again and says it is ready', async () => {
    await server('memory').getByRole('button', { name: 'Restart' }).click();
    await card()
      .getByRole('status')
      .getByText(/^memory restarted: ready, with \d+ tools\.$/)
      .waitFor(SETTLED);
    expect(await stateOf('memory').textContent()).toBe('ready');
  });

  it('Remove asks first: Cancel keeps the server; Remove takes it out of mcp.json and the list', async () => {
    await server('broken').getByRole('button', { name: 'Remove' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove the MCP server broken?' });
    await dialog.getByText('It is stopped in every project and taken out of mcp.json').waitFor();
    await shotAllModes(page, SHOTS, '57-mcp-remove-confirm');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(savedNames()).toEqual(['memory', 'broken']);

    await server('broken').getByRole('button', { name: 'Remove' }).click();
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await dialog.waitFor({ state: 'detached', ...SETTLED });
    await server('broken').waitFor({ state: 'detached' });
    expect(savedNames()).toEqual(['memory']);
    await card().getByRole('status').getByText('broken removed: it is stopped and no longer in mcp.json.').waitFor();

    await shotAllModes(page, SHOTS, '57-mcp-servers-settings', card().getByRole('heading', { name: 'MCP servers' }));
    await page.setViewportSize({ width: 420, height: 860 });
    await card().scrollIntoViewIfNeeded();
    await expectNoHorizontalOverflow(page);
    await form().getByRole('button', { name: 'Add server' }).scrollIntoViewIfNeeded();
    await expectInViewport(page, form().getByRole('button', { name: 'Add server' }), 'Add server at 420 px');
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

describe('MCP tools in a session', () => {
  it('in auto, "mcp memory read_graph {}" runs the tool: its card shows memory › read_graph, the arguments and the server’s answer', async () => {
    await openSession('auto');
    await sendMessage(page, 'mcp memory read_graph {}');
    const card = toolCard('memory › read_graph');
    await card.getByTestId('tool-status').filter({ hasText: 'done' }).waitFor(SETTLED);
    expect(await card.locator('.tool-name').textContent()).toBe('memory › read_graph');
    expect(await card.locator('.tool-name').getAttribute('title')).toBe('MCP server tool mcp__memory__read_graph');
    const outputs = card.locator('.tool-output');
    expect(await outputs.locator('.tool-output-head > span:first-child').allTextContents()).toEqual([
      'arguments',
      'result',
    ]);
    expect(await outputs.nth(0).locator('pre').textContent()).toBe('{}');
    const answer = JSON.parse((await outputs.nth(1).locator('pre').textContent()) ?? '') as unknown;
    expect(answer).toEqual({ entities: [], relations: [] });
    expect(await card.getAttribute('class')).not.toContain('tool-error');
    await page
      .locator('.bubble.assistant')
      .getByText(/^demo: read_graph of the MCP server memory answered: /)
      .waitFor(SETTLED);
  });

  it('a call the server answers as failed shows failed, the server’s words and no refusal', async () => {
    await sendMessage(
      page,
      'mcp memory add_observations {"observations":[{"entityName":"nobody","contents":["likes tea"]}]}',
    );
    const card = toolCard('memory › add_observations');
    await card.getByTestId('tool-status').filter({ hasText: 'failed' }).waitFor(SETTLED);
    expect(await card.getAttribute('class')).toContain('tool-error');
    await card.getByText('The server says the call failed.').waitFor();
    expect(await card.locator('.tool-output-head > span:first-child').allTextContents()).toEqual([
      'arguments',
      'the server’s error',
    ]);
    expect(await card.locator('.tool-output pre').nth(1).textContent()).toContain('nobody');
    expect(await card.locator('.tool-output pre').nth(0).textContent()).toContain('"likes tea"');
    await page
      .locator('.bubble.assistant')
      .getByText(/^demo: add_observations of the MCP server memory answered with an error: /)
      .waitFor(SETTLED);
    await shotAllModes(page, SHOTS, '57-mcp-tool-cards', card);
  });

  it('/mcp in a session sends nothing and opens Settings at MCP servers, the card in view with the session’s project chosen', async () => {
    const id = await openSession('auto');
    const composer = page.getByLabel('Message');
    await composer.fill('/mcp');
    await page.getByRole('option', { name: /^\/mcp/ }).waitFor();
    await composer.press('Enter');
    await page.waitForURL(/\/desktop\/settings$/);
    await server('memory').waitFor(SETTLED);
    await expectInViewport(page, card().getByRole('heading', { name: 'MCP servers' }), 'the MCP servers heading');
    // Only the content pane scrolled: the app's header stays where it is.
    await expectInViewport(page, page.getByRole('navigation', { name: 'Main' }), 'the header');
    expect(await page.evaluate(() => document.scrollingElement?.scrollTop)).toBe(0);
    await card().getByText(host.workspace, { exact: true }).waitFor();
    const session = await host.client.request<Session>('GET', `/sessions/${id}`);
    expect(session.body.title).toBe('');
    await page.screenshot({ path: join(SHOTS, '57-mcp-slash-opened-light-1280.png') });
  });

  it('in accept-edits it asks first, titled memory › read_graph; "Always allow…" shows and saves the tool by name for this project, then runs it', async () => {
    await openSession('accept-edits');
    await sendMessage(page, 'mcp memory read_graph {}');
    const approval = page.getByRole('region', { name: 'Approval needed' });
    await approval.getByRole('heading', { name: 'The agent wants to use memory › read_graph' }).waitFor(SETTLED);
    expect(await approval.getByLabel('Arguments').textContent()).toBe('{}');
    await approval.getByRole('button', { name: 'Always allow…' }).click();
    const confirm = approval.getByRole('group', { name: 'Always allow' });
    await confirm.getByText('allow mcp__memory__read_graph', { exact: true }).waitFor();
    await confirm.getByText('(every call of this tool, whatever its arguments)', { exact: false }).waitFor();
    await confirm.getByText(host.workspace, { exact: false }).waitFor();
    expect(host.policy.listing(host.workspace).project?.rules ?? []).toEqual([]);
    await shotAllModes(page, SHOTS, '57-mcp-approval', approval);
    await confirm.getByRole('button', { name: 'Save rule and allow' }).click();
    await approval.waitFor({ state: 'detached', ...SETTLED });
    await toolCard('memory › read_graph').getByTestId('tool-status').filter({ hasText: 'done' }).waitFor(SETTLED);
    expect(host.policy.listing(host.workspace).project?.rules).toEqual([
      expect.objectContaining({ decision: 'allow', tools: ['mcp__memory__read_graph'] }),
    ]);
    expect(host.policy.listing(host.workspace).global).toEqual([]);

    // The next call of it runs unasked.
    await sendMessage(page, 'mcp memory read_graph {}');
    await expect.poll(() => page.getByRole('article', { name: 'Tool memory › read_graph' }).count(), SETTLED).toBe(2);
    await page
      .getByRole('article', { name: 'Tool memory › read_graph' })
      .nth(1)
      .getByTestId('tool-status')
      .filter({ hasText: 'done' })
      .waitFor(SETTLED);
    expect(await approval.count()).toBe(0);
  });
});

describe('an MCP server that is not running', () => {
  it('a session says so above the transcript after a run, with why; MCP servers opens Settings there, Dismiss hides it', async () => {
    const store = new McpConfigStore(host.userData);
    store.add({
      name: 'quits',
      command: process.execPath,
      args: ['-e', "process.stderr.write('no config'); process.exit(3)"],
    });
    try {
      await openSession('auto');
      await sendMessage(page, 'ls');
      const banner = page.getByRole('status', { name: 'MCP servers not running' });
      await banner.waitFor(SETTLED);
      expect(await banner.locator('p').first().textContent()).toMatch(
        /^MCP server quits is not running, so the agent has none of its tools: could not start .*its last words: no config$/,
      );
      await expectInViewport(page, page.getByLabel('Message'), 'the message box under the banner');
      await shotAllModes(page, SHOTS, '57-mcp-stopped-banner', banner);
      await banner.getByRole('button', { name: 'Dismiss' }).click();
      await banner.waitFor({ state: 'detached' });
      await sendMessage(page, 'ls');
      await page.locator('.bubble.assistant').nth(1).waitFor(SETTLED);
      expect(await banner.count()).toBe(0);
      await page.reload();
      await banner.getByRole('button', { name: 'MCP servers' }).click();
      await page.waitForURL(/\/desktop\/settings$/);
      await expect.poll(() => stateOf('quits').textContent(), SETTLED).toBe('failed');
    } finally {
      store.remove('quits');
    }
  });
});

describe('an MCP tool the host’s policy asks about', () => {
  it('is asked on the page by the host, titled memory › search_nodes in the project; Always allow shows the tool’s rule; Allow runs it', async () => {
    // A global rule asks even in auto: the host holds the call and asks the page itself.
    host.policy.add(
      { kind: 'global' },
      { id: 'ask-mcp-search', decision: 'ask', tools: ['mcp__memory__search_nodes'] },
    );
    await openSession('auto');
    await sendMessage(page, 'mcp memory search_nodes {"query":"tea"}');
    const hostAsk = page.getByRole('region', { name: 'The host asks' });
    await hostAsk
      .getByRole('heading', { name: 'Bastion’s policy asks before memory › search_nodes is called' })
      .waitFor(SETTLED);
    expect(await hostAsk.locator('.approval-command').textContent()).toBe('memory › search_nodes');
    await hostAsk.getByText(`in ${host.workspace}`, { exact: false }).waitFor();
    // The agent shows no prompt of its own in auto, and the call has not run.
    expect(await page.getByRole('region', { name: 'Approval needed' }).count()).toBe(0);
    expect(await toolCard('memory › search_nodes').getByTestId('tool-status').textContent()).toBe('running');
    await hostAsk.getByRole('button', { name: 'Always allow…' }).click();
    await hostAsk
      .getByRole('group', { name: 'Always allow' })
      .getByText('allow mcp__memory__search_nodes', { exact: true })
      .waitFor();
    await shotAllModes(page, SHOTS, '57-mcp-host-ask', hostAsk);
    await hostAsk.getByRole('button', { name: 'Cancel' }).click();
    await hostAsk.getByRole('button', { name: 'Allow', exact: true }).click();
    await hostAsk.waitFor({ state: 'detached', ...SETTLED });
    await toolCard('memory › search_nodes').getByTestId('tool-status').filter({ hasText: 'done' }).waitFor(SETTLED);
    // Allowed once: no rule was saved.
    expect(
      host.policy
        .listing(host.workspace)
        .project?.rules.some((rule) => rule.tools?.[0] === 'mcp__memory__search_nodes'),
    ).toBe(false);
    host.policy.remove({ kind: 'global' }, 'ask-mcp-search');
  });
});

describe('where commands run without the sandbox', () => {
  let unsandboxed: DesktopWorld | undefined;
  afterAll(() => unsandboxed?.close());

  it('Settings says servers cannot run here and why; a server added is saved but not running, nothing started', async () => {
    // The posture decided for Windows: no sandbox, so no MCP server runs.
    unsandboxed = await openDesktopWorld({ platform: 'win32' });
    const { page: other, host: otherHost } = unsandboxed;
    expect(otherHost.capabilities.sandbox).toBe('none');
    await openSettingsTab(other, 'MCP servers');
    const otherCard = other.getByRole('region', { name: 'MCP servers' });
    const note = otherCard.getByRole('status').filter({ hasText: 'Servers cannot run here' });
    await note.waitFor(SETTLED);
    expect(await note.textContent()).toMatch(/^Servers cannot run here: MCP servers run only inside the sandbox.*\.$/);
    const otherForm = otherCard.getByRole('form', { name: 'Add server' });
    await otherForm.getByLabel('Server', { exact: true }).fill('memory');
    await otherForm.getByLabel('Program').fill('node');
    await otherForm.getByLabel('Arguments, one per line').fill(MEMORY_SERVER);
    await otherForm.getByRole('button', { name: 'Add server' }).click();
    await otherCard.getByRole('alert').getByText('memory added, but servers cannot run here.').waitFor(SETTLED);
    const saved = otherCard.getByRole('listitem', { name: 'MCP server memory' });
    expect(await saved.getByTestId('mcp-state').textContent()).toBe('not running');
    expect(await saved.getByRole('list', { name: 'Tools' }).count()).toBe(0);
    await saved.getByText('Not running: servers cannot run here.').waitFor();
    expect(await saved.getByRole('button', { name: 'Restart' }).isDisabled()).toBe(true);
    const file = JSON.parse(readFileSync(join(otherHost.userData, 'host', 'mcp.json'), 'utf8')) as McpConfigFile;
    expect(file.servers.map((entry) => entry.name)).toEqual(['memory']);
    await shotAllModes(other, SHOTS, '57-mcp-unavailable', note);
  }, 120_000);
});
