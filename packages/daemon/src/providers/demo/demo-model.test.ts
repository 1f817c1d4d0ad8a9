import type {
  JSONValue,
  LanguageModelV3FunctionTool,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { createDemoModel, DEMO_HELP, demoReply } from './demo-model.js';

const tool = (name: string): LanguageModelV3FunctionTool => ({
  type: 'function',
  name,
  inputSchema: { type: 'object' },
});
const fileTools = [tool('read_file'), tool('list_dir')];
const user = (text: string): LanguageModelV3Prompt => [{ role: 'user', content: [{ type: 'text', text }] }];

describe('demoReply', () => {
  it('names the format and size of each image the last prompt carries, and says it cannot look at them', () => {
    const prompt: LanguageModelV3Prompt = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'read README.md' },
          { type: 'file', mediaType: 'image/png', data: new Uint8Array(68) },
          { type: 'file', mediaType: 'image/jpeg', data: Buffer.alloc(1234).toString('base64') },
        ],
      },
    ];
    expect(demoReply({ prompt, tools: fileTools })).toEqual({
      kind: 'text',
      text: 'demo: 2 images received (PNG, 68 bytes; JPEG, 1234 bytes); the demo model cannot look at images.',
    });
  });

  it('calls read_file for `read PATH` and list_dir for `ls [PATH]`', () => {
    expect(demoReply({ prompt: user('read README.md'), tools: fileTools })).toMatchObject({
      kind: 'tool-call',
      toolName: 'read_file',
      input: { path: 'README.md' },
    });
    expect(demoReply({ prompt: user('ls'), tools: fileTools })).toMatchObject({
      toolName: 'list_dir',
      input: { path: '.' },
    });
    expect(demoReply({ prompt: user('ls src'), tools: fileTools })).toMatchObject({
      toolName: 'list_dir',
      input: { path: 'src' },
    });
  });

  it('gives two calls made from prompts of the same length different ids (a compaction shortens a prompt to an earlier length)', () => {
    const idOf = (prompt: LanguageModelV3Prompt) => {
      const reply = demoReply({ prompt, tools: fileTools });
      if (reply.kind !== 'tool-call') throw new Error('no tool call');
      return reply.toolCallId;
    };
    const before = idOf(user('ls'));
    const after = idOf(user('read README.md'));
    expect(before).toMatch(/^demo-call-/);
    expect(after).not.toBe(before);
  });

  it('takes a mention (`@src/app.ts`, as the message box puts it) as the path after its @', () => {
    expect(demoReply({ prompt: user('read @src/app.ts '), tools: fileTools })).toMatchObject({
      toolName: 'read_file',
      input: { path: 'src/app.ts' },
    });
    expect(demoReply({ prompt: user('ls @src/'), tools: fileTools })).toMatchObject({
      toolName: 'list_dir',
      input: { path: 'src/' },
    });
  });

  it('says the shell is not available when run_command is not registered', () => {
    const reply = demoReply({ prompt: user('$ ls -la'), tools: fileTools });
    expect(reply).toMatchObject({ kind: 'text' });
    expect(reply.kind === 'text' && reply.text).toMatch(/^demo: the shell is not available/);
  });

  it('splits `$ ` commands by shell-word rules when run_command exists', () => {
    expect(
      demoReply({ prompt: user(`$ echo 'a b' "c d" e\\ f`), tools: [...fileTools, tool('run_command')] }),
    ).toMatchObject({
      kind: 'tool-call',
      toolName: 'run_command',
      input: { command: 'echo', args: ['a b', 'c d', 'e f'] },
    });
    expect(demoReply({ prompt: user('$ ls | wc'), tools: [tool('run_command')] })).toMatchObject({ kind: 'text' });
  });

  it('turns `search TEXT` into a literal search when the tool exists', () => {
    expect(demoReply({ prompt: user('search TODO: fix'), tools: [tool('search')] })).toMatchObject({
      kind: 'tool-call',
      toolName: 'search',
      input: { pattern: 'TODO: fix', fixed_strings: true },
    });
    expect(demoReply({ prompt: user('search TODO'), tools: [] })).toMatchObject({ kind: 'text' });
  });

  it('turns `find GLOB` into find_files when the tool exists', () => {
    expect(demoReply({ prompt: user('find *.ts'), tools: [tool('find_files')] })).toMatchObject({
      kind: 'tool-call',
      toolName: 'find_files',
      input: { pattern: '*.ts' },
    });
    expect(demoReply({ prompt: user('find *.ts'), tools: [] })).toEqual({ kind: 'text', text: DEMO_HELP });
  });

  it('turns `explore TASK` into an explore call with TASK when the tool exists', () => {
    expect(demoReply({ prompt: user('explore search TODO'), tools: [tool('explore')] })).toMatchObject({
      kind: 'tool-call',
      toolName: 'explore',
      input: { task: 'search TODO' },
    });
    expect(demoReply({ prompt: user('explore search TODO'), tools: [] })).toEqual({ kind: 'text', text: DEMO_HELP });
  });

  it('turns `plan A; B; C` into update_plan, the first step in progress, when the tool exists', () => {
    expect(demoReply({ prompt: user('plan read it; fix it ;; test it'), tools: [tool('update_plan')] })).toMatchObject({
      kind: 'tool-call',
      toolName: 'update_plan',
      input: {
        steps: [
          { step: 'read it', status: 'in_progress' },
          { step: 'fix it', status: 'pending' },
          { step: 'test it', status: 'pending' },
        ],
      },
    });
    expect(demoReply({ prompt: user('plan ;'), tools: [tool('update_plan')] })).toEqual({
      kind: 'text',
      text: DEMO_HELP,
    });
    expect(demoReply({ prompt: user('plan a; b'), tools: [] })).toEqual({ kind: 'text', text: DEMO_HELP });
  });

  it('turns `write PATH: TEXT` into write_file (TEXT as lines) and `edit PATH: OLD => NEW` into edit_file, when the tools exist', () => {
    const writing = [tool('write_file'), tool('edit_file')];
    expect(demoReply({ prompt: user('write @notes.txt: hello\nworld'), tools: writing })).toMatchObject({
      toolName: 'write_file',
      input: { path: 'notes.txt', content: 'hello\nworld\n' },
    });
    expect(demoReply({ prompt: user('edit src/a.ts: port = 1 => port = 2'), tools: writing })).toMatchObject({
      toolName: 'edit_file',
      input: { path: 'src/a.ts', old_string: 'port = 1', new_string: 'port = 2' },
    });
    expect(demoReply({ prompt: user('write notes.txt: hello'), tools: fileTools })).toEqual({
      kind: 'text',
      text: DEMO_HELP,
    });
  });

  it('answers anything else with what it can do, labelled demo', () => {
    expect(demoReply({ prompt: user('write me a poem'), tools: fileTools })).toEqual({ kind: 'text', text: DEMO_HELP });
  });

  /** `read PATH`, the read_file call it made, and that call's result `value`. */
  const afterRead = (path: string, value: JSONValue): LanguageModelV3Prompt => [
    ...user(`read ${path}`),
    {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path } }],
    },
    {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'json', value } }],
    },
  ];

  it('summarises a tool result in one line', () => {
    const prompt = afterRead('README.md', { size: 20, truncated: false, content: '\n# Title\nbody' });
    expect(demoReply({ prompt, tools: fileTools })).toEqual({
      kind: 'text',
      text: 'demo: read README.md (20 bytes); it starts with "# Title".',
    });
  });

  it('says a binary file was not shown, rather than quoting its empty content', () => {
    const prompt = afterRead('logo.png', { size: 3000, truncated: false, binary: true, content: '' });
    expect(demoReply({ prompt, tools: fileTools })).toEqual({
      kind: 'text',
      text: 'demo: logo.png is binary (3000 bytes), so read_file shows none of it.',
    });
  });

  it('says a call that met a missing file failed, and one outside the workspace was refused, as the tool card does', () => {
    const missing = afterRead('gone.md', { ok: false, code: 'FS_NOT_FOUND', message: 'no such file' });
    expect(demoReply({ prompt: missing, tools: fileTools })).toEqual({
      kind: 'text',
      text: 'demo: read_file failed (FS_NOT_FOUND: no such file).',
    });
    const outside = afterRead('../x', { ok: false, code: 'FS_OUTSIDE_WORKSPACE', message: 'outside' });
    expect(demoReply({ prompt: outside, tools: fileTools })).toEqual({
      kind: 'text',
      text: 'demo: read_file was refused (FS_OUTSIDE_WORKSPACE: outside).',
    });
  });
});

describe('createDemoModel', () => {
  it('streams deltas that concatenate to the reply, deterministically', async () => {
    const model = createDemoModel('demo', 0);
    const collect = async () => {
      const { stream } = await model.doStream({ prompt: user('hello'), tools: fileTools });
      const parts: LanguageModelV3StreamPart[] = [];
      const reader = stream.getReader();
      for (let next = await reader.read(); !next.done; next = await reader.read()) parts.push(next.value);
      return parts;
    };
    const first = await collect();
    const text = first.map((p) => (p.type === 'text-delta' ? p.delta : '')).join('');
    expect(text).toBe(DEMO_HELP);
    expect(first.filter((p) => p.type === 'text-delta').length).toBeGreaterThan(5);
    expect(await collect()).toEqual(first);
  });
});
