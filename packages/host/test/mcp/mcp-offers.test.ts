/**
 * MCP servers' prompts and resources as the host offers them to the person: real servers (the
 * test fixture over the SDK's own stdio server) in the real srt sandbox. A ready server's prompts
 * and resources are listed beside its tools; a prompt runs with the person's arguments into one
 * text; a listed text resource is read. Everything the server says is bounded: a server listing
 * hundreds is capped with a note, names a command or a word cannot carry are left out, a text too
 * large or a binary resource is refused (never cut), a held token is cut out, and a server that
 * stopped offers nothing.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLogger,
  MCP_MAX_PROMPTS_PER_SERVER,
  MCP_MAX_RESOURCES_PER_SERVER,
  MCP_OFFER_DESCRIPTION_MAX_CHARS,
  MCP_RESOURCE_TEMPLATE_MAX_VARIABLES,
  mcpListingSchema,
  type LogRecord,
  type McpServerStatus,
} from '@bastion/protocol';
import { makeTempDir, waitFor } from '@bastion/test-support';
import { HostError } from '../../src/errors.js';
import { McpHub } from '../../src/mcp/mcp-hub.js';
import { mcpFixture } from '../support/mcp-fixture.js';
import { PolicyStore } from '../../src/policy/policy-store.js';
import { acquireSrtSession, type SrtSession } from '../../src/sandbox/srt-session.js';
import { rawSidecar } from './raw-sidecar.js';

/** An argument the fixture ignores, so this file's servers are told from every other's. */
const MARKER = `mcp-offers-test-${process.pid}`;
const fixture = mcpFixture(MARKER);

let srt: SrtSession;
let root: string;
let workspace: string;
let userData: string;
let records: LogRecord[];
let hub: McpHub;
const realHome = process.env.HOME;
const realTmp = process.env.TMPDIR;

beforeAll(async () => {
  root = makeTempDir('bastion-mcp-offers-');
  const home = join(root, 'home');
  userData = join(root, 'userdata');
  workspace = join(root, 'workspace');
  for (const dir of [home, userData, workspace]) mkdirSync(dir, { recursive: true });
  // srt resolves its session's HOME secrets from HOME, and the servers' temp dirs go in TMPDIR.
  process.env.HOME = home;
  process.env.TMPDIR = join(root, 'tmp');
  mkdirSync(process.env.TMPDIR);
  srt = await acquireSrtSession();
  records = [];
  hub = new McpHub({ userData, home, log: createLogger('host', (record) => records.push(record)), srt });
  await hub.add(workspace, fixture('fixture'));
}, 60_000);

