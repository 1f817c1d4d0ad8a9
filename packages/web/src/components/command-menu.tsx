import type { SlashCommand } from '../slash-commands.js';

export const COMMAND_LIST_ID = 'command-list';
export const commandOptionId = (index: number) => `command-option-${index}`;

interface Props {
  /** The commands the typed text may be (at least one). */
  options: readonly SlashCommand[];
  active: number;
  onChoose: (command: SlashCommand) => void;
}

/** The list above a message that starts a slash command: each command, what it does, or why it cannot run now. */
export function CommandMenu({ options, active, onChoose }: Props) {
  return (
    <div className="mention-menu">
      <div className="mention-where muted">Commands · ↑↓ to choose, Enter to run, Tab to complete, Esc to close</div>
      <div role="listbox" id={COMMAND_LIST_ID} aria-label="Commands">
        {options.map((command, index) => (
          <div
            key={command.name}
            id={commandOptionId(index)}
            role="option"
            aria-selected={index === active}
            aria-disabled={command.unavailable !== undefined}
            className={index === active ? 'mention-option command-option active' : 'mention-option command-option'}
            // Keep the focus (and the caret) in the message box.
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => onChoose(command)}
          >
            <span className="command-name">{command.name}</span>{' '}
            <span className="muted">{command.unavailable ?? command.description}</span>
          </div>
        ))}
      </div>
    </div>
  );
}
