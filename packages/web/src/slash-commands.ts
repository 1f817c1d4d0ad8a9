/**
 * Slash commands in the message box: a message that is the start of a command's name (`/`, `/mo`,
 * `/mode a`) lists the commands it may be, and Enter runs the chosen one instead of sending it.
 * Text that starts no command (a path such as `/etc/hosts is…`) is sent as typed. The user's saved
 * prompts are listed after Bastion's own commands (saved-prompts.ts), the MCP servers' prompts
 * after those (mcp-offers.ts).
 */
export interface SlashCommand {
  /** What is typed, e.g. `/mode auto`. */
  name: string;
  description: string;
  /** Why it cannot run now, shown beside it (Enter then does nothing); undefined when it can. */
  unavailable: string | undefined;
  /** One of the user's saved prompts: marked so in the list, and running it fills the box rather than emptying it. */
  savedPrompt?: boolean;
  /** A prompt of this MCP server: marked so in the list, and running it fills the box as a saved prompt does. */
  mcpServer?: string;
  run: () => void;
}

/** The commands whose names start with `draft` (ignoring case and trailing spaces), in their order. */
export function matchingCommands<T extends Pick<SlashCommand, 'name'>>(commands: readonly T[], draft: string): T[] {
  if (!draft.startsWith('/') || draft.includes('\n')) return [];
  const typed = draft.trimEnd().toLowerCase();
  return commands.filter((command) => command.name.startsWith(typed));
}