afterAll(async () => {
  await hub?.close();
  await srt?.release();
  process.env.HOME = realHome;
  if (realTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = realTmp;
  rmSync(root, { recursive: true, force: true });
});

const statusOf = (listing: { servers: McpServerStatus[] }, name: string): McpServerStatus => {
  const status = listing.servers.find((server) => server.name === name);
  if (status === undefined) throw new Error(`no server ${name}`);
  return status;
};

/** The refusal's code and words when `call` is refused with a HostError. */
async function refusal(call: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof HostError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('not refused');
}

describe('a ready server’s prompts and resources', () => {
  it('are listed beside its tools, with each prompt’s arguments and each resource’s title and type, in a listing the schema takes', async () => {
    const listing = await hub.catalog(workspace);
    expect(mcpListingSchema.safeParse(listing).success).toBe(true);
    const status = statusOf(listing, 'fixture');
    expect(status.tools.map((tool) => tool.name)).toContain('echo');
    expect(status.prompts).toEqual([
      {
        name: 'review',
        description: 'Review a piece of code',
        arguments: [
          { name: 'code', description: 'the code to review', required: true },
          { name: 'focus', description: 'what to look at', required: false },
        ],
      },
      {
        name: 'greet',
        description: 'Says hello <img src=x onerror="window.__mcpPwned=1"> <b>bold</b>',
        arguments: [],
      },
    ]);
    expect(status.resources).toEqual([
      { uri: 'notes://readme', name: 'Fixture readme', description: '', mime_type: 'text/markdown' },
      { uri: 'notes://logo', name: 'logo', description: '', mime_type: 'image/png' },
    ]);
    expect(status.left_out).toEqual([]);
  });

  it('runs a prompt with the person’s arguments into one text, and says whose each message is when the server also speaks as the assistant', async () => {
    expect(await hub.prompt(workspace, 'fixture', 'review', { code: 'let x = 1', focus: 'names' })).toEqual({
      text: 'Review this code: let x = 1\nFocus on names.',
    });
    expect(await hub.prompt(workspace, 'fixture', 'greet', {})).toEqual({
      text: 'User: Say hello to the fixture.\n\nAssistant: Hello from the fixture!',
    });
    const logged = records.filter((record) => record.event === 'mcp.prompt-run');
    expect(logged.length).toBe(2);
    expect(JSON.stringify(records)).not.toContain('let x = 1');
  });

  it('refuses a prompt it does not list, an argument the prompt does not take and a needed one missing, in words', async () => {
    expect(await refusal(hub.prompt(workspace, 'fixture', 'nope', {}))).toEqual({
      code: 'MCP_PROMPT_UNKNOWN',
      message: 'the MCP server fixture offers no prompt nope',
    });
    expect(await refusal(hub.prompt(workspace, 'fixture', 'review', { code: 'x', lang: 'ts' }))).toEqual({
      code: 'MCP_PROMPT_ARGUMENTS_INVALID',
      message: '/mcp__fixture__review takes no argument "lang"; it takes code (needed), focus',
    });
    expect(await refusal(hub.prompt(workspace, 'fixture', 'review', { focus: 'x' }))).toEqual({
      code: 'MCP_PROMPT_ARGUMENTS_INVALID',
      message: '/mcp__fixture__review needs code: type /mcp__fixture__review code=…',
    });
    expect(await refusal(hub.prompt(workspace, 'elsewhere', 'review', {}))).toMatchObject({
      code: 'MCP_SERVER_UNKNOWN',
    });
  });

  it('reads a listed text resource; refuses a binary one and a URI the server did not list, reading neither', async () => {
    expect(await hub.resource(workspace, 'fixture', 'notes://readme')).toEqual({
      server: 'fixture',
      uri: 'notes://readme',
      name: 'Fixture readme',
      text: "# Fixture notes\nThe fixture's readme: FIXTURE-README-7c1.",
    });
    expect(await refusal(hub.resource(workspace, 'fixture', 'notes://logo'))).toEqual({
      code: 'MCP_RESOURCE_NOT_TEXT',
      message: "notes://logo is binary (image/png): only a resource's text can be attached to a message",
    });
    const reads = records.filter((record) => record.event === 'mcp.resource-read').length;
    expect(await refusal(hub.resource(workspace, 'fixture', 'file:///etc/passwd'))).toEqual({
      code: 'MCP_RESOURCE_UNKNOWN',
      message: 'the MCP server fixture lists no resource file:///etc/passwd',
    });
    expect(records.filter((record) => record.event === 'mcp.resource-read').length).toBe(reads);
  });

  it('are not given to the agent: the sidecar’s listing carries the tools alone', async () => {
    const sidecar = rawSidecar({ hub, workspace, policy: new PolicyStore(userData) });
    try {
      const listed = await sidecar.list();
      const server = listed.servers.find((candidate) => candidate.name === 'fixture');
      expect(Object.keys(server ?? {}).sort()).toEqual(['name', 'state', 'tools']);
      expect(JSON.stringify(listed)).not.toContain('notes://readme');
    } finally {
      sidecar.close();
    }
  });
});

describe('what a server lists and answers is bounded', () => {
  beforeAll(async () => {
    await hub.add(workspace, fixture('flood', 'offers-flood'));
  }, 60_000);

  it('a server listing 300 prompts and 300 resources is offered 64 of each, the rest counted in one note each', () => {
    const status = statusOf(hub.listing(workspace), 'flood');
    expect(status.state).toBe('ready');
    expect(status.prompts.length).toBe(MCP_MAX_PROMPTS_PER_SERVER);
    expect(status.resources.length).toBe(MCP_MAX_RESOURCES_PER_SERVER);
    // 307 prompts: 64 offered, `bad name` and `wide` left out, then 241 over the count; the
    // first 63 of those 243 named a line each, the rest counted. 305 resources likewise.
    expect(status.left_out.filter((note) => note.startsWith('prompt ')).length).toBe(MCP_MAX_PROMPTS_PER_SERVER - 1);
    expect(status.left_out).toContain('180 more prompts left out');
    expect(status.left_out.filter((note) => note.startsWith('resource ')).length).toBe(
      MCP_MAX_RESOURCES_PER_SERVER - 1,
    );
    expect(status.left_out).toContain('178 more resources left out');
  });

  it('leaves out a prompt named with a space, one of 20 arguments and a resource whose URI holds a space, and cuts a long description', () => {
    const status = statusOf(hub.listing(workspace), 'flood');
    expect(status.left_out).toContain(
      'prompt bad name: its name is not letters, digits, "_" and "-", or too long for a command',
    );
    expect(status.left_out).toContain('prompt wide: it takes more than 16 arguments');
    expect(status.left_out).toContain('resource bad uri: its URI holds a space or a control character');
    expect(status.prompts.map((prompt) => prompt.name)).not.toContain('bad name');
    const long = status.prompts.find((prompt) => prompt.name === 'long-desc');
    expect(long?.description).toBe('d'.repeat(MCP_OFFER_DESCRIPTION_MAX_CHARS));
  });

  it('refuses a prompt’s 70 KiB text and a 70 KiB resource, never cutting them, and a blob; says a server’s own error in its words', async () => {
    expect(await refusal(hub.prompt(workspace, 'flood', 'huge', {}))).toEqual({
      code: 'MCP_PROMPT_TOO_LARGE',
      message: '/mcp__flood__huge gave 71,680 characters, over the 65,536 a message may be',
    });
    expect(await refusal(hub.resource(workspace, 'flood', 'big://text'))).toEqual({
      code: 'MCP_RESOURCE_TOO_LARGE',
      message: 'big://text is 70 KiB of text, over the 64 KiB a resource attached to a message may be',
    });
    expect(await refusal(hub.resource(workspace, 'flood', 'bin://blob'))).toMatchObject({
      code: 'MCP_RESOURCE_NOT_TEXT',
    });
    const failed = await refusal(hub.prompt(workspace, 'flood', 'fails', {}));
    expect(failed.code).toBe('MCP_READ_FAILED');
    expect(failed.message).toContain('the fixture cannot run this prompt');
  });

  it('cuts a token the user gave the server from a prompt’s description, a prompt’s text and a resource’s text', async () => {
    const token = 'tok-offers-8f2a6c91d4e7b350';
    await hub.add(workspace, { ...fixture('leaky', 'leaky'), env: { SERVICE_TOKEN: token } });
    const redacted = '[redacted: SERVICE_TOKEN of the MCP server leaky]';
    const status = statusOf(hub.listing(workspace), 'leaky');
    expect(status.prompts[0]?.description).toBe(`uses ${redacted}`);
    expect(await hub.prompt(workspace, 'leaky', 'secret', {})).toEqual({ text: `the token is ${redacted}` });
    expect((await hub.resource(workspace, 'leaky', 'leak://token')).text).toBe(`token: ${redacted}`);
    expect(JSON.stringify(records)).not.toContain(token);
  });

  it('a server that stopped offers nothing: its prompts and resources leave the listing, and running one is refused', async () => {
    const sidecar = rawSidecar({ hub, workspace, policy: new PolicyStore(userData) });
    try {
      // The leaky fixture's `die` tool exits the server mid-call.
      await sidecar.call('leaky', 'die');
    } finally {
      sidecar.close();
    }
    await waitFor(() => statusOf(hub.listing(workspace), 'leaky').state === 'failed');
    const status = statusOf(hub.listing(workspace), 'leaky');
    expect([status.prompts, status.resources]).toEqual([[], []]);
    expect(await refusal(hub.prompt(workspace, 'leaky', 'secret', {}))).toMatchObject({ code: 'MCP_SERVER_FAILED' });
    expect(await refusal(hub.resource(workspace, 'leaky', 'leak://token'))).toMatchObject({
      code: 'MCP_SERVER_FAILED',
    });
  });
});

describe('a server whose lists change', () => {
  /** How many times the `changing` server was asked for each of its lists. */
  const listCounts = async () =>
    JSON.parse((await hub.resource(workspace, 'changing', 'control://counts')).text) as Record<
      'tools' | 'prompts' | 'resources',
      number
    >;
  const offered = (status: McpServerStatus) => ({
    tools: status.tools.map((tool) => tool.name),
    prompts: status.prompts.map((prompt) => prompt.name),
    resources: status.resources.map((resource) => resource.uri),
  });

  it('offers its new tool, prompt and resource without a restart once it says its lists changed, five notifications of each read as at most two listings more', async () => {
    await hub.add(workspace, fixture('changing', 'changing'));
    expect(offered(statusOf(hub.listing(workspace), 'changing'))).toEqual({
      tools: ['echo'],
      prompts: ['first'],
      resources: ['control://change', 'control://counts'],
    });
    expect(await listCounts()).toMatchObject({ tools: 1, prompts: 1, resources: 1 });
    await hub.resource(workspace, 'changing', 'control://change');
    await waitFor(() => statusOf(hub.listing(workspace), 'changing').prompts.length === 2, 20_000);
    const status = statusOf(hub.listing(workspace), 'changing');
    expect(offered(status)).toEqual({
      tools: ['echo', 'added'],
      prompts: ['first', 'second'],
      resources: ['control://change', 'control://counts', 'second://b'],
    });
    expect(status.state).toBe('ready');
    expect(
      (await hub.tools(workspace)).find((server) => server.name === 'changing')?.tools.map((tool) => tool.name),
    ).toEqual(['echo', 'added']);
    expect(await hub.prompt(workspace, 'changing', 'second', {})).toEqual({ text: 'the second prompt' });
    expect((await hub.resource(workspace, 'changing', 'second://b')).text).toBe('second://b');
    // Fifteen notifications, three debounced timers: the first listing, and one more for those said meanwhile.
    await waitFor(() => records.filter((record) => record.event === 'mcp.relisted').length >= 2);
    const counts = await listCounts();
    for (const list of ['tools', 'prompts', 'resources'] as const) {
      expect(counts[list]).toBeGreaterThanOrEqual(2);
      expect(counts[list]).toBeLessThanOrEqual(3);
    }
  });
});

describe('resource templates', () => {
  it('lists a server’s templates with their variables, leaving out one with a space, one with no variable and one with nine', async () => {
    await hub.add(workspace, fixture('templates', 'templates'));
    const status = statusOf(hub.listing(workspace), 'templates');
    expect(status.resource_templates).toEqual([
      {
        uri_template: 'notes:///{path}',
        name: 'Note by path',
        description: 'a note, by its path',
        variables: ['path'],
      },
      { uri_template: 'big:///{n}', name: 'big', description: '', variables: ['n'] },
      { uri_template: 'bin:///{n}', name: 'bin', description: '', variables: ['n'] },
    ]);
    expect(status.left_out).toEqual([
      'resource template spaced:///{a} {b}: it holds a space or a control character',
      'resource template plain://none: it has no variable',
      `resource template nine:///{v0}/{v1}/{v2}/{v3}/{v4}/{v5}/{v6}/{v7}/{v8}: it has more than ${MCP_RESOURCE_TEMPLATE_MAX_VARIABLES} variables`,
    ]);
    expect(mcpListingSchema.safeParse(hub.listing(workspace)).success).toBe(true);
  });

  it('reads the URI a template expands to with the person’s value, percent-encoded: a value cannot add a path, a word or another mention', async () => {
    expect(await hub.resource(workspace, 'templates', 'notes:///{path}', { path: 'a/b c @other:x' })).toEqual({
      server: 'templates',
      uri: 'notes:///a%2Fb%20c%20%40other%3Ax',
      name: 'Note by path',
      text: 'note: a/b c @other:x',
    });
  });

  it('refuses a template it does not list, a value it does not take or one missing, and a text too large or binary, as for a resource', async () => {
    expect(await refusal(hub.resource(workspace, 'templates', 'plain://none', {}))).toEqual({
      code: 'MCP_RESOURCE_UNKNOWN',
      message: 'the MCP server templates lists no resource template plain://none',
    });
    // A template's text is no listed resource: read without values it is refused.
    expect(await refusal(hub.resource(workspace, 'templates', 'notes:///{path}'))).toMatchObject({
      code: 'MCP_RESOURCE_UNKNOWN',
    });
    expect(await refusal(hub.resource(workspace, 'templates', 'notes:///{path}', { path: 'x', other: 'y' }))).toEqual({
      code: 'MCP_TEMPLATE_VALUES_INVALID',
      message: 'notes:///{path} takes no variable "other"',
    });
    expect(await refusal(hub.resource(workspace, 'templates', 'notes:///{path}', { path: '' }))).toEqual({
      code: 'MCP_TEMPLATE_VALUES_INVALID',
      message: 'notes:///{path} needs a value for path',
    });
    expect(await refusal(hub.resource(workspace, 'templates', 'notes:///{path}', { path: 'x'.repeat(1100) }))).toEqual({
      code: 'MCP_TEMPLATE_VALUES_INVALID',
      message: 'notes:///{path} expands to over 1024 characters',
    });
    expect(await refusal(hub.resource(workspace, 'templates', 'notes:///{path}', { path: 'a\uD800' }))).toEqual({
      code: 'MCP_TEMPLATE_VALUES_INVALID',
      message: 'a value for notes:///{path} is not text a URI can hold',
    });
    expect(await refusal(hub.resource(workspace, 'templates', 'big:///{n}', { n: '70' }))).toMatchObject({
      code: 'MCP_RESOURCE_TOO_LARGE',
    });
    expect(await refusal(hub.resource(workspace, 'templates', 'bin:///{n}', { n: '1' }))).toMatchObject({
      code: 'MCP_RESOURCE_NOT_TEXT',
    });
  });
});
