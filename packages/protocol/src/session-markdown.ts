import type { Message, Session } from './api/sessions.js';
import { imageFormatName } from './image-format.js';
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

/** The heading each speaker's parts go under. */
const SPEAKERS = { user: '## You', assistant: '## Bastion', note: "## Bastion's note to the model" } as const;

/**
 * A session as one markdown document, for the reader to keep or share (the UI's Export, `bastion
 * sessions export`): its title and model, then each prompt and each reply in order, and each tool
 * call the agent made with its input on one line (the outputs stay in Bastion), each attached
 * image by its name, format and size (not its bytes), each attached MCP resource by its URI and
 * size (not its text), a prompt an MCP server gave under a line naming it, and a note Bastion
 * sent the model (an undo's) under a heading of its own; turns a rewind took out of the
 * conversation are kept, under headings that say so.
 */
export function sessionMarkdown(session: Session, messages: readonly Message[]): string {
  const lines = [
    `# ${session.title === '' ? 'Untitled session' : session.title}`,
    '',
    `${session.provider}/${session.model} · ${session.workspace ?? 'no folder'} · started ${session.created_at}`,
  ];
  /** Who speaks now, and whether a rewind took it out of the conversation: a heading when either changes. */
  let speaker: string | undefined;
  const speak = (who: keyof typeof SPEAKERS, rewound: boolean) => {
    const heading = `${SPEAKERS[who]}${rewound ? ' (rewound: no longer in the conversation)' : ''}`;
    if (heading !== speaker) lines.push('', heading);
    speaker = heading;
  };
  for (const message of messages) {
    const rewound = message.rewound === true;
    for (const part of message.parts) {
      if (part.type === 'text' && part.mcp?.kind === 'resource') {
        speak('user', rewound);
        const { server, uri } = part.mcp;
        lines.push(
          '',
          `- resource ${inlineCode(uri)} of the MCP server ${server} (${part.text.length} characters; not included)`,
        );
      } else if (part.type === 'text' && part.text.trim() !== '') {
        // A user message of no run is Bastion's own note to the model (an undo's), not the person's.
        speak(message.role !== 'user' ? 'assistant' : message.run_id === null ? 'note' : 'user', rewound);
        if (part.mcp?.kind === 'prompt')
          lines.push('', `From the prompt ${inlineCode(part.mcp.name)} of the MCP server ${part.mcp.server}:`);
        lines.push('', part.text.trim());
      } else if (part.type === 'image') {
        speak('user', rewound);
        const name = part.name === undefined ? '' : ` ${inlineCode(part.name)}`;
        lines.push('', `- image${name} (${imageFormatName(part.media_type)}, ${part.bytes} bytes; not included)`);
      } else if (part.type === 'tool-call') {
        speak('assistant', rewound);
        lines.push('', `- ${part.tool_name} ${inlineCode(oneLine(part.input))}`);
      }
    }
  }
  return `${lines.join('\n')}\n`;
}
