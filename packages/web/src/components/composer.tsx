import { useEffect, useLayoutEffect, useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import type { AgentRunMcp, BastionApi } from '@bastion/bridge';
import type { DirEntry, McpAttachedResource, McpListing, McpPromptOrigin, TextSpan } from '@bastion/protocol';
import {
  mayNameResource,
  mcpResourceMention,
  meansMcpPrompt,
  serverWrittenMentions,
  AGENT_MAX_IMAGES,
  AGENT_MAX_MCP_RESOURCES,
  AGENT_MAX_MESSAGE_CHARS,
  UI_COMPOSER_MAX_HEIGHT_PX,
  UI_MENTION_FIND_DELAY_MS,
  UI_MCP_MENU_RELIST_MS,
  UI_MENTION_MAX_ENTRIES,
} from '@bastion/protocol';
import {
  attachedImagesProblem,
  IMAGE_ACCEPT,
  imagesNotTakenMessage,
  MODEL_TAKES_NO_IMAGES,
  readImageFile,
  tooManyImagesMessage,
  type Attachment,
} from '../image-attachment.js';
import {
  holdsMention,
  matchingResources,
  McpAttachRefusal,
  mcpContextOf,
  mcpPromptCommands,
  mcpPromptDescription,
  runMcpPromptLine,
  type ChosenTemplate,
  type McpOffersSource,
  type McpResourceOption,
} from '../mcp-offers.js';
import { readDraftMcp, readDraftTemplates, saveDraftMcp, saveDraftTemplates, type DraftMcp } from '../drafts.js';
import { applyMention, matchingEntries, mentionAt, type Mention } from '../mention.js';
import { coversAll, spansAfterEdit } from '../server-text-spans.js';
import { matchingCommands, type SlashCommand } from '../slash-commands.js';
import {
  fillForLine,
  fillFrom,
  mayNamePrompt,
  promptListOf,
  type PromptFill,
  type PromptList,
} from '../saved-prompts.js';
import { MESSAGE_BOX_KEY } from '../shortcut-keys.js';
import { useFittingPlaceholder } from './fitting-placeholder.js';
import { CommandMenu } from './command-menu.js';
import { describeError } from '../bastion.js';
import { AttachIcon, ImageChips } from './image-chips.js';
import { LIST_MENU_ID, listOptionId } from './list-menu.js';
import { MentionMenu } from './mention-menu.js';
import { TemplateValues } from './template-values.js';
import { isModeCycleKey } from './mode-switch.js';

interface Props {
  draft: string;
  onDraft: (text: string) => void;
  /**
   * The draft's key in the tab's storage (drafts.ts): which characters of it an MCP server's
   * prompt wrote is kept there beside it, so a reload never makes them the person's.
   */
  draftKey: string;
  /**
   * Send what the box holds, with what goes with it from MCP servers: the prompt that put its text
   * there (the box says so) and the resources it names (`@SERVER:URI`), read by the host; and
   * `serverText`, that prompt and the characters of the box's text it wrote (sent with the message,
   * which keeps them for when it comes back to the box; kept with a message queued, likewise).
   */
  onSend: (mcp: AgentRunMcp, serverText?: DraftMcp) => void;
  /**
   * Text the view gave back to the box (a queued message, when its run stopped) with the characters
   * of it an MCP server's prompt wrote: `draft` is the box's text it is of. They stay the server's.
   */
  givenBack?: { draft: string; serverText: DraftMcp };
  onStop: () => void;
  /** A run is going or an approval waits: Stop is shown (and Esc stops). */
  stoppable: boolean;
  /** Send queues the message for when the run finishes (the button reads Queue). */
  queues: boolean;
  sendDisabled: boolean;
  /** The box's hint, or hints longest first: it shows the first that fits its width (useFittingPlaceholder). */
  placeholder: string | readonly string[];
  autoFocus: boolean;
  /** The last prompt sent in this session, which ArrowUp puts in an empty box; undefined before any. */
  lastPrompt: string | undefined;
  /** The characters of `lastPrompt` an MCP server's prompt wrote, when it came from one: they stay the server's. */
  lastPromptServerText?: DraftMcp;
  /** The session's workspace root while this Bastion works in it: `@` then lists its files. */
  workspace: string | null;
  /** How `@` lists a folder and looks for names below it (the bridge's workspaces). */
  files: Pick<BastionApi['workspaces'], 'readdir' | 'find'>;
  /** The slash commands a message that starts with `/` may be. */
  commands: readonly SlashCommand[];
  /**
   * Where the user's saved prompts are read (the bridge's prompts), listed after `commands` as
   * `/NAME`; running one puts its text in the box, unsent. Undefined: no saved prompts here.
   */
  savedPrompts?: Pick<BastionApi['prompts'], 'list'>;
  /**
   * The MCP servers of `workspace` (the bridge's mcp): each ready one's prompts are listed after the
   * saved prompts as `/mcp__SERVER__PROMPT` (running one puts its text in the box, unsent), and its
   * resources in the @ menu (choosing one puts `@SERVER:URI` in the text). Undefined: none here.
   */
  mcp?: McpOffersSource;
  /** The images attached to the message, in order. */
  images: readonly Attachment[];
  onImages: (images: readonly Attachment[]) => void;
  /** The model the message goes to takes images (true while the models are loading: the daemon checks). */
  modelTakesImages: boolean;
  /** Why the images did not go, from the daemon or the queue, shown under the box until they change. */
  imageRefusal?: string;
  /** Why nothing can be sent now (Bastion does not answer): Send is off and this is said under the box; the text stays. */
  unavailable?: string;
  /** What Enter does with the text in the box when that is not plain, shown over it while it holds text. */
  hint?: string;
  /** Alt+Shift+M in the box: the session's next mode. Undefined: the key does nothing. */
  onCycleMode?: () => void;
}

/**
 * A folder's entries, read once when first asked for while a mention is open and kept until it
 * closes (a closed and reopened list reads the folder again). An unreadable folder lists nothing.
 */
function useFolderEntries(
  files: Props['files'],
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
    files.readdir(workspace, folder === '' ? '.' : folder).then(
      (listing) => done(listing.entries),
      () => done([]),
    );
  }, [files, workspace, folder, key]);
  return key === undefined ? undefined : read.get(key);
}

