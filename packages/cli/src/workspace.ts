/**
 * The folder the agent works in (`--workspace`, else where the user typed the command), made the
 * host's working directory before anything starts. srt resolves its built-in write protections
 * (shell and tool start-up files, git hooks and config, and those of repositories nested a few
 * levels below) against the host's working directory and scans it on every wrap: from the
 * workspace, they protect the tree commands can write, and the scan covers that tree and no other
 * (from `npm start` the working directory would be Bastion's own checkout; from HOME, all of it).
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from './usage.js';

/** The workspace folder `--workspace` names (or where the command was typed); a missing or non-folder path is a usage error. */
export function workspaceFolder(flag: string | undefined): string {
  const workspace = resolve(flag ?? process.env.INIT_CWD ?? process.cwd());
  let isDirectory = false;
  try {
    isDirectory = statSync(workspace).isDirectory();
  } catch {
    // reported below
  }
  if (!isDirectory) throw new UsageError(`the workspace is not a folder: ${workspace}`);
  return workspace;
}

/** Resolve the workspace folder (workspaceFolder) and enter it. */
export function enterWorkspace(flag: string | undefined): string {
  const workspace = workspaceFolder(flag);
  process.chdir(workspace);
  return workspace;
}
