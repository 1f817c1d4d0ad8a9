import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { DirEntry, WorkspaceFindResponse, WorkspaceReaddirResponse } from '@bastion/protocol';
import { UI_COMPOSER_MAX_HEIGHT_PX, UI_MENTION_FIND_DELAY_MS, UI_MENTION_MAX_ENTRIES } from '@bastion/protocol';
import { applyMention, matchingEntries, mentionAt } from '../mention.js';
import { matchingCommands, type SlashCommand } from '../slash-commands.js';
import { COMMAND_LIST_ID, CommandMenu, commandOptionId } from './command-menu.js';
import { MENTION_LIST_ID, MentionMenu, mentionOptionId } from './mention-menu.js';

interface Props {
  draft: string;
  onDraft: (text: string) => void;
  onSend: () => void;
  onStop: () => void;
  /** A run is going or an approval waits: Stop is shown (and Esc stops). */
  stoppable: boolean;
  sendDisabled: boolean;
  placeholder: string;
  autoFocus: boolean;
  /** The last prompt sent in this session, which ArrowUp puts in an empty box; undefined before any. */
  lastPrompt: string | undefined;
  /** The session's workspace root while this Bastion works in it: `@` then lists its files. */
  workspace: string | null;
  readFolder: (root: string, path: string) => Promise<WorkspaceReaddirResponse>;
  findPaths: (root: string, query: string) => Promise<WorkspaceFindResponse>;
  /** The slash commands a message that starts with `/` may be. */
  commands: readonly SlashCommand[];
}

/**
 * A folder's entries, read once when first asked for while a mention is open and kept until it
 * closes (a closed and reopened list reads the folder again). An unreadable folder lists nothing.
 */
function useFolderEntries(
  readFolder: Props['readFolder'],
  workspace: string | null,
  folder: string | undefined,
): DirEntry[] | undefined {
  const [read, setRead] = useState<ReadonlyMap<string, DirEntry[]>>(new Map());
  /** Folders asked for since the mention opened; a reply for an earlier opening is dropped. */
  const asked = useRef({ opening: 0, folders: new Set<string>() });
  const key = workspace === null || folder === undefined ? undefined : `${workspace}\0${folder}`;
  useEffect(() => {
    if (workspace === null || folder === undefined || key === undefined) {
      asked.current = { opening: asked.current.opening + 1, folders: new Set() };
      setRead((current) => (current.size === 0 ? current : new Map()));
      return;
    }
    if (asked.current.folders.has(key)) return;
    asked.current.folders.add(key);
    const { opening } = asked.current;
    const done = (entries: DirEntry[]) => {
      if (asked.current.opening === opening) setRead((current) => new Map(current).set(key, entries));
    };
    readFolder(workspace, folder === '' ? '.' : folder).then(
      (listing) => done(listing.entries),
      () => done([]),
    );
  }, [readFolder, workspace, folder, key]);
  return key === undefined ? undefined : read.get(key);
}

/**
 * Paths anywhere in the workspace whose names hold `query`, asked for once typing pauses; each
 * found path as an entry named by its path. Undefined until the answer for this query is in.
 */