/**
 * Paths anywhere in the workspace whose names hold `query`, asked for once typing pauses; each
 * found path as an entry named by its path. Undefined until the answer for this query is in.
 */
function useFoundPaths(
  files: Props['files'],
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
      files.find(workspace, query).then(
        (answer) => done(answer.matches.map(({ path, kind }) => ({ name: path, kind }))),
        () => done([]),
      );
    }, UI_MENTION_FIND_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [files, workspace, query, key]);
  return found !== undefined && found.key === key ? found.entries : undefined;
}

/**
 * What `read` answers, read afresh each time `wanted` turns true (the box starting to hold a `/`
 * command, say), not on every key; nothing read before is shown again. Undefined while being read,
 * or when it could not be. `latest()` is the reading under way, for an Enter pressed before it
 * came. `source` names what is read: another source is read afresh too. `again()` reads it anew
 * while wanted, the value shown kept until the answer replaces it (a failed one keeps it).
 */
function useFreshRead<T>(
  source: unknown,
  read: (() => Promise<T>) | undefined,
  wanted: boolean,
): { value: T | undefined; latest: () => Promise<T | undefined>; again: () => void } {
  const [value, setValue] = useState<T>();
  const reading = useRef<Promise<T | undefined>>(Promise.resolve(undefined));
  const reader = useRef(read);
  reader.current = read;
  const ask = (keep: boolean) => {
    const current = reader.current;
    if (current === undefined) return;
    const asked = current().then(
      (answer) => answer,
      () => undefined,
    );
    reading.current = asked;
    void asked.then((answer) => {
      // A reading asked for after this one is the one shown.
      if (reading.current === asked && !(keep && answer === undefined)) setValue(answer);
    });
  };
  useEffect(() => {
    setValue(undefined);
    if (wanted) ask(false);
  }, [source, wanted]);
  return { value, latest: () => reading.current, again: () => ask(true) };
}

/**
 * The user's saved prompts, read afresh each time the box starts to hold a `/` command (a `/`
 * typed or pasted at its start). Undefined while being read, or when they could not be (then the
 * box offers Bastion's own commands only).
 */
function useSavedPrompts(
  source: Props['savedPrompts'],
  slash: boolean,
): { list: PromptList | undefined; read: () => Promise<PromptList | undefined> } {
  const fresh = useFreshRead(source, source && (() => source.list().then(promptListOf)), slash);
  return { list: fresh.value, read: fresh.latest };
}

/**
 * The MCP servers of the box's workspace with their prompts and resources, asked for afresh each
 * time the box starts a `/` command or an `@` opens (the host starts the servers not running, so
 * the first answer may wait for a start). Undefined while being read, or when it could not be.
 */
function useMcpCatalog(
  source: McpOffersSource | undefined,
  workspace: string | null,
  wanted: boolean,
): {
  listing: McpListing | undefined;
  reading: boolean;
  read: () => Promise<McpListing | undefined>;
  again: () => void;
} {
  const key = source === undefined || workspace === null ? undefined : workspace;
  const fresh = useFreshRead(
    key,
    source === undefined || workspace === null ? undefined : () => source.catalog(workspace),
    wanted && key !== undefined,
  );
  return {
    listing: fresh.value,
    reading: wanted && key !== undefined && fresh.value === undefined,
    read: fresh.latest,
    again: fresh.again,
  };
}

/**
 * While a menu listing the MCP servers' prompts or resources is open, their listing is read again
 * every UI_MCP_MENU_RELIST_MS: a server that said its list changed (the host lists it again) has
 * its new prompts and resources in the open menu, not only in the next one.
 */
function useRelistWhileOpen(again: () => void, open: boolean): void {
  const relist = useRef(again);
  relist.current = again;
  useEffect(() => {
    if (!open) return;
    const timer = setInterval(() => relist.current(), UI_MCP_MENU_RELIST_MS);
    return () => clearInterval(timer);
  }, [open]);
}

/**
 * The active option of a list whose options change while it is open (a relisting, a search's
 * answer): the option that was active stays so where it moved to; one gone leaves the active
 * place where it was, within the list. `keys` name the options, in order.
 */
function useActiveKept(keys: readonly string[], active: number, setActive: (index: number) => void): void {
  const shown = useRef(keys);
  useLayoutEffect(() => {
    const before = shown.current;
    shown.current = keys;
    if (before.length === keys.length && before.every((key, index) => key === keys[index])) return;
    const was = before[active];
    const at = was === undefined ? -1 : keys.indexOf(was);
    const next = at >= 0 ? at : Math.max(0, Math.min(active, keys.length - 1));
    if (next !== active) setActive(next);
  });
}

