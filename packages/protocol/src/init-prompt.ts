/**
 * The message `/init` sends (the UI's and `bastion chat`'s): the agent studies the project and
 * writes its AGENTS.md, a write that always asks the user first. In a module of its own, with no
 * schema: the desktop page imports it, and a module that builds zod schemas would bring zod's eval
 * probe into the page, which its CSP refuses.
 */
export const INIT_INSTRUCTIONS_PROMPT = [
  'Study this repository and write an AGENTS.md at the workspace root for coding agents who work here.',
  'Look at its layout, its build, test and lint commands (package manifests, scripts, CI configuration) and the conventions its code and configuration show.',
  'Say how to build, test and lint; where things are; the conventions to follow; anything surprising. Keep it short and specific to this project: no generic advice.',
  'If an AGENTS.md exists, improve it and keep what is still true.',
].join(' ');
