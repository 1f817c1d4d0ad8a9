import { useLayoutEffect, useRef, type ReactNode } from 'react';

/** The message box's one open list (a mention's entries or the slash commands): its id and its options'. */
export const LIST_MENU_ID = 'composer-list';
export const listOptionId = (index: number) => `composer-option-${index}`;

export interface ListOption {
  key: string;
  content: ReactNode;
  /** Shown, but choosing it does nothing (a command that cannot run now). */
  disabled?: boolean;
  /** The group it is listed in, under this heading (the @ menu's MCP resources after the files); none: the list's own. */
  section?: string;
}

interface Props {
  /** The line above the options: where they come from, or why there are none. */
  heading: string;
  label: string;
  /** Undefined while they are being read. */
  options: readonly ListOption[] | undefined;
  active: number;
  onChoose: (index: number) => void;
  /** Extra class of each option. */
  optionClass?: string;
}

/** A list above the message box, which keeps the focus: the box owns it (combobox) and its keys move in it. */
export function ListMenu({ heading, label, options, active, onChoose, optionClass }: Props) {
  const menu = useRef<HTMLDivElement>(null);
  // The arrows move past the options in view (the saved prompts come after Bastion's commands): the active one is scrolled to.
  useLayoutEffect(() => {
    menu.current?.querySelector(`#${listOptionId(active)}`)?.scrollIntoView({ block: 'nearest' });
  }, [active, options?.length]);
  return (
    <div className="list-menu" ref={menu}>
      <div className="list-heading muted">{heading}</div>
      <div role="listbox" id={LIST_MENU_ID} aria-label={label}>
        {sectionsOf(options ?? []).map(({ section, first, options: listed }) => {
          const rows = listed.map((option, offset) => {
            const index = first + offset;
            return (
              <div
                key={option.key}
                id={listOptionId(index)}
                role="option"
                aria-selected={index === active}
                aria-disabled={option.disabled === true ? true : undefined}
                className={['list-option', optionClass, index === active ? 'active' : undefined]
                  .filter(Boolean)
                  .join(' ')}
                // Keep the focus (and the caret) in the message box.
                onMouseDown={(event) => event.preventDefault()}
                onClick={() => onChoose(index)}
              >
                {option.content}
              </div>
            );
          });
          return section === undefined ? (
            rows
          ) : (
            <div key={`section:${section}`} role="group" aria-label={section}>
              <div className="list-section muted" aria-hidden="true">
                {section}
              </div>
              {rows}
            </div>
          );
        })}
      </div>
    </div>
  );
}

/** The options in runs of one section each, with the index of each run's first option in the whole list. */
function sectionsOf(
  options: readonly ListOption[],
): { section: string | undefined; first: number; options: ListOption[] }[] {
  const runs: { section: string | undefined; first: number; options: ListOption[] }[] = [];
  options.forEach((option, index) => {
    const last = runs.at(-1);
    if (last !== undefined && last.section === option.section) last.options.push(option);
    else runs.push({ section: option.section, first: index, options: [option] });
  });
  return runs;
}
