import { describe, expect, it } from 'vitest';
import type { McpPromptSummary } from './api/mcp.js';
import { MCP_PROMPT_ARGUMENT_VALUE_MAX_CHARS } from './limits.js';
import { mcpPromptArguments, mcpPromptCommandName, splitMcpPromptLine } from './mcp-prompt-command.js';

const review: McpPromptSummary = {
  name: 'review',
  description: 'Review code',
  arguments: [
    { name: 'code', description: 'the code', required: true },
    { name: 'focus', description: 'what to look at', required: false },
  ],
};
const explain: McpPromptSummary = {
  name: 'explain',
  description: '',
  arguments: [{ name: 'topic', description: '', required: true }],
};
const greet: McpPromptSummary = { name: 'greet', description: '', arguments: [] };
const COMMAND = '/mcp__fixture__review';

describe('mcpPromptCommandName and splitMcpPromptLine', () => {
  it('names a prompt as its server’s tool would be named, and splits such a line back into server, prompt and what follows', () => {
    expect(mcpPromptCommandName('fixture', 'review')).toBe(COMMAND);
    expect(mcpPromptCommandName('fixture', 'has space')).toBeUndefined();
    expect(splitMcpPromptLine(`${COMMAND} code=x  focus="a b"`)).toEqual({
      server: 'fixture',
      prompt: 'review',
      args: 'code=x  focus="a b"',
    });
    expect(splitMcpPromptLine(COMMAND)).toEqual({ server: 'fixture', prompt: 'review', args: '' });
  });

  it('splits no other line: a saved prompt, a path, a malformed name', () => {
    expect(splitMcpPromptLine('/review code=x')).toBeUndefined();
    expect(splitMcpPromptLine('/etc/hosts')).toBeUndefined();
    expect(splitMcpPromptLine('/mcp__Fixture__review')).toBeUndefined();
    expect(splitMcpPromptLine('please /mcp__fixture__review')).toBeUndefined();
  });
});

describe('mcpPromptArguments', () => {
  it('takes NAME=value words, a value bare, in double quotes (with \\" and \\\\) or in single quotes', () => {
    expect(mcpPromptArguments(COMMAND, review, 'code=x')).toEqual({ ok: true, arguments: { code: 'x' } });
    expect(mcpPromptArguments(COMMAND, review, `focus="the \\"main\\" loop" code='a b'`)).toEqual({
      ok: true,
      arguments: { focus: 'the "main" loop', code: 'a b' },
    });
    expect(mcpPromptArguments(COMMAND, review, 'code=')).toEqual({ ok: true, arguments: { code: '' } });
  });

  it('takes the whole text as the value of a prompt’s only argument, unless it starts NAME=', () => {
    expect(mcpPromptArguments('/mcp__f__explain', explain, ' how a = b works ')).toEqual({
      ok: true,
      arguments: { topic: 'how a = b works' },
    });
    expect(mcpPromptArguments('/mcp__f__explain', explain, 'topic="x y"')).toEqual({
      ok: true,
      arguments: { topic: 'x y' },
    });
  });

  it('refuses a missing needed argument, naming it and how to give it', () => {
    expect(mcpPromptArguments(COMMAND, review, 'focus=loops')).toEqual({
      ok: false,
      message: `${COMMAND} needs code: type ${COMMAND} code=…`,
    });
    expect(mcpPromptArguments('/mcp__f__explain', explain, '')).toMatchObject({ ok: false });
  });

  it('refuses an unknown argument, a word that is not NAME=value, a repeated one, an open quote and an overlong value', () => {
    expect(mcpPromptArguments(COMMAND, review, 'code=x lang=ts')).toEqual({
      ok: false,
      message: `${COMMAND} takes no argument "lang"; it takes code (needed), focus`,
    });
    expect(mcpPromptArguments(COMMAND, review, 'code=x loops')).toEqual({
      ok: false,
      message: `${COMMAND}: "loops" is not NAME=value; it takes code (needed), focus`,
    });
    expect(mcpPromptArguments('/mcp__f__greet', greet, 'x=1')).toEqual({
      ok: false,
      message: '/mcp__f__greet takes no argument "x"; it takes no arguments',
    });
    expect(mcpPromptArguments(COMMAND, review, 'code=a code=b')).toEqual({
      ok: false,
      message: `${COMMAND}: code is given twice`,
    });
    expect(mcpPromptArguments(COMMAND, review, 'code="open')).toEqual({
      ok: false,
      message: `${COMMAND}: a " is not closed`,
    });
    const long = 'x'.repeat(MCP_PROMPT_ARGUMENT_VALUE_MAX_CHARS + 1);
    expect(mcpPromptArguments(COMMAND, review, `code=${long}`)).toMatchObject({ ok: false });
  });
});