function useFoundPaths(
  findPaths: Props['findPaths'],
  workspace: string | null,
  query: string | undefined,
): DirEntry[] | undefined {
  const [found, setFound] = useState<{ key: string; entries: DirEntry[] }>();
  const key = workspace === null || query === undefined ? undefined : `${workspace}\0${query}`;
  useEffect(() => {
    if (workspace === null || query === undefined || key === undefined) return;
    let live = true;
    const done = (entries: DirEntry[]) => {
      if (live) setFound({ key, entries });
    };
    const timer = setTimeout(() => {
      findPaths(workspace, query).then(
        (answer) => done(answer.matches.map(({ path, kind }) => ({ name: path, kind }))),
        () => done([]),
      );
    }, UI_MENTION_FIND_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [findPaths, workspace, query, key]);
  return found !== undefined && found.key === key ? found.entries : undefined;
}

/**
 * The message box: grows with its text up to a bound, Enter sends, Shift+Enter breaks a line, Esc
 * stops, ArrowUp in an empty box brings back the last prompt. `@` lists the workspace's files and
 * folders by the name typed after it (src/ then its own entries; a name of two characters or more
 * is also looked for in every folder), and puts the chosen path in. A message that is the start
 * of a slash command's name lists those commands; Enter (or Send, for a whole name) runs one.
 */
export function Composer({
  draft,
  onDraft,
  onSend,
  onStop,
  stoppable,
  sendDisabled,
  placeholder,
  autoFocus,
  lastPrompt,
  workspace,
  readFolder,
  findPaths,
  commands,
}: Props) {
  const ref = useRef<HTMLTextAreaElement>(null);
  /** Where the caret is while the box has the focus. */
  const [caret, setCaret] = useState<number>();
  /** The caret a chosen mention moves to once the new text is in the box. */
  const placeCaret = useRef<number | undefined>(undefined);
  /** The `@` whose list Esc closed: it stays closed until the caret leaves that mention. */
  const [dismissed, setDismissed] = useState<number>();
  const [active, setActive] = useState(0);
  /** The text whose command list Esc closed: it stays closed until the text changes. */
  const [commandsDismissed, setCommandsDismissed] = useState<string>();
  const [commandActive, setCommandActive] = useState(0);
  const commandOptions = caret === undefined ? [] : matchingCommands(commands, draft);
  const commandMenu = commandOptions.length > 0 && commandsDismissed !== draft;
  const found = workspace === null || caret === undefined || commandMenu ? undefined : mentionAt(draft, caret);
  const mention = found !== undefined && found.start !== dismissed ? found : undefined;
  const entries = useFolderEntries(readFolder, workspace, mention?.folder);
  const searched = mention?.folder === '' && mention.prefix.length >= 2 ? mention.prefix : undefined;
  const elsewhere = useFoundPaths(findPaths, workspace, searched);
  const here = mention && entries ? matchingEntries(entries, mention.prefix) : undefined;
  const options =
    here === undefined
      ? undefined
      : [...here, ...(elsewhere ?? []).filter((entry) => !here.some((shown) => shown.name === entry.name))].slice(
          0,
          UI_MENTION_MAX_ENTRIES,
        );
  const choices = options ?? [];
  useEffect(() => setActive(0), [mention?.folder, mention?.prefix]);
  useEffect(() => setCommandActive(0), [draft]);
  const foundAt = found?.start;
  useEffect(() => {
    if (foundAt === undefined) setDismissed(undefined);
  }, [foundAt]);
  useLayoutEffect(() => {
    const box = ref.current;
    if (!box) return;
    box.style.height = 'auto';
    box.style.height = `${Math.min(box.scrollHeight, UI_COMPOSER_MAX_HEIGHT_PX)}px`;
    if (placeCaret.current !== undefined) {
      box.setSelectionRange(placeCaret.current, placeCaret.current);
      placeCaret.current = undefined;
    }
  }, [draft]);
  const choose = (entry: DirEntry) => {
    if (!mention) return;
    const next = applyMention(draft, mention, entry);
    placeCaret.current = next.caret;
    setCaret(next.caret);
    onDraft(next.text);
  };
  const runCommand = (command: SlashCommand) => {
    if (command.unavailable !== undefined) return;
    onDraft('');
    command.run();
  };
  const trackCaret = (box: HTMLTextAreaElement) =>
    setCaret(box.selectionStart === box.selectionEnd ? box.selectionStart : undefined);
  useLayoutEffect(() => {
    if (autoFocus) ref.current?.focus();
  }, [autoFocus]);
  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        const named = commands.find((command) => command.name === draft.trim().toLowerCase());
        if (named) runCommand(named);
        else onSend();
      }}
    >
      <label htmlFor="composer-input" className="visually-hidden">
        Message
      </label>
      {commandMenu && <CommandMenu options={commandOptions} active={commandActive} onChoose={runCommand} />}
      {mention && (
        <MentionMenu
          mention={mention}
          options={options}
          active={active}
          everywhere={searched !== undefined}
          onChoose={choose}
        />
      )}
      <textarea
        id="composer-input"
        ref={ref}
        value={draft}
        rows={1}
        placeholder={placeholder}
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={commandMenu || mention !== undefined}
        aria-controls={commandMenu ? COMMAND_LIST_ID : mention ? MENTION_LIST_ID : undefined}
        aria-activedescendant={
          commandMenu
            ? commandOptionId(commandActive)
            : mention && choices.length > 0
              ? mentionOptionId(active)
              : undefined
        }
        onChange={(event) => {
          onDraft(event.target.value);
          trackCaret(event.target);
        }}
        onSelect={(event) => trackCaret(event.currentTarget)}
        onFocus={(event) => trackCaret(event.currentTarget)}
        onBlur={() => setCaret(undefined)}
        onKeyDown={(event) => {
          if (commandMenu) {
            const chosen = commandOptions[commandActive];
            if (event.key === 'Escape') {
              event.preventDefault();
              setCommandsDismissed(draft);
              return;
            }
            if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
              event.preventDefault();
              const step = event.key === 'ArrowDown' ? 1 : commandOptions.length - 1;
              setCommandActive((commandActive + step) % commandOptions.length);
              return;
            }
            if (event.key === 'Tab' && chosen !== undefined) {
              event.preventDefault();
              placeCaret.current = chosen.name.length;
              onDraft(chosen.name);
              return;
            }
            if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing && chosen !== undefined) {
              event.preventDefault();
              runCommand(chosen);
              return;
            }
          }
          if (mention) {
            const chosen = choices[active];
            if (event.key === 'Escape') {
              event.preventDefault();
              setDismissed(mention.start);
              return;
            }
            if ((event.key === 'ArrowDown' || event.key === 'ArrowUp') && choices.length > 0) {
              event.preventDefault();
              const step = event.key === 'ArrowDown' ? 1 : choices.length - 1;
              setActive((active + step) % choices.length);
              return;
            }
            if (
              (event.key === 'Tab' || (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing)) &&
              chosen !== undefined
            ) {
              event.preventDefault();
              choose(chosen);
              return;
            }
          }
          if (event.key === 'ArrowUp' && draft === '' && lastPrompt !== undefined) {
            event.preventDefault();
            onDraft(lastPrompt);
            return;
          }
          if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
            event.preventDefault();
            if (!sendDisabled) onSend();
          }
        }}
      />
      <div className="composer-actions">
        {stoppable && (
          <button type="button" className="danger" onClick={onStop} title="Stop (Esc)">
            Stop
          </button>
        )}
        <button type="submit" className="primary" disabled={sendDisabled}>
          Send
        </button>
      </div>
    </form>
  );
}