/** An MCP server's prompt put its text in the box: which prompt it was. */
interface McpFill {
  origin: McpPromptOrigin;
}

/** The list open over the box: its options' count, the active one, and what its keys do. */
interface OpenList {
  count: number;
  active: number;
  move: (index: number) => void;
  /** Esc: close it, keeping the text. */
  dismiss: () => void;
  /** Tab on the active option (a mention's entry goes in, a command's name is completed). */
  complete: (index: number) => void;
  /** Enter on the active option. */
  choose: (index: number) => void;
}

/**
 * Grow or shrink the box to its text, up to UI_COMPOSER_MAX_HEIGHT_PX; it scrolls only past that.
 * The box is border-box: its height takes its borders besides the text and padding that
 * scrollHeight counts (without them it is 2 px short, and scrolls).
 */
function fitBoxHeight(box: HTMLTextAreaElement): void {
  box.style.height = 'auto';
  const style = getComputedStyle(box);
  const wanted = box.scrollHeight + parseFloat(style.borderTopWidth) + parseFloat(style.borderBottomWidth);
  box.style.height = `${Math.min(wanted, UI_COMPOSER_MAX_HEIGHT_PX)}px`;
  box.style.overflowY = wanted > UI_COMPOSER_MAX_HEIGHT_PX ? 'auto' : 'hidden';
}

/** A key on the box while a list is open; true when it was the list's (Esc, the arrows, Tab, Enter). */
function listKey(event: KeyboardEvent<HTMLTextAreaElement>, list: OpenList): boolean {
  const act = (action: () => void) => {
    event.preventDefault();
    action();
    return true;
  };
  if (event.key === 'Escape') return act(list.dismiss);
  if (list.count === 0) return false;
  if (event.key === 'ArrowDown') return act(() => list.move((list.active + 1) % list.count));
  if (event.key === 'ArrowUp') return act(() => list.move((list.active + list.count - 1) % list.count));
  if (event.key === 'Tab') return act(() => list.complete(list.active));
  if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing)
    return act(() => list.choose(list.active));
  return false;
}

/**
 * The message box: grows with its text up to a bound, Enter sends, Shift+Enter breaks a line, Esc
 * stops, ArrowUp in an empty box brings back the last prompt, Alt+Shift+M switches the mode (when
 * `onCycleMode` is given). `@` lists the workspace's files and
 * folders by the name typed after it (src/ then its own entries; a name of two characters or more
 * is also looked for in every folder), and puts the chosen path in. A message that is the start
 * of a slash command's name lists those commands; Enter (or Send, for a whole name) runs one.
 * The user's saved prompts follow them: choosing one, or Enter on `/NAME ARGS`, puts the prompt's
 * text in the box (ARGS for its `$ARGUMENTS`) with a note naming its file, and sends nothing: the
 * user reads it, and Enter sends it like any message. The MCP servers' prompts follow those
 * (`/mcp__SERVER__PROMPT NAME=value`): the same, the host running the prompt, a needed argument
 * asked for and a mistake said under the box. `@` also lists the servers' resources: choosing one
 * puts `@SERVER:URI` in (once the host has read it: one it refuses is said and left out), and its
 * text goes with the message.
 */
