import type { DirEntry } from '@bastion/protocol';
import type { Mention } from '../mention.js';
import { ListMenu } from './list-menu.js';

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
  const heading =
    options === undefined
      ? `Reading ${where}…`
      : options.length === 0
        ? mention.prefix === ''
          ? `Nothing in ${where}`
          : `Nothing in ${where} starts with “${mention.prefix}”`
        : `In ${where} · ↑↓ to choose, Tab or Enter to insert, Esc to close`;
  return (
    <ListMenu
      heading={heading}
      label={`Files and folders in ${where}`}
      options={options?.map((entry) => ({
        key: entry.name,
        content: `${entry.name}${entry.kind === 'directory' ? '/' : ''}`,
      }))}
      active={active}
      onChoose={(index) => {
        const entry = options?.[index];
        if (entry) onChoose(entry);
      }}
    />
  );
}
