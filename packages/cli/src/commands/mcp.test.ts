import { describe, expect, it } from 'vitest';
import type { McpListing } from '@bastion/protocol';
import { listingText } from './mcp.js';

const listing: McpListing = {
  file: '/h/host/mcp.json',
  workspace: '/w',
  available: true,
  servers: [
    {
      name: 'docs',
      command: 'node',
      args: ['docs.js'],
      env_names: [],
      data: '/h/host/mcp-data/docs',
      state: 'ready',
      tools: [{ name: 'search', description: '' }],
      prompts: [],
      resources: [{ uri: 'docs://index', name: 'index', description: '' }],
      resource_templates: [
        { uri_template: 'file:///{path}', name: 'file', description: '', variables: ['path'] },
        { uri_template: 'docs://{topic}/{page}', name: 'page', description: '', variables: ['topic', 'page'] },
      ],
      left_out: [],
    },
  ],
};

describe('bastion mcp list', () => {
  it('lists a ready server’s resource templates as @SERVER:TEMPLATE after its resources', () => {
    const lines = listingText(listing).split('\n');
    expect(lines).toContain('  resources @docs:docs://index');
    expect(lines).toContain('  templates @docs:file:///{path}, @docs:docs://{topic}/{page}');
    expect(lines.indexOf('  templates @docs:file:///{path}, @docs:docs://{topic}/{page}')).toBe(
      lines.indexOf('  resources @docs:docs://index') + 1,
    );
  });
});
