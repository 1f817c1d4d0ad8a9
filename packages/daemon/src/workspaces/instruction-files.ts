/**
 * SEC-004: project instruction files. AGENTS.md (and CLAUDE.md where a directory has no AGENTS.md)
 * are read into every later run's system prompt, so a write to one steers the agent from then on.
 * The file tools therefore ask a human before writing one in every mode, `auto` included; the
 * host's per-command profile write-denies the root's existing ones for run_command.
 *
 * A new one at the root made by a run_command child is moved to quarantine by the host's
 * placeholder warden after (and during) the command.
 *
 * What this does not catch: a run_command child creating or changing one below the workspace
 * root, after the user approved that command (accept-edits) or in `auto`.
 */
import { sep } from 'node:path';

/** In order of preference: a directory's AGENTS.md wins over its CLAUDE.md. */
export const INSTRUCTION_FILE_NAMES = ['AGENTS.md', 'CLAUDE.md'] as const;

const LOWER_NAMES: ReadonlySet<string> = new Set(INSTRUCTION_FILE_NAMES.map((name) => name.toLowerCase()));

/** `relativePath` names an instructions file at any depth (case-insensitive, either separator). */
export function isInstructionFilePath(relativePath: string): boolean {
  const base = relativePath
    .split(sep === '/' ? '/' : /[\\/]/)
    .filter((segment) => segment.length > 0)
    .at(-1);
  return base !== undefined && LOWER_NAMES.has(base.toLowerCase());
}
