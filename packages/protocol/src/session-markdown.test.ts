import { describe, expect, it } from 'vitest';
import type { Message, Session } from './api/sessions.js';
import { EXPORT_TOOL_INPUT_CHARS } from './limits.js';
import { sessionMarkdown } from './session-markdown.js';

const session: Session = {
  id: 'ses_Export0000001',
  title: 'Fix the build',
  mode: 'accept-edits',
  provider: 'openai',
  model: 'gpt-5',
  workspace: '/home/me/app',
  created_at: '2026-12-05T04:00:00.000Z',
  updated_at: '2026-12-05T04:05:00.000Z',
  auto_consent: null,
  ask_before_writes: false,
  last_run: null,
  approval_pending: false,
};

const message = (role: Message['role'], parts: Message['parts']): Message => ({
  id: `msg_${Math.random()}`,
  role,
  run_id: 'run_Export0000001',
  created_at: '2026-12-05T04:00:00.000Z',
  parts,
});

describe('sessionMarkdown', () => {
  it('writes the title and model, each prompt and reply under its speaker, and each tool call with its input on one line', () => {
    const markdown = sessionMarkdown(session, [
      message('user', [{ type: 'text', text: 'Why does the build fail?\n' }]),
      message('assistant', [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool-call', tool_call_id: 'c1', tool_name: 'read_file', input: { path: 'package.json' } },
      ]),
      message('tool', [{ type: 'tool-result', tool_call_id: 'c1', tool_name: 'read_file', output: { secret: 'x' } }]),
      message('assistant', [{ type: 'text', text: 'The **script** is missing.' }]),
    ]);
    expect(markdown).toBe(
      [
        '# Fix the build',
        '',
        'openai/gpt-5 · /home/me/app · started 2026-12-05T04:00:00.000Z',
        '',
        '## You',
        '',
        'Why does the build fail?',
        '',
        '## Bastion',
        '',
        'Let me look.',
        '',
        '- read_file `{"path":"package.json"}`',
        '',
        'The **script** is missing.',
        '',
      ].join('\n'),
    );
    expect(markdown).not.toContain('secret');
  });

  it('quotes an input holding backticks so they cannot end its code span, and cuts a long input', () => {
    const markdown = sessionMarkdown({ ...session, title: '' }, [
      message('assistant', [
        {
          type: 'tool-call',
          tool_call_id: 'c1',
          tool_name: 'run_command',
          input: { command: 'echo', args: ['``x``'] },
        },
        {
          type: 'tool-call',
          tool_call_id: 'c2',
          tool_name: 'write_file',
          input: { path: 'a', content: 'y'.repeat(1000) },
        },
      ]),
    ]);
    expect(markdown).toContain('# Untitled session');
    expect(markdown).toContain('- run_command ```{"command":"echo","args":["``x``"]}```');
    const long = markdown.split('\n').find((line) => line.startsWith('- write_file')) ?? '';
    // `- write_file ` and the code span's two backticks around the cut input.
    expect(long.length).toBe('- write_file '.length + EXPORT_TOOL_INPUT_CHARS + 2);
    expect(long).toContain('…`');
  });
});

describe('sessionMarkdown of a rewound session', () => {
  it('keeps the rewound turn under headings that say it is no longer in the conversation, and the turn after under plain ones', () => {
    const rewound = (role: Message['role'], text: string): Message => ({
      ...message(role, [{ type: 'text', text }]),
      rewound: true,
    });
    const markdown = sessionMarkdown(session, [
      rewound('user', 'Rewrite it in Rust'),
      rewound('assistant', 'Rewriting.'),
      message('user', [{ type: 'text', text: 'Fix the build instead' }]),
      message('assistant', [{ type: 'text', text: 'Fixed.' }]),
    ]);
    expect(markdown).toBe(
      [
        '# Fix the build',
        '',
        'openai/gpt-5 · /home/me/app · started 2026-12-05T04:00:00.000Z',
        '',
        '## You (rewound: no longer in the conversation)',
        '',
        'Rewrite it in Rust',
        '',
        '## Bastion (rewound: no longer in the conversation)',
        '',
        'Rewriting.',
        '',
        '## You',
        '',
        'Fix the build instead',
        '',
        '## Bastion',
        '',
        'Fixed.',
        '',
      ].join('\n'),
    );
  });
  it('names each attached image by its name, format and size, never its bytes', () => {
    const markdown = sessionMarkdown(session, [
      message('user', [
        { type: 'text', text: 'What is wrong here?' },
        { type: 'image', image_id: 'img_1', media_type: 'image/png', bytes: 2048, name: 'shot `1`.png' },
        { type: 'image', image_id: 'img_2', media_type: 'image/jpeg', bytes: 99 },
      ]),
    ]);
    expect(markdown).toContain(
      '## You\n\nWhat is wrong here?\n\n- image ``shot `1`.png`` (PNG, 2048 bytes; not included)\n\n- image (JPEG, 99 bytes; not included)\n',
    );
    expect(markdown).not.toContain('img_1');
  });
  it('names an MCP prompt a message came from, and each attached MCP resource by its URI and size, never its text', () => {
    const markdown = sessionMarkdown(session, [
      message('user', [
        { type: 'text', text: 'Review x', mcp: { kind: 'prompt', server: 'fixture', name: 'review' } },
        {
          type: 'text',
          text: 'RESOURCE-TEXT',
          mcp: { kind: 'resource', server: 'fixture', uri: 'notes://readme', name: 'Readme' },
        },
      ]),
    ]);
    expect(markdown).toContain(
      '## You\n\nFrom the prompt `review` of the MCP server fixture:\n\nReview x\n\n- resource `notes://readme` of the MCP server fixture (13 characters; not included)\n',
    );
    expect(markdown).not.toContain('RESOURCE-TEXT');
  });

  it("puts Bastion's note to the model after an undo (a user message of no run) under its own heading, not under You", () => {
    const note = '[Bastion] The user undid the changes of an earlier run (run_1): the files it wrote are back.';
    const markdown = sessionMarkdown(session, [
      message('user', [{ type: 'text', text: 'Write it' }]),
      message('assistant', [{ type: 'text', text: 'Written.' }]),
      { ...message('user', [{ type: 'text', text: note }]), run_id: null },
      message('user', [{ type: 'text', text: 'Now the test' }]),
    ]);
    expect(markdown).toContain(
      `## Bastion\n\nWritten.\n\n## Bastion's note to the model\n\n${note}\n\n## You\n\nNow the test\n`,
    );
  });
});
