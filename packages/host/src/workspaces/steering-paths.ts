/**
 * SEC-004 (agent shell execution, workspace file access): the one list of what steers a tool
 * opened or started in a folder of the workspace, shared by both ways the agent writes there so
 * they cannot drift: the file tools (the host refuses these with FS_PROTECTED, protected-paths.ts)
 * and run_command (write-denied at the root by command-profile.ts and below it by
 * nested-protections.ts). Each runs code later, outside the sandbox: VS Code's settings, tasks,
 * launch configurations and extensions; JetBrains' run configurations and startup tasks; a dev
 * container's `initializeCommand` (run on the host when the container is built); Claude Code's
 * saved prompts (`.claude/commands`), subagents and the hooks of its settings; an MCP server list;
 * direnv's `.envrc`.
 *
 * What this does not catch: configuration of tools not named here; these paths under another
 * name a tool is pointed at explicitly.
 */

/** Relative to any directory of the workspace, `/`-separated: a directory's whole contents count. */
export const STEERING_PATHS = [
  '.envrc',
  '.vscode',
  '.idea',
  '.devcontainer',
  '.mcp.json',
  '.claude/commands',
  '.claude/agents',
  '.claude/settings.json',
  '.claude/settings.local.json',
] as const;

/**
 * Project instructions, read into every later run's system prompt: write-denied to commands, and
 * asked about before the file tools write them (daemon instruction-files.ts), not refused.
 */
export const PROJECT_INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md'] as const;
