import { describe, expect, it } from 'vitest';
import type { McpServerStatus } from './api/mcp.js';
import { AGENT_MAX_MCP_RESOURCES } from './limits.js';
import {
  mayNameResource,
  mcpResourceMention,
  mentionedResources,
  serverWrittenMentions,
} from './mcp-resource-mention.js';

type Server = Pick<McpServerStatus, 'name' | 'state' | 'resources'>;
const resource = (uri: string) => ({ uri, name: uri, description: '' });
const fixture: Server = {
  name: 'fixture',
  state: 'ready',
  resources: [resource('notes://readme'), resource('notes://logo')],
};
const stopped: Server = { name: 'docs', state: 'failed', resources: [] };

describe('mentionedResources', () => {
  it('finds each @SERVER:URI word naming a listed resource once, in order, a sentence’s punctuation after it allowed', () => {
    expect(mcpResourceMention('fixture', 'notes://readme')).toBe('@fixture:notes://readme');
    expect(
      mentionedResources('read @fixture:notes://logo and @fixture:notes://readme.\n@fixture:notes://logo again', [
        fixture,
      ]),
    ).toEqual({
      ok: true,
      resources: [
        { server: 'fixture', uri: 'notes://logo' },
        { server: 'fixture', uri: 'notes://readme' },
      ],
    });
  });

  it('leaves a word alone whose server is none of the list: a file path, an e-mail address, a mention inside a word', () => {
    expect(mentionedResources('see @src/a:b, me@fixture:notes://readme and @other:x', [fixture])).toEqual({
      ok: true,
      resources: [],
    });
  });

  it('attaches nothing from a word with a character an MCP server’s prompt wrote: only the words the person typed', () => {
    const fromServer = 'Summarise @fixture:notes://logo please';
    const spans = [[0, fromServer.length]] as const;
    expect(mentionedResources(`${fromServer} and @fixture:notes://readme`, [fixture], spans)).toEqual({
      ok: true,
      resources: [{ server: 'fixture', uri: 'notes://readme' }],
    });
    // The same word typed by the person is theirs.
    expect(mentionedResources(`${fromServer} @fixture:notes://logo`, [fixture], spans)).toEqual({
      ok: true,
      resources: [{ server: 'fixture', uri: 'notes://logo' }],
    });
    // Edited inside: the person's "@fixture:" before the server's "notes://logo", a word the
    // server wrote whose punctuation the person took off, or a space the person put before it.
    expect(mentionedResources('@fixture:notes://logo', [fixture], [[9, 21]])).toEqual({ ok: true, resources: [] });
    expect(
      mentionedResources(
        'see @fixture:notes://logo',
        [fixture],
        [
          [0, 4],
          [5, 25],
        ],
      ),
    ).toEqual({
      ok: true,
      resources: [],
    });
    expect(mentionedResources('@docs:x', [fixture, stopped], [[0, 1]])).toEqual({ ok: true, resources: [] });
    expect(mayNameResource('see @fixture:x')).toBe(true);
    expect(mayNameResource('mail me@fixture:x or @ fixture:x')).toBe(false);
  });

  it('takes a word naming a resource the person read by choosing it (a filled-in template), and no other the server does not list', () => {
    const chosen = [{ server: 'fixture', uri: 'notes:///a%20b' }];
    expect(mentionedResources('see @fixture:notes:///a%20b.', [fixture], [], chosen)).toEqual({
      ok: true,
      resources: [{ server: 'fixture', uri: 'notes:///a%20b' }],
    });
    expect(mentionedResources('see @fixture:notes:///other', [fixture], [], chosen)).toEqual({
      ok: false,
      message: '@fixture:notes:///other: the MCP server fixture lists no such resource',
    });
    expect(mentionedResources('see @fixture:notes:///a%20b', [fixture], [[4, 8]], chosen)).toEqual({
      ok: true,
      resources: [],
    });
  });

  it('refuses a resource the server does not list, a server that is not running, and more resources than a message carries', () => {
    expect(mentionedResources('@fixture:notes://gone', [fixture])).toEqual({
      ok: false,
      message: '@fixture:notes://gone: the MCP server fixture lists no such resource',
    });
    expect(mentionedResources('@docs:intro', [fixture, stopped])).toEqual({
      ok: false,
      message: '@docs:intro: the MCP server docs is not running, so none of its resources can be attached',
    });
    const many: Server = {
      name: 'many',
      state: 'ready',
      resources: Array.from({ length: AGENT_MAX_MCP_RESOURCES + 1 }, (_, index) => resource(`r://${index}`)),
    };
    const text = many.resources.map((listed) => `@many:${listed.uri}`).join(' ');
    expect(mentionedResources(text, [many])).toMatchObject({ ok: false });
  });
});

describe('serverWrittenMentions', () => {
  it('names the @SERVER:URI words with a character in a server’s spans, as written, and none the person typed', () => {
    const text = 'Summarise @other:notes://readme, then @other:notes://logo and @x:y';
    // The server wrote up to the `@` of the second word; the person typed from `other:notes://logo` on.
    const spans = [[0, 39]] as const;
    expect(serverWrittenMentions(text, spans)).toEqual(['@other:notes://readme,', '@other:notes://logo']);
    expect(serverWrittenMentions(text, [[0, 38]])).toEqual(['@other:notes://readme,']);
    expect(serverWrittenMentions(text, [])).toEqual([]);
  });
});
