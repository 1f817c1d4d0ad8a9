import { describe, expect, it } from 'vitest';
import { toolTitle } from './tool-title.js';

const line = (toolName: string, input: unknown, done = true): string => {
  const title = toolTitle({ toolName, input }, done);
  return `${title.action}${title.subject === '' ? '' : ` ${title.subject}`}${title.detail}`;
};

describe('toolTitle', () => {
  it('says what a call did with its key argument, in the past tense once done', () => {
    expect(line('read_file', { path: 'README.md' })).toBe('Read README.md');
    expect(line('read_file', { path: 'src/a.ts', start_line: 3, end_line: 4 })).toBe('Read src/a.ts, lines 3–4');
    expect(line('list_dir', { path: 'src' })).toBe('Listed src/');
    expect(line('list_dir', { path: '.' })).toBe('Listed the workspace folder');
    expect(line('search', { pattern: 'TODO', path: 'src', glob: '*.ts' })).toBe('Searched TODO in src (*.ts)');
    expect(line('find_files', { pattern: '*.test.ts' })).toBe('Found files *.test.ts');
    expect(line('edit_file', { path: 'notes.txt', old_string: 'a', new_string: 'b' })).toBe('Edited notes.txt');
    expect(line('write_file', { path: 'notes.txt', content: 'a\nb\n' })).toBe('Wrote notes.txt (2 lines)');
    expect(line('write_file', { path: 'one.txt', content: 'no newline' })).toBe('Wrote one.txt (1 line)');
    expect(line('run_command', { command: 'npm', args: ['test', '--', 'a b'] })).toBe("Ran npm test -- 'a b'");
    expect(line('update_plan', { steps: [{ step: 'x', status: 'completed' }] })).toBe(
      'Updated the plan 1 of 1 step done',
    );
    expect(line('explore', { task: 'Find parse()' })).toBe('Explored');
  });

  it('says what a call asks while it waits, runs or was refused', () => {
    expect(line('edit_file', { path: 'notes.txt' }, false)).toBe('Edit notes.txt');
    expect(line('run_command', { command: 'rm', args: ['-rf', 'build'] }, false)).toBe('Run rm -rf build');
  });

  it('titles an MCP server’s tool "server › tool", an unknown tool by its name, a refused plan without progress', () => {
    expect(line('mcp__memory__read_graph', {})).toBe('memory › read_graph');
    expect(line('brand_new_tool', { x: 1 })).toBe('brand_new_tool');
    expect(line('update_plan', { bastion_refused_call: 'TOOL_INPUT_TOO_LARGE' }, false)).toBe('Update the plan');
  });
});
