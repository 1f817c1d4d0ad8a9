import { describe, expect, it } from 'vitest';
import { alwaysAllowRule } from './always-allow-rule.js';
import { alwaysAllowDraft } from './policy.js';

describe('alwaysAllowRule', () => {
  it('offers, for each kind of call, the rule alwaysAllowDraft (the host and the CLI) offers once it is checked', () => {
    const calls: [string, unknown][] = [
      ['run_command', { command: 'touch', args: ['marker'] }],
      ['run_command', { command: 'npm', args: [] }],
      ['run_command', { command: 'git', args: ['push', 'origin', 'main'], workdir: 'sub' }],
      ['run_command', { command: 'rm', args: ['a', ''] }],
      ['mcp__memory__read_graph', {}],
      ['mcp__git-hub__list__issues', { state: 'open' }],
      ['read_file', { path: 'a' }],
      ['write_file', { path: 'a', content: '' }],
      ['mcp__Memory__x', {}],
    ];
    for (const [tool, input] of calls)
      expect(alwaysAllowRule(tool, input), `${tool} ${JSON.stringify(input)}`).toEqual(alwaysAllowDraft(tool, input));
  });

  it('allows an MCP server’s tool by its whole name, whatever its arguments, and nothing else', () => {
    expect(alwaysAllowRule('mcp__memory__read_graph', { anything: 1 })).toEqual({
      decision: 'allow',
      tools: ['mcp__memory__read_graph'],
      reason: 'always allowed from an approval prompt',
    });
  });

  it('offers no rule for a program with no arguments (it would allow `env sh -c …`, `git push -f origin main`)', () => {
    for (const command of ['env', 'sh', 'git', 'ls', '/usr/bin/env']) {
      expect(alwaysAllowRule('run_command', { command, args: [] }), command).toBeUndefined();
      expect(alwaysAllowRule('run_command', { command }), command).toBeUndefined();
      expect(alwaysAllowDraft('run_command', { command, args: [] }), command).toBeUndefined();
    }
    expect(alwaysAllowRule('run_command', { command: 'env', args: ['FOO=1'] })).toMatchObject({
      command: 'env',
      argv_prefix: ['FOO=1'],
    });
  });

  it('offers no rule for a command with an empty argument or no program (no rule can pin it)', () => {
    expect(alwaysAllowRule('run_command', { command: 'rm', args: [''] })).toBeUndefined();
    expect(alwaysAllowRule('run_command', { command: '', args: [] })).toBeUndefined();
    expect(alwaysAllowRule('run_command', null)).toBeUndefined();
  });
});
