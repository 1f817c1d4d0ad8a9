import type { DirEntry } from '@bastion/protocol';
import type { Mention } from '../mention.js';

export const MENTION_LIST_ID = 'mention-list';
export const mentionOptionId = (index: number) => `mention-option-${index}`;

interface Props {
  mention: Mention;
  /** The folder's matching entries; undefined while it is being read. */
  options: DirEntry[] | undefined;
  active: number;
  /** The name is also looked for in every folder of the workspace. */
  everywhere: boolean;
  onChoose: (entry: DirEntry) => void;
}

/** The list under an `@` in the message box: the entries of the folder typed so far. */
export function MentionMenu({ mention, options, active, everywhere, onChoose }: Props) {
  const where = mention.folder !== '' ? mention.folder : everywhere ? 'the workspace and its folders' : 'the workspace';
  return (
    <div className="mention-menu">
      <div className="mention-where muted">
        {options === undefined
          ? `Reading ${where}…`
          : options.length === 0
            ? mention.prefix === ''
              ? `Nothing in ${where}`
              : `Nothing in ${where} starts with “${mention.prefix}”`
            : `In ${where} · ↑↓ to choose, Tab or Enter to insert, Esc to close`}
      </div>
      <div role="listbox" id={MENTION_LIST_ID} aria-label={`Files and folders in ${where}`}>
        {options?.map((entry, index) => (
          <div
            key={entry.name}
            id={mentionOptionId(index)}
            role="option"
            aria-selected={index === active}
            className={index === active ? 'mention-option active' : 'mention-option'}
            // Keep the focus (and the caret) in the message box.
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => onChoose(entry)}
          >
            {entry.name}
            {entry.kind === 'directory' ? '/' : ''}
          </div>
        ))}
      </div>
    </div>
  );
}
