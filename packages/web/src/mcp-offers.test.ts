import { describe, expect, it } from 'vitest';
import type { McpListing, McpServerStatus, MessagePart } from '@bastion/bridge';
import { matchingResources, mcpPromptCommands, mcpPromptDescription, messageMcpOf, typedTextOf } from './mcp-offers.js';

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

  it('match a resource by the start of SERVER:URI or a part of its name, ignoring case; a failed server’s none', () => {
    expect(matchingResources(listing, '').map((option) => option.word)).toEqual(['fixture:notes://readme']);
    expect(matchingResources(listing, 'FIXTURE:notes').length).toBe(1);
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
