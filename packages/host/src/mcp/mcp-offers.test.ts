import { describe, expect, it } from 'vitest';
import { MCP_OFFERS_MAX_BYTES, MCP_RESOURCE_NAME_MAX_CHARS } from '@bastion/protocol';
import { offersOf, resourceText } from './mcp-offers.js';

const TOKEN = 'tok-9d1f2e3a4b5c6d7e';
const redact = (text: string) => text.split(TOKEN).join('[redacted]');

describe('offersOf', () => {
  it('leaves out the entries past MCP_OFFERS_MAX_BYTES of one server’s prompts and resources, saying why', () => {
    const description = 'd'.repeat(500);
    const prompts = Array.from({ length: 50 }, (_, index) => ({ name: `p${index}`, description }));
    const resources = Array.from({ length: 60 }, (_, index) => ({
      uri: `r://${index}`,
      name: `r${index}`,
      description,
    }));
    const offers = offersOf('docs', prompts, resources, [], redact);
    const size = [...offers.prompts, ...offers.resources]
      .map((entry) => new TextEncoder().encode(JSON.stringify(entry)).byteLength)
      .reduce((sum, bytes) => sum + bytes, 0);
    expect(size).toBeLessThanOrEqual(MCP_OFFERS_MAX_BYTES);
    expect(offers.prompts.length).toBe(50);
    expect(offers.resources.length).toBeLessThan(60);
    expect(offers.leftOut[0]).toBe(
      `resource r://${offers.resources.length}: over the 32 KiB of prompts and resources one server may list`,
    );
  });

  it('leaves out a prompt or argument or resource whose name holds a held value, and cuts one from descriptions and titles', () => {
    const offers = offersOf(
      'docs',
      [
        { name: `p${TOKEN}` },
        { name: 'ok', description: `uses ${TOKEN}`, arguments: [{ name: TOKEN }] },
        { name: 'fine', description: `uses ${TOKEN}` },
      ],
      [
        { uri: `r://${TOKEN}`, name: 'r' },
        { uri: 'r://ok', name: 'r', title: `${TOKEN} ${'t'.repeat(200)}` },
      ],
      [],
      redact,
    );
    expect(offers.prompts).toEqual([{ name: 'fine', description: 'uses [redacted]', arguments: [] }]);
    expect(offers.resources).toEqual([
      { uri: 'r://ok', name: `[redacted] ${'t'.repeat(200)}`.slice(0, MCP_RESOURCE_NAME_MAX_CHARS), description: '' },
    ]);
    expect(offers.leftOut).toEqual([
      'prompt p[redacted]: its name holds the value of a variable Bastion holds',
      'prompt ok: an argument’s name is not letters, digits, "_", "-" and ".", or too long',
      'resource r://[redacted]: its URI holds the value of a variable Bastion holds',
    ]);
    expect(JSON.stringify(offers)).not.toContain(TOKEN);
  });

  it('offers the first of two prompts with one name and of two resources with one URI', () => {
    const offers = offersOf(
      'docs',
      [
        { name: 'a', description: 'first' },
        { name: 'a', description: 'second' },
      ],
      [
        { uri: 'r://a', name: 'first' },
        { uri: 'r://a', name: 'second' },
      ],
      [],
      redact,
    );
    expect(offers.prompts.map((prompt) => prompt.description)).toEqual(['first']);
    expect(offers.resources.map((resource) => resource.name)).toEqual(['first']);
    expect(offers.leftOut).toEqual([
      'prompt a: another prompt has its name',
      'resource r://a: another resource has its URI',
    ]);
  });
});

describe('resourceText', () => {
  it('joins text contents with a blank line, cut of held values; refuses any blob among them', () => {
    expect(
      resourceText(
        'r://a',
        {
          contents: [
            { uri: 'r://a', text: 'one' },
            { uri: 'r://a#2', text: `two ${TOKEN}` },
          ],
        },
        redact,
      ),
    ).toEqual({ ok: true, text: 'one\n\ntwo [redacted]' });
    expect(
      resourceText(
        'r://a',
        {
          contents: [
            { uri: 'r://a', text: 'one' },
            { uri: 'r://b', blob: 'AAAA' },
          ],
        },
        redact,
      ),
    ).toMatchObject({ ok: false, code: 'MCP_RESOURCE_NOT_TEXT' });
  });

  it('leaves out a resource template holding a held value, one whose variable is named by it, and one that does not parse', () => {
    const offers = offersOf(
      'docs',
      [],
      [],
      [
        { uriTemplate: `t://${TOKEN}/{x}`, name: 't' },
        { uriTemplate: `t://{${TOKEN}}`, name: 't' },
        { uriTemplate: 't://{open', name: 't' },
        { uriTemplate: 't://{a}/{a}', name: 't' },
        { uriTemplate: 't:///{+path}', name: 'ok', description: `uses ${TOKEN}` },
      ],
      redact,
    );
    expect(offers.resourceTemplates).toEqual([
      { uri_template: 't:///{+path}', name: 'ok', description: 'uses [redacted]', variables: ['path'] },
    ]);
    expect(offers.leftOut).toEqual([
      'resource template t://[redacted]/{x}: it holds the value of a variable Bastion holds',
      'resource template t://{[redacted]}: it holds the value of a variable Bastion holds',
      'resource template t://{open: it is no URI template',
      'resource template t://{a}/{a}: a variable is named twice',
    ]);
    expect(JSON.stringify(offers)).not.toContain(TOKEN);
  });
});