export function Composer({
  draft,
  onDraft,
  draftKey,
  onSend,
  givenBack,
  onStop,
  stoppable,
  queues,
  sendDisabled,
  placeholder,
  autoFocus,
  lastPrompt,
  lastPromptServerText,
  workspace,
  files,
  commands,
  savedPrompts,
  mcp,
  images,
  onImages,
  modelTakesImages,
  imageRefusal,
  unavailable,
  hint,
  onCycleMode,
}: Props) {
  const ref = useRef<HTMLTextAreaElement>(null);
  const shownPlaceholder = useFittingPlaceholder(ref, placeholder);
  const attach = useAttachments(images, onImages, modelTakesImages);
  /** Send was asked for with images and no text. */
  const [askedForText, setAskedForText] = useState(false);
  useEffect(() => {
    if (draft.trim() !== '' || images.length === 0) setAskedForText(false);
  }, [draft, images.length]);
  const form = useRef<HTMLFormElement>(null);
  /** The remove button to focus once a removed chip is gone (the next one, else the box). */
  const focusChip = useRef<number | undefined>(undefined);
  useLayoutEffect(() => {
    if (focusChip.current === undefined) return;
    const buttons = form.current?.querySelectorAll<HTMLButtonElement>('.image-chip-remove') ?? [];
    (buttons[Math.min(focusChip.current, buttons.length - 1)] ?? ref.current)?.focus();
    focusChip.current = undefined;
  }, [images]);
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
  const slash = draft.trimStart().startsWith('/');
  const saved = useSavedPrompts(savedPrompts, slash);
  const catalog = useMcpCatalog(
    mcp,
    workspace,
    slash || (workspace !== null && caret !== undefined && mentionAt(draft, caret) !== undefined),
  );
  /**
   * The saved prompt, or the MCP server's prompt, whose text was put in the box: named under it
   * until the box is emptied (sent or cleared).
   */
  const [restored] = useState(() => readDraftMcp(draftKey, draft));
  const [filled, setFilled] = useState<PromptFill | McpFill | undefined>(restored && { origin: restored.origin });
  /**
   * The characters of the box an MCP server's prompt wrote, moved with each change of its text
   * (whoever made it: the person, a mention chosen, the queue given back) as it is rendered: a
   * word in them attaches nothing, however it was edited.
   */
  const serverText = useRef<{ draft: string; spans: TextSpan[] }>({ draft, spans: restored?.spans ?? [] });
  if (serverText.current.draft !== draft) {
    serverText.current = { draft, spans: spansAfterEdit(serverText.current.spans, serverText.current.draft, draft) };
  }
  const adopted = useRef(givenBack);
  if (givenBack !== undefined && givenBack !== adopted.current && givenBack.draft === draft) {
    adopted.current = givenBack;
    serverText.current = { draft, spans: [...serverText.current.spans, ...givenBack.serverText.spans] };
    if (filled === undefined || !('origin' in filled)) setFilled({ origin: givenBack.serverText.origin });
  }
  const mcpFill = filled !== undefined && 'origin' in filled ? filled : undefined;
  useEffect(() => {
    saveDraftMcp(draftKey, draft, mcpFill && { origin: mcpFill.origin, spans: serverText.current.spans });
  }, [draftKey, draft, mcpFill]);
  /** The box holds the text a prompt (saved, or an MCP server's) put there, as it was put. */
  const asFilled =
    filled !== undefined &&
    ('origin' in filled ? coversAll(serverText.current.spans, draft.length) : draft === filled.text);
  /** What an MCP server's prompt or resource could not do, said under the box until the text changes. */
  const [mcpNote, setMcpNote] = useState<{ draft: string; message: string }>();
  /**
   * The resources read when chosen in the @ menu, sent as read then (not read again): the newest
   * AGENT_MAX_MCP_RESOURCES whose `@SERVER:URI` was in the box at the last choice; none once it is empty.
   */
  const chosenResources = useRef<McpAttachedResource[]>([]);
  /**
   * The resource templates filled in from the @ menu whose word the box holds, kept with the draft
   * (through a reload): the host reads each again from its values when the message goes, unless
   * its read from when it was chosen is still among chosenResources.
   */
  const [restoredTemplates] = useState(() => readDraftTemplates(draftKey, draft));
  const chosenTemplates = useRef<ChosenTemplate[]>(restoredTemplates);
  useEffect(() => saveDraftTemplates(draftKey, draft, chosenTemplates.current), [draftKey, draft]);
  useEffect(() => {
    if (draft.trim() !== '') return;
    setFilled(undefined);
    chosenResources.current = [];
    chosenTemplates.current = [];
  }, [draft]);
  const fill = (text: string, prompt: PromptFill | McpFill) => {
    placeCaret.current = text.length;
    setCaret(text.length);
    setFilled(prompt);
    serverText.current = { draft: text, spans: 'origin' in prompt ? [[0, text.length]] : [] };
    onDraft(text);
    ref.current?.focus();
  };
  const fillSaved = (prompt: PromptFill) => fill(prompt.text, prompt);
  const promptOptions: SlashCommand[] =
    saved.list?.prompts.map((prompt) => ({
      name: `/${prompt.name}`,
      description: prompt.description,
      unavailable: undefined,
      savedPrompt: true,
      run: () => {
        const list = saved.list;
        // What follows the name (`/peek README.md` then Tab and Enter) is the prompt's ARGUMENTS.
        if (list) fillSaved(fillForLine({ ...list, prompts: [prompt] }, draft) ?? fillFrom(list, prompt, ''));
      },
    })) ?? [];
  const mcpOptions: SlashCommand[] = mcpPromptCommands(catalog.listing).map((command) => ({
    name: command.name,
    description: mcpPromptDescription(command.prompt),
    unavailable: undefined,
    mcpServer: command.server,
    run: () => {
      // Its needed arguments are asked for: the box gets `NAME=` for each, to be filled in and sent with Enter.
      const needed = command.prompt.arguments.filter((argument) => argument.required);
      if (needed.length === 0) {
        void runMcpPrompt(command.name);
        return;
      }
      const line = `${command.name} ${needed.map((argument) => `${argument.name}=`).join(' ')}`;
      placeCaret.current = command.name.length + 1 + (needed[0]?.name.length ?? 0) + 1;
      onDraft(line);
      setMcpNote({
        draft: line,
        message: `${command.name} needs ${needed.map((argument) => argument.name).join(' and ')}: type each value after its = and press Enter.`,
      });
    },
  }));
  const commandOptions =
    caret === undefined
      ? []
      : [
          ...matchingCommands(commands, draft),
          ...matchingCommands(promptOptions, draft),
          ...matchingCommands(mcpOptions, draft),
        ];
  const commandMenu = commandOptions.length > 0 && commandsDismissed !== draft;
  const found = workspace === null || caret === undefined || commandMenu ? undefined : mentionAt(draft, caret);
  const mention = found !== undefined && found.start !== dismissed ? found : undefined;
  const entries = useFolderEntries(files, workspace, mention?.folder);
  const searched = mention?.folder === '' && mention.prefix.length >= 2 ? mention.prefix : undefined;
  const elsewhere = useFoundPaths(files, workspace, searched);
  const here = mention && entries ? matchingEntries(entries, mention.prefix) : undefined;
  const options =
    here === undefined
      ? undefined
      : [...here, ...(elsewhere ?? []).filter((entry) => !here.some((shown) => shown.name === entry.name))].slice(
          0,
          UI_MENTION_MAX_ENTRIES,
        );
  const choices = options ?? [];
  const resources: McpResourceOption[] =
    mention === undefined || mcp === undefined || options === undefined
      ? []
      : matchingResources(catalog.listing, `${mention.folder}${mention.prefix}`);
  // Kept across a change of the options; the first again once the text typed changes (after this).
  useActiveKept(
    [...choices.map((entry) => `file ${entry.name}`), ...resources.map((option) => `mcp ${option.word}`)],
    active,
    setActive,
  );
  useActiveKept(
    commandOptions.map((command) => command.name),
    commandActive,
    setCommandActive,
  );
  useEffect(() => setActive(0), [mention?.folder, mention?.prefix]);
  useEffect(() => setCommandActive(0), [draft]);
  const foundAt = found?.start;
  useEffect(() => {
    if (foundAt === undefined) setDismissed(undefined);
  }, [foundAt]);
  useLayoutEffect(() => {
    const box = ref.current;
    if (!box) return;
    fitBoxHeight(box);
    if (placeCaret.current !== undefined) {
      box.setSelectionRange(placeCaret.current, placeCaret.current);
      // A caret put at the end of a long text (a saved prompt's) is shown there.
      if (placeCaret.current === box.value.length) box.scrollTop = box.scrollHeight;
      placeCaret.current = undefined;
    }
  }, [draft]);
  // A change of the box's width (the window resized, a side panel opened) rewraps its text: fit again.
  useEffect(() => {
    const box = ref.current;
    if (!box) return;
    let width = box.clientWidth;
    const observer = new ResizeObserver(() => {
      if (box.clientWidth === width) return;
      width = box.clientWidth;
      fitBoxHeight(box);
    });
    observer.observe(box);
    return () => observer.disconnect();
  }, []);
  const choose = (entry: DirEntry) => {
    if (!mention) return;
    const next = applyMention(draft, mention, entry);
    placeCaret.current = next.caret;
    setCaret(next.caret);
    onDraft(next.text);
  };
  const runCommand = (command: SlashCommand) => {
    if (command.unavailable !== undefined) return;
    if (command.savedPrompt !== true && command.mcpServer === undefined) onDraft('');
    command.run();
  };
  /**
   * Attach a resource chosen in the @ menu: read by the host first, so that one it refuses (binary,
   * too large) is said at once and never goes in; else `@SERVER:URI` in place of the mention. The
   * text read now is what goes with the message when it is sent.
   */
  const attachResource = (option: McpResourceOption) => {
    if (mention === undefined || mcp === undefined || workspace === null) return;
    if (option.kind === 'template') {
      setMcpNote(undefined);
      setFilling({ option, typed: draft, at: mention });
      return;
    }
    const typed = draft;
    setMcpNote(undefined);
    attachRead(mcp.resource(workspace, option.server, option.resource.uri), typed, mention).catch((failure: unknown) =>
      setMcpNote({ draft: typed, message: `@${option.word}: ${describeError(failure)}` }),
    );
  };
  /**
   * `read` (a resource read when chosen) in place of the mention `at` in `typed`, unless the box
   * changed meanwhile; `template`, the template filled in for it, if any, kept with the draft.
   */
  const attachRead = (
    read: Promise<McpAttachedResource>,
    typed: string,
    at: Mention,
    template?: Omit<ChosenTemplate, 'uri'>,
  ): Promise<void> =>
    read.then((resource) => {
      if (latest.current.draft !== typed) return;
      const word = mcpResourceMention(resource.server, resource.uri).slice(1);
      const next = applyMention(typed, { ...at, folder: '' }, { name: word, kind: 'file' });
      const stillNamed = (earlier: { server: string; uri: string }) =>
        (earlier.server !== resource.server || earlier.uri !== resource.uri) &&
        holdsMention(next.text, earlier.server, earlier.uri);
      chosenResources.current = [...chosenResources.current.filter(stillNamed), resource].slice(
        -AGENT_MAX_MCP_RESOURCES,
      );
      chosenTemplates.current = [
        ...chosenTemplates.current.filter(stillNamed),
        ...(template === undefined ? [] : [{ ...template, uri: resource.uri }]),
      ].slice(-AGENT_MAX_MCP_RESOURCES);
      placeCaret.current = next.caret;
      setCaret(next.caret);
      onDraft(next.text);
    });
  /**
   * The resource template chosen in the @ menu whose variables are asked for (in place of the
   * menu), and the box's text then: the values are the person's, and the URI the host expands the
   * template to with them is read and put in place of the mention as a chosen resource is.
   */
  const [filling, setFilling] = useState<{
    option: McpResourceOption & { kind: 'template' };
    typed: string;
    at: Mention;
  }>();
  // The box's text changed under it (typed, or sent): the values asked for would go nowhere.
  useEffect(() => {
    if (filling !== undefined && draft !== filling.typed) setFilling(undefined);
  }, [draft, filling]);
  const closeFilling = () => setFilling(undefined);
  // Closed, the box has the focus back: after its text and caret are in (a focus taken before
  // would read the caret in the old text, opening the @ menu on the new word).
  const wasFilling = useRef(false);
  useLayoutEffect(() => {
    if (wasFilling.current && filling === undefined) ref.current?.focus();
    wasFilling.current = filling !== undefined;
  }, [filling]);
  const fillTemplate = (values: Record<string, string>): Promise<void> => {
    if (filling === undefined || mcp === undefined || workspace === null) return Promise.resolve();
    const { option, typed, at } = filling;
    const template = { server: option.server, template: option.template.uri_template, values };
    return attachRead(mcp.resource(workspace, option.server, template.template, values), typed, at, template).then(
      closeFilling,
    );
  };
  const insertEntry = (index: number) => {
    const entry = choices[index];
    if (entry) choose(entry);
    const resource = resources[index - choices.length];
    if (!entry && resource) attachResource(resource);
  };
  const list: OpenList | undefined = commandMenu
    ? {
        count: commandOptions.length,
        active: commandActive,
        move: setCommandActive,
        dismiss: () => setCommandsDismissed(draft),
        complete: (index) => {
          const command = commandOptions[index];
          // A prompt's name is followed by a space, for what to put in its $ARGUMENTS or arguments.
          const name =
            command === undefined
              ? draft
              : command.savedPrompt === true || command.mcpServer !== undefined
                ? `${command.name} `
                : command.name;
          placeCaret.current = name.length;
          onDraft(name);
        },
        choose: (index) => {
          const command = commandOptions[index];
          if (command) runCommand(command);
        },
      }
    : mention && !filling
      ? {
          count: choices.length + resources.length,
          active,
          move: setActive,
          dismiss: () => setDismissed(mention.start),
          complete: insertEntry,
          choose: insertEntry,
        }
      : undefined;
  useRelistWhileOpen(
    catalog.again,
    mcp !== undefined && caret !== undefined && (slash || (mention !== undefined && !filling)),
  );
  const trackCaret = (box: HTMLTextAreaElement) =>
    setCaret(box.selectionStart === box.selectionEnd ? box.selectionStart : undefined);
  /**
   * Where the focus was when the box last could not take it (its session still loading, a question
   * waiting); undefined while it never could not. When it can again, it takes the focus only if
   * the focus is still there or nowhere: not from a control the person went to meanwhile, such as
   * the session list's Confirm delete, which losing the focus disarms.
   */
  const focusWhileWaiting = useRef<Element | null | undefined>(undefined);
  useLayoutEffect(() => {
    const focused = document.activeElement;
    if (!autoFocus) {
      focusWhileWaiting.current = focused;
      return;
    }
    const waitedFrom = focusWhileWaiting.current;
    if (waitedFrom === undefined || focused === waitedFrom || focused === null || focused === document.body) {
      ref.current?.focus();
    }
  }, [autoFocus]);
  // Longer than the agent takes: said above the box, and not sent (the text stays to be cut or moved).
  const tooLong = draft.length > AGENT_MAX_MESSAGE_CHARS;
  // Too many images (a queued message came back) or a model that takes none (after a switch).
  const imagesProblem = attachedImagesProblem(images.length, modelTakesImages);
  const blocked = unavailable !== undefined || sendDisabled || tooLong || imagesProblem !== undefined || attach.reading;
  /** Send, or say why not when only images are in the box (they go with a message). */
  const send = () => {
    if (images.length > 0 && draft.trim() === '') {
      setAskedForText(true);
      return;
    }
    if (blocked) return;
    attach.setNote(undefined);
    const prompt = mcpFill && { origin: mcpFill.origin, spans: serverText.current.spans };
    if (mcp === undefined || !mayNameResource(draft)) {
      onSend(prompt === undefined ? {} : { prompt: prompt.origin }, prompt);
      return;
    }
    // The resources the person named and did not choose in the @ menu are read now: one that cannot
    // be attached is said under the box, and nothing is sent. A word of a server's prompt text attaches nothing.
    const typed = draft;
    setMcpNote(undefined);
    mcpContextOf(mcp, workspace, typed, prompt, chosenResources.current, chosenTemplates.current).then(
      (context) => {
        if (latest.current.draft === typed) onSend(context, prompt);
      },
      (failure: unknown) =>
        setMcpNote({
          draft: typed,
          message: failure instanceof McpAttachRefusal ? failure.message : describeError(failure),
        }),
    );
  };
  /** The newest text and send, for an Enter decided once the saved prompts are read. */
  const latest = useRef({ draft, send });
  latest.current = { draft, send };
  /**
   * Enter or Send: `/NAME ARGS` naming a saved prompt puts the prompt's text in the box, unsent
   * (decided once a listing still being read is in: a name typed and Enter pressed at once); any
   * other text is sent. Text a saved prompt put there is sent as it is, even if it starts with a
   * prompt's name itself.
   */
  const sendOrFill = () => {
    if (!asFilled && meansMcpPrompt(draft)) {
      if (mcp !== undefined && workspace !== null) void runMcpPrompt(draft);
      else setMcpNote({ draft, message: 'No MCP server runs for this session: it works in no folder.' });
      return;
    }
    if (savedPrompts === undefined || !mayNamePrompt(draft) || asFilled) {
      send();
      return;
    }
    const typed = draft;
    void saved.read().then((list) => {
      if (latest.current.draft !== typed) return;
      const found = list && fillForLine(list, typed);
      if (found) fillSaved(found);
      else latest.current.send();
    });
  };
  /**
   * `/mcp__SERVER__PROMPT ARGS` (typed, or chosen): the prompt run by the host, its text put in the
   * box unsent with a note naming it (decided once a listing still being read is in); a mistake or
   * a refusal said under the box, the text kept — also for a `/mcp__…` line naming no server's
   * prompt, which is not sent to the model.
   */
  const runMcpPrompt = async (line: string) => {
    if (mcp === undefined || workspace === null) return;
    const typed = latest.current.draft;
    setMcpNote(undefined);
    const run = await runMcpPromptLine(mcp, workspace, await catalog.read(), line);
    if (latest.current.draft !== typed) return;
    if (run.kind === 'text') fill(run.text, { origin: run.origin });
    else setMcpNote({ draft: typed, message: run.message });
  };
  const mcpProblem = mcpNote !== undefined && mcpNote.draft === draft ? mcpNote.message : undefined;
  // Said until there is text to go with the images.
  const needsText =
    askedForText && images.length > 0 && draft.trim() === ''
      ? `Write a message to go with the ${images.length === 1 ? 'image' : 'images'}: images are sent with one.`
      : undefined;
  const notes = [imagesProblem, imageRefusal, attach.note, needsText, mcpProblem].filter((note) => note !== undefined);
  const showHint = hint !== undefined && draft.trim() !== '';
  /** The box's `@SERVER:URI` words an MCP server's prompt wrote (or that came back with one's text): they attach nothing. */
  const unattached = mcpFill === undefined ? [] : serverWrittenMentions(draft, serverText.current.spans);
  const describedBy = [
    tooLong ? 'composer-limit' : '',
    notes.length > 0 ? 'composer-image-note' : '',
    unavailable !== undefined ? 'composer-unavailable' : '',
    filled ? 'composer-prompt-note' : '',
    unattached.length > 0 ? 'composer-unattached-note' : '',
    showHint ? 'composer-hint' : '',
  ]
    .filter(Boolean)
    .join(' ');
  return (
    <>
      {tooLong && (
        <p className="composer-limit" id="composer-limit" role="status">
          This message is {draft.length.toLocaleString('en-US')} characters; one message holds at most{' '}
          {AGENT_MAX_MESSAGE_CHARS.toLocaleString('en-US')}. Put long text in a file in the project and mention it with
          @.
        </p>
      )}
      <form
        ref={form}
        className={attach.dragging ? 'composer dragging' : 'composer'}
        onSubmit={(event) => {
          event.preventDefault();
          const named = commands.find((command) => command.name === draft.trim().toLowerCase());
          if (named) runCommand(named);
          else sendOrFill();
        }}
        onDragOver={attach.dragOver}
        onDragLeave={attach.dragLeave}
        onDrop={attach.drop}
      >
        <label htmlFor="composer-input" className="visually-hidden">
          Message
        </label>
        {commandMenu && (
          <CommandMenu
            options={commandOptions}
            active={commandActive}
            onChoose={runCommand}
            note={catalog.reading ? 'the MCP servers’ prompts are being listed' : undefined}
          />
        )}
        {filling && (
          <TemplateValues
            key={filling.option.word}
            word={filling.option.word}
            variables={filling.option.template.variables}
            onAttach={fillTemplate}
            onCancel={closeFilling}
          />
        )}
        {mention && !filling && (
          <MentionMenu
            mention={mention}
            options={options}
            resources={resources}
            active={active}
            everywhere={searched !== undefined}
            note={catalog.reading ? 'the MCP servers’ resources are being listed' : undefined}
            onChoose={insertEntry}
          />
        )}
        <button
          type="button"
          className="attach-button"
          aria-label="Attach image"
          title={
            modelTakesImages
              ? `Attach an image (PNG, JPEG, GIF or WebP; up to ${AGENT_MAX_IMAGES}); you can also paste or drop one here`
              : MODEL_TAKES_NO_IMAGES
          }
          disabled={!modelTakesImages}
          onClick={() => attach.input.current?.click()}
        >
          <AttachIcon />
        </button>
        <input
          ref={attach.input}
          type="file"
          accept={IMAGE_ACCEPT}
          multiple
          hidden
          tabIndex={-1}
          aria-hidden="true"
          data-testid="image-input"
          onChange={(event) => {
            attach.add([...(event.currentTarget.files ?? [])]);
            // The same file chosen again is a change too.
            event.currentTarget.value = '';
          }}
        />
        <div className="composer-box">
          <ImageChips
            images={images}
            onRemove={(attachment, index) => {
              focusChip.current = index;
              attach.setNote(undefined);
              onImages(images.filter((kept) => kept.id !== attachment.id));
            }}
          />
          {unavailable !== undefined && (
            <p className="composer-note" id="composer-unavailable" role="status">
              {unavailable}
            </p>
          )}
          {notes.length > 0 && (
            <p className="composer-note" id="composer-image-note" role="alert">
              {notes.join(' ')}
            </p>
          )}
          {filled && (
            <p className="composer-prompt-note" id="composer-prompt-note" role="status">
              {'origin' in filled ? (
                <>
                  From the prompt <code>{filled.origin.name}</code> of the MCP server{' '}
                  <code>{filled.origin.server}</code>: not sent yet, Enter sends it.
                </>
              ) : (
                <>
                  From your saved prompt <code>{filled.file}</code>: not sent yet, Enter sends it.
                </>
              )}
            </p>
          )}
          {mcpFill !== undefined && unattached.length > 0 && (
            <p className="composer-prompt-note" id="composer-unattached-note" role="status">
              Not attached:{' '}
              {unattached.map((word, index) => (
                <span key={index}>
                  {index > 0 && ', '}
                  <code>{word}</code>
                </span>
              ))}{' '}
              — the MCP server <code>{mcpFill.origin.server}</code>’s prompt wrote it. Type it yourself or choose it in
              the @ menu.
            </p>
          )}
          {showHint && (
            <p className="composer-prompt-note" id="composer-hint" role="status">
              {hint}
            </p>
          )}
          <textarea
            id="composer-input"
            aria-keyshortcuts={MESSAGE_BOX_KEY.name}
            ref={ref}
            value={draft}
            rows={1}
            placeholder={shownPlaceholder}
            role="combobox"
            aria-autocomplete="list"
            aria-expanded={list !== undefined}
            aria-controls={list ? LIST_MENU_ID : undefined}
            aria-activedescendant={list && list.count > 0 ? listOptionId(list.active) : undefined}
            aria-describedby={describedBy === '' ? undefined : describedBy}
            onChange={(event) => {
              onDraft(event.target.value);
              trackCaret(event.target);
            }}
            onSelect={(event) => trackCaret(event.currentTarget)}
            onFocus={(event) => trackCaret(event.currentTarget)}
            onBlur={() => setCaret(undefined)}
            onKeyDown={(event) => {
              if (list && listKey(event, list)) return;
              if (event.key === 'ArrowUp' && draft === '' && lastPrompt !== undefined) {
                event.preventDefault();
                if (lastPromptServerText !== undefined) {
                  serverText.current = { draft: lastPrompt, spans: lastPromptServerText.spans };
                  setFilled({ origin: lastPromptServerText.origin });
                }
                onDraft(lastPrompt);
                return;
              }
              if (isModeCycleKey(event.nativeEvent)) {
                event.preventDefault();
                onCycleMode?.();
                return;
              }
              if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
                event.preventDefault();
                sendOrFill();
              }
            }}
            onPaste={(event) => {
              // A screenshot comes as a file with no text beside it; a copy from a document that also
              // carries a picture of itself (a spreadsheet's cells) pastes as its text.
              const pasted = [...event.clipboardData.files];
              if (pasted.length === 0 || event.clipboardData.types.includes('text/plain')) return;
              event.preventDefault();
              attach.add(pasted);
            }}
          />
        </div>
        <div className="composer-actions">
          {stoppable && (
            <button
              type="button"
              className="danger"
              onClick={() => {
                onStop();
                // Stop goes once the run has ended; the box keeps the focus so it is not lost to the page.
                ref.current?.focus();
              }}
              title="Stop (Esc)"
            >
              Stop
            </button>
          )}
          <button type="submit" className="primary" disabled={blocked} title={unavailable}>
            {queues ? 'Queue' : 'Send'}
          </button>
        </div>
      </form>
    </>
  );
}

