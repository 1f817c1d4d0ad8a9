import { describe, expect, it } from 'vitest';
import { UI_NOTIFICATION_TITLE_CHARS } from '@bastion/protocol';
import { errorWords, notificationText } from './notifications.js';

describe('notificationText', () => {
  it('a finished run: "Bastion: <title> — done" and a fixed body', () => {
    expect(notificationText('Fix the parser', { kind: 'done' })).toEqual({
      title: 'Bastion: Fix the parser — done',
      body: 'The run finished. Click to open the session.',
    });
  });

  it('an untitled session reads "Untitled session"; a title’s runs of spaces and line breaks read as one space', () => {
    expect(notificationText('  ', { kind: 'done' }).title).toBe('Bastion: Untitled session — done');
    expect(notificationText(undefined, { kind: 'done' }).title).toBe('Bastion: Untitled session — done');
    expect(notificationText('Fix\n  the   parser', { kind: 'done' }).title).toBe('Bastion: Fix the parser — done');
  });

  it('a title longer than UI_NOTIFICATION_TITLE_CHARS is cut to that many characters, the last an ellipsis', () => {
    const { title } = notificationText('x'.repeat(UI_NOTIFICATION_TITLE_CHARS + 40), { kind: 'done' });
    expect(title).toBe(`Bastion: ${'x'.repeat(UI_NOTIFICATION_TITLE_CHARS - 1)}… — done`);
  });

  it('an approval names the tool (an MCP tool as its server and tool), or none when it is not known', () => {
    expect(notificationText('T', { kind: 'approval', tool: 'run_command' }).title).toBe(
      'Bastion: T — needs your approval: run_command',
    );
    expect(notificationText('T', { kind: 'approval', tool: 'mcp__memory__create_entities' }).title).toBe(
      'Bastion: T — needs your approval: memory › create_entities',
    );
    expect(notificationText('T', { kind: 'approval' }).title).toBe('Bastion: T — needs your approval');
  });

  it('a failed run says its code in fixed words, capitalised, as the body', () => {
    expect(notificationText('T', { kind: 'failed', code: 'PROVIDER_RATE_LIMITED' })).toEqual({
      title: 'Bastion: T — failed',
      body: 'The model provider is rate limiting. Click to open the session.',
    });
  });
});

describe('errorWords', () => {
  it('names a known code in words, an unknown code-shaped one by its code, and anything else not at all', () => {
    expect(errorWords('RUN_INTERRUPTED')).toBe('the run was cut off');
    expect(errorWords('TOOL_SOMETHING_NEW')).toBe('the run failed (TOOL_SOMETHING_NEW)');
    expect(errorWords('sk-secret key in a message')).toBe('the run failed');
    expect(errorWords(undefined)).toBe('the run failed');
  });
});
