/** Bastion's own slash commands in a session's message box, in the order the menu lists them. */
export const SESSION_COMMANDS = [
  '/new',
  '/compact',
  '/init',
  '/undo',
  '/rewind',
  '/export',
  '/changes',
  '/model',
  '/reasoning',
  '/mode read-only',
  '/mode accept-edits',
  '/mode auto',
  '/mcp',
  '/help',
] as const;
