/**
 * What an MCP server put in a prompt, shown with it in the transcript: over the bubble, the
 * server's prompt its text came from; under it, each resource attached, folded, its text shown
 * when opened. All of it is the server's words, rendered as text (never as markup).
 */
import { formatByteSize } from '../image-attachment.js';
import type { MessageMcp } from '../mcp-offers.js';

/** The line over a prompt whose text came from an MCP server's prompt. */
export function McpPromptOrigin({ mcp }: { mcp: MessageMcp | undefined }) {
  if (mcp?.prompt === undefined) return null;
  return (
    <span className="prompt-note mcp-prompt-origin">
      From the prompt <code>{mcp.prompt.name}</code> of the MCP server <code>{mcp.prompt.server}</code>
    </span>
  );
}

/** The resources attached to a prompt, each folded under its server, name and size. */
export function McpResources({ mcp }: { mcp: MessageMcp | undefined }) {
  if (mcp === undefined || mcp.resources.length === 0) return null;
  return (
    <ul className="message-resources" aria-label="Attached MCP resources">
      {mcp.resources.map((resource) => (
        <li key={`${resource.server}:${resource.uri}`}>
          <details>
            <summary>
              Resource <code>{resource.uri}</code> of the MCP server <code>{resource.server}</code>
              {resource.name === '' ? '' : ` (${resource.name})`},{' '}
              {formatByteSize(new TextEncoder().encode(resource.text).byteLength)}
            </summary>
            <pre className="message-resource-text">{resource.text}</pre>
          </details>
        </li>
      ))}
    </ul>
  );
}
