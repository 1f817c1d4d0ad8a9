/**
 * What an MCP server answers, as the text Bastion passes on: a tool's result to the model, a
 * prompt's messages to the person's message box. Text as it is; images, audio and binary
 * resources only named in words, never passed on.
 */
import type { CallToolResult, ContentBlock, GetPromptResult } from '@modelcontextprotocol/sdk/types.js';

/** One content block: its text, or what it is in words. */
function contentText(part: ContentBlock): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'image':
    case 'audio':
      return `[${part.type} content (${part.mimeType}, ${Math.floor((part.data.length * 3) / 4)} bytes), not shown]`;
    case 'resource':
      return 'text' in part.resource ? part.resource.text : `[binary resource ${part.resource.uri}, not shown]`;
    case 'resource_link':
      return `[resource ${part.uri}${part.name ? ` (${part.name})` : ''}]`;
    default:
      return '[content of an unknown kind, not shown]';
  }
}

/** The text a call's result is told to the model as: text parts as they are, every other part named in words. */
export function resultText(result: CallToolResult): string {
  const parts = result.content.map(contentText);
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return parts.join('\n');
}

/**
 * A prompt's messages as one text for the person's turn: the user's messages as they are, a blank
 * line between; when the server also speaks as the assistant, each message says whose it is.
 */
export function promptText(result: GetPromptResult): string {
  const spoken = result.messages.map((message) => ({ role: message.role, text: contentText(message.content) }));
  if (spoken.every((message) => message.role === 'user')) return spoken.map((message) => message.text).join('\n\n');
  return spoken.map((message) => `${message.role === 'user' ? 'User' : 'Assistant'}: ${message.text}`).join('\n\n');
}
