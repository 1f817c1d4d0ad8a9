import type { DirEntry } from '@bastion/protocol';
import type { McpResourceOption } from '../mcp-offers.js';
import type { Mention } from '../mention.js';
import { ListMenu } from './list-menu.js';

interface Props {
  mention: Mention;
  /** The folder's matching entries; undefined while it is being read. */
  options: DirEntry[] | undefined;
  /** The MCP servers' resources and resource templates that match, listed after the entries in a section of their own. */
  resources: readonly McpResourceOption[];
  active: number;
  /** The name is also looked for in every folder of the workspace. */
  everywhere: boolean;
  /** Said after the heading (the MCP servers' resources still being listed). */
  note?: string;
  /** The index in the whole list: the entries', then the resources'. */
  onChoose: (index: number) => void;
}

const RESOURCES_SECTION = 'Resources of MCP servers';

/**
 * The list under an `@` in the message box: the entries of the folder typed so far, then the MCP
 * servers' resources and resource templates that match (their names and descriptions are the
 * server's: shown as text). A template says it asks for its variables.
 */
export function MentionMenu({ mention, options, resources, active, everywhere, note, onChoose }: Props) {
  const where = mention.folder !== '' ? mention.folder : everywhere ? 'the workspace and its folders' : 'the workspace';
  const nothing = mention.prefix === '' ? `Nothing in ${where}` : `Nothing in ${where} starts with “${mention.prefix}”`;
  const heading =
    options === undefined
      ? `Reading ${where}…`
      : options.length === 0
        ? resources.length === 0
          ? nothing
          : `${nothing} · ↑↓ to choose a resource, Tab or Enter to attach it, Esc to close`
        : `In ${where} · ↑↓ to choose, Tab or Enter to insert, Esc to close`;
  return (
    <ListMenu
      heading={note === undefined ? heading : `${heading} · ${note}`}
      label={resources.length > 0 ? `Files and folders in ${where}, and resources` : `Files and folders in ${where}`}
      options={
        options === undefined
          ? undefined
          : [
              ...options.map((entry) => ({
                key: entry.name,
                content: `${entry.name}${entry.kind === 'directory' ? '/' : ''}`,
              })),
              ...resources.map((option) => ({
                key: `resource:${option.word}`,
                section: RESOURCES_SECTION,
                content: (
                  <>
                    <span className="command-name">
                      {option.server} › {option.name}
                    </span>{' '}
                    <span className="muted">
                      {(option.kind === 'resource'
                        ? [option.resource.uri, option.resource.description]
                        : [
                            option.template.uri_template,
                            option.template.description,
                            `template: asks for ${option.template.variables.join(', ')}`,
                          ]
                      )
                        .filter((part) => part !== '')
                        .join(' · ')}
                    </span>
                  </>
                ),
              })),
            ]
      }
      active={active}
      onChoose={onChoose}
    />
  );
}