/** Whether a drag carries files (not text or a link dragged within the page). */
const carriesFiles = (event: DragEvent | globalThis.DragEvent) => event.dataTransfer?.types.includes('Files') === true;

/**
 * Attaching images to the message: files from the chooser, a paste or a drop are read one batch
 * after another (so a batch counts the images the one before it added), each checked, and what
 * was refused said in words (`note`). While the box is on the page, a file dropped beside it is
 * not opened by the browser in place of the app.
 */
function useAttachments(
  images: readonly Attachment[],
  onImages: (images: readonly Attachment[]) => void,
  modelTakesImages: boolean,
) {
  const input = useRef<HTMLInputElement>(null);
  const [note, setNote] = useState<string>();
  const [reading, setReading] = useState(0);
  const [dragging, setDragging] = useState(false);
  // The latest images and setter, for a batch that finishes after other changes.
  const latest = useRef({ images, onImages });
  latest.current = { images, onImages };
  const queue = useRef<Promise<void>>(Promise.resolve());
  useEffect(() => {
    const keepPage = (event: globalThis.DragEvent) => {
      if (carriesFiles(event)) event.preventDefault();
    };
    window.addEventListener('dragover', keepPage);
    window.addEventListener('drop', keepPage);
    return () => {
      window.removeEventListener('dragover', keepPage);
      window.removeEventListener('drop', keepPage);
    };
  }, []);

  const add = (files: readonly File[]) => {
    if (files.length === 0) return;
    if (!modelTakesImages) {
      setNote(imagesNotTakenMessage(files.length));
      return;
    }
    setReading((count) => count + 1);
    queue.current = queue.current.then(async () => {
      try {
        const refused: string[] = [];
        const added: Attachment[] = [];
        for (const file of files) {
          if (latest.current.images.length + added.length >= AGENT_MAX_IMAGES) {
            refused.push(tooManyImagesMessage(file.name));
            continue;
          }
          const read = await readImageFile(file);
          if (read.ok) added.push(read.attachment);
          else refused.push(read.message);
        }
        if (added.length > 0) {
          const next = [...latest.current.images, ...added];
          latest.current = { ...latest.current, images: next };
          latest.current.onImages(next);
        }
        setNote(refused.length > 0 ? refused.join(' ') : undefined);
      } finally {
        setReading((count) => count - 1);
      }
    });
  };

  return {
    input,
    note,
    setNote,
    reading: reading > 0,
    dragging,
    add,
    dragOver: (event: DragEvent<HTMLFormElement>) => {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = modelTakesImages ? 'copy' : 'none';
      setDragging(true);
    },
    dragLeave: (event: DragEvent<HTMLFormElement>) => {
      if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
    },
    drop: (event: DragEvent<HTMLFormElement>) => {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      setDragging(false);
      add([...event.dataTransfer.files]);
    },
  };
}
