import { describe, expect, it } from 'vitest';
import type { McpListing, McpServerStatus, MessagePart } from '@bastion/bridge';
import {
  matchingResources,
  mcpContextOf,
  mcpPromptCommands,
  mcpPromptDescription,
  messageMcpOf,
  typedTextOf,
  type McpOffersSource,
} from './mcp-offers.js';

const server = (name: string, state: McpServerStatus['state']): McpServerStatus => ({
  name,
  command: 'node',
  args: [],
  env_names: [],
  data: `/d/${name}`,
  state,
  tools: [],
  prompts: [{ name: 'review', description: 'Review', arguments: [{ name: 'code', description: '', required: true }] }],
  resources: [{ uri: 'notes://readme', name: 'Fixture readme', description: '' }],
  resource_templates: [{ uri_template: 'notes:///{path}', name: 'Note by path', description: '', variables: ['path'] }],
  left_out: [],
});
const listing: McpListing = {
  file: '/h/mcp.json',
  workspace: '/w',
  available: true,
  servers: [server('fixture', 'ready'), server('broken', 'failed')],
};

describe('the MCP offers in the message box', () => {
  it('are the ready servers’ prompts, as /mcp__SERVER__PROMPT with their arguments said; a failed server offers none', () => {
    expect(mcpPromptCommands(listing).map((command) => command.name)).toEqual(['/mcp__fixture__review']);
    expect(mcpPromptDescription(listing.servers[0]?.prompts[0] ?? { name: '', description: '', arguments: [] })).toBe(
      'Review · code=…',
    );
    expect(mcpPromptCommands(undefined)).toEqual([]);
  });

  it('match a resource or resource template by the start of SERVER:URI or a part of its name, ignoring case; a failed server’s none', () => {
    expect(matchingResources(listing, '').map((option) => [option.kind, option.word])).toEqual([
      ['resource', 'fixture:notes://readme'],
      ['template', 'fixture:notes:///{path}'],
    ]);
    expect(matchingResources(listing, 'FIXTURE:notes').length).toBe(2);
    expect(matchingResources(listing, 'by path').map((option) => option.name)).toEqual(['Note by path']);
    expect(matchingResources(listing, 'readme').length).toBe(1);
    expect(matchingResources(listing, 'notes').length).toBe(0);
    expect(matchingResources(listing, 'broken').length).toBe(0);
  });

  it('read a stored prompt back as the text typed, the prompt it came from and the resources attached', () => {
    const parts: MessagePart[] = [
      { type: 'text', text: 'Review x', mcp: { kind: 'prompt', server: 'fixture', name: 'review' } },
      { type: 'text', text: 'README', mcp: { kind: 'resource', server: 'fixture', uri: 'notes://readme', name: 'r' } },
    ];
    expect(typedTextOf(parts)).toBe('Review x');
    expect(messageMcpOf(parts)).toEqual({
      prompt: { server: 'fixture', name: 'review' },
      resources: [{ server: 'fixture', uri: 'notes://readme', name: 'r', text: 'README' }],
    });
    expect(messageMcpOf([{ type: 'text', text: 'plain' }])).toBeUndefined();
  });
});

describe('mcpContextOf', () => {
  /** A host whose resource reads are counted, each giving the readme's text as it is now. */
  const counting = () => {
    const reads: string[] = [];
    const source: McpOffersSource = {
      catalog: () => Promise.resolve(listing),
      prompt: () => Promise.reject(new Error('no prompt is run here')),
      resource: (_workspace, server, uri, variables) => {
        reads.push(`${server}:${uri}${variables === undefined ? '' : ` ${JSON.stringify(variables)}`}`);
        // A template is expanded as the host does for this one (notes:///{path}).
        const read = variables === undefined ? uri : `notes:///${encodeURIComponent(variables.path ?? '')}`;
        return Promise.resolve({ server, uri: read, name: 'Fixture readme', text: 'read at send' });
      },
    };
    return { source, reads };
  };
  const chosen = { server: 'fixture', uri: 'notes://readme', name: 'Fixture readme', text: 'read when chosen' };

  it('sends a resource chosen in the @ menu as it was read then, without reading it again', async () => {
    const { source, reads } = counting();
    const context = await mcpContextOf(source, '/w', 'Summarise @fixture:notes://readme', undefined, [chosen]);
    expect(context).toEqual({ resources: [chosen] });
    expect(reads).toEqual([]);
  });

  it('reads a resource typed by hand (not chosen in the menu) when the message goes', async () => {
    const { source, reads } = counting();
    const context = await mcpContextOf(source, '/w', 'Summarise @fixture:notes://readme');
    expect(context.resources?.map((resource) => resource.text)).toEqual(['read at send']);
    expect(reads).toEqual(['fixture:notes://readme']);
  });

  const filled = { server: 'fixture', template: 'notes:///{path}', values: { path: 'a b' }, uri: 'notes:///a%20b' };

  it('reads a template filled in before a reload from its template and values, as the person named it', async () => {
    const { source, reads } = counting();
    const context = await mcpContextOf(source, '/w', 'See @fixture:notes:///a%20b', undefined, [], [filled]);
    expect(context.resources?.map(({ uri, text }) => [uri, text])).toEqual([['notes:///a%20b', 'read at send']]);
    expect(reads).toEqual(['fixture:notes:///{path} {"path":"a b"}']);
  });

  it('reads no template filled in whose word the message holds only in a prompt’s text', async () => {
    const { source, reads } = counting();
    const prompt = { origin: { server: 'lure', name: 'lure' }, spans: [[0, 27]] as const };
    const context = await mcpContextOf(source, '/w', 'See @fixture:notes:///a%20b', prompt, [], [filled]);
    expect(context).toEqual({ prompt: prompt.origin });
    expect(reads).toEqual([]);
  });
});
