import { describe, expect, it } from 'vitest';
import { mcpArgumentsText, mcpCallOutcome, mcpToolTitle } from './mcp-tool-call.js';

describe('mcpToolTitle', () => {
  it('titles mcp__SERVER__TOOL as "SERVER › TOOL", a tool name with "__" in it whole', () => {
    expect(mcpToolTitle('mcp__memory__read_graph')).toBe('memory › read_graph');
    expect(mcpToolTitle('mcp__git-hub__list__issues')).toBe('git-hub › list__issues');
  });

  it('gives no title to Bastion’s own tools or names that only look like an MCP tool’s', () => {
    for (const name of ['run_command', 'read_file', 'mcp__', 'mcp__memory', 'mcp__Memory__x', 'mcp____x', 'mcp__m__'])
      expect(mcpToolTitle(name), name).toBeUndefined();
  });
});

describe('mcpCallOutcome', () => {
  it('reads the server’s answer: its text, whether the server said it failed, whether it was cut', () => {
    expect(
      mcpCallOutcome({ ok: true, server: 'memory', tool: 'read_graph', text: '{}', is_error: false, truncated: false }),
    ).toEqual({ kind: 'answer', text: '{}', isError: false, truncated: false });
    expect(mcpCallOutcome({ ok: true, text: 'no such entity', is_error: true, truncated: true })).toEqual({
      kind: 'answer',
      text: 'no such entity',
      isError: true,
      truncated: true,
    });
  });

  it('reads a refusal (the host’s, or an approval denied) as its code and message', () => {
    expect(mcpCallOutcome({ ok: false, code: 'MCP_SERVER_FAILED', message: 'it exited' })).toEqual({
      kind: 'refusal',
      code: 'MCP_SERVER_FAILED',
      message: 'it exited',
    });
    expect(mcpCallOutcome({ code: 'TOOL_DENIED' })).toEqual({
      kind: 'refusal',
      code: 'TOOL_DENIED',
      message: undefined,
    });
  });

  it('reads nothing from a call still running or an output of neither shape', () => {
    for (const output of [undefined, null, 'text', [], { ok: true }, { ok: true, text: 3 }])
      expect(mcpCallOutcome(output), JSON.stringify(output)).toBeUndefined();
  });
});

describe('mcpArgumentsText', () => {
  it('shows the arguments as indented JSON, {} for none', () => {
    expect(mcpArgumentsText({})).toBe('{}');
    expect(mcpArgumentsText({ names: ['a'] })).toBe('{\n  "names": [\n    "a"\n  ]\n}');
    expect(mcpArgumentsText(undefined)).toBe('');
  });
});
