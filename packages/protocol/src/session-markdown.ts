import type { Message, Session } from './api/sessions.js';
import { EXPORT_TOOL_INPUT_CHARS } from './limits.js';

function oneLine(value: unknown): string {
  const text = JSON.stringify(value) ?? '';
  return text.length > EXPORT_TOOL_INPUT_CHARS ? `${text.slice(0, EXPORT_TOOL_INPUT_CHARS - 1)}…` : text;
}

/** `text` as inline code: delimited by more backticks than any run of them inside, so it cannot end early. */
function inlineCode(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const delimiter = '`'.repeat(longest + 1);
  const padding = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${delimiter}${padding}${text}${padding}${delimiter}`;
}

/**
 * A session as one markdown document, for the reader to keep or share (the UI's Export, `bastion
 * sessions export`): its title and model, then each prompt and each reply in order, and each tool
 * call the agent made with its input on one line (the outputs stay in Bastion).
 */
export function sessionMarkdown(session: Session, messages: readonly Message[]): string {
  const lines = [
    `# ${session.title === '' ? 'Untitled session' : session.title}`,
    '',
    `${session.provider}/${session.model} · ${session.workspace ?? 'no folder'} · started ${session.created_at}`,
  ];
  let speaker: Message['role'] | undefined;
  for (const message of messages) {
    for (const part of message.parts) {
      if (part.type === 'text' && part.text.trim() !== '') {
        const role = message.role === 'user' ? 'user' : 'assistant';
        if (role !== speaker) lines.push('', role === 'user' ? '## You' : '## Bastion');
        speaker = role;
        lines.push('', part.text.trim());
      } else if (part.type === 'tool-call') {
        if (speaker !== 'assistant') lines.push('', '## Bastion');
        speaker = 'assistant';
        lines.push('', `- ${part.tool_name} ${inlineCode(oneLine(part.input))}`);
      }
    }
  }
  return `${lines.join('\n')}\n`;
}
