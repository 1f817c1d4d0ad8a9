import type { SlashCommand } from '../slash-commands.js';
import { ListMenu } from './list-menu.js';

interface Props {
  /** The commands the typed text may be (at least one). */
  options: readonly SlashCommand[];
  active: number;
  onChoose: (command: SlashCommand) => void;
  /** Said after the heading's keys (the MCP servers' prompts still being listed). */
  note?: string;
}

/**
 * The list above a message that starts a slash command: each command, what it does, or why it
 * cannot run now; the user's saved prompts after them, each marked as one, then the MCP servers'
 * prompts, each marked with its server.
 */
export function CommandMenu({ options, active, onChoose, note }: Props) {
  return (
    <ListMenu
      heading={`Commands · ↑↓ to choose, Enter to run, Tab to complete, Esc to close${note === undefined ? '' : ` · ${note}`}`}
      label="Commands"
      options={options.map((command) => ({
        key: command.name,
        disabled: command.unavailable !== undefined,
        content: (
          <>
            <span className="command-name">{command.name}</span>{' '}
            {command.savedPrompt === true && (
              <>
                <span className="command-marker">saved prompt</span>{' '}
              </>
            )}
            {command.mcpServer !== undefined && (
              <>
                <span className="command-marker">MCP server {command.mcpServer}</span>{' '}
              </>
            )}
            <span className="muted">{command.unavailable ?? command.description}</span>
          </>
        ),
      }))}
      active={active}
      onChoose={(index) => {
        const command = options[index];
        if (command) onChoose(command);
      }}
      optionClass="command-option"
    />
  );
}
