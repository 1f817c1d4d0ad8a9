/**
 * SEC-004 watchdog, held below the sidecar: the file-tool rules its sandbox can enforce. write_file
 * and edit_file run inside the sidecar, so a compromised sidecar can skip the policy check before
 * them; the host therefore turns each rule that denies writing a path outright into a write-deny of
 * that path in the sidecar's srt profile, and the kernel refuses the write whatever the sidecar does.
 *
 * Which rules: every `hard-deny` (nothing overrides one), and a `deny` whose layer decides — the
 * project's own, or the global layer's when the project has no rule a file tool could match (one
 * could allow what the global rule denies). The rule must cover both tools that write (no `tools`,
 * or both named) and match on paths alone. Which paths: those srt can bind as a path — a literal
 * path, or one ending in `/**` (its directory), inside the workspace root and not the root itself.
 *
 * What it does not catch: a rule with any other glob (`**\/*.pem`, `*.env`), which stays the
 * sidecar's check alone; a path that does not exist when the sidecar starts (srt binds what exists
 * and makes no placeholder in the workspace); `ask` rules (an approval is recorded by the sidecar).
 */
import { isAbsolute, relative, resolve } from 'node:path';
import picomatch from 'picomatch';
import type { PolicyListing, PolicyRule } from '@bastion/protocol';
import { hostOnlyDir } from '../user-data.js';
import type { PolicyStore } from './policy-store.js';

/** The file tools that write: a rule must cover both to be held by the sandbox. */
export const FILE_WRITE_TOOLS: readonly string[] = ['write_file', 'edit_file'];

/** A rule that a file tool's call could match: no matcher of run_command's, and a tool that writes. */
function reachesFileTools(rule: PolicyRule): boolean {
  if (rule.command !== undefined || rule.argv_prefix !== undefined || rule.args_include !== undefined) return false;
  if (rule.targets_workspace_root !== undefined) return false;
  return rule.tools === undefined || rule.tools.some((tool) => FILE_WRITE_TOOLS.includes(tool));
}

/** A rule that stops every write to its paths, whichever file tool makes it. */
function deniesAllWrites(rule: PolicyRule): boolean {
  return (
    reachesFileTools(rule) &&
    rule.paths !== undefined &&
    (rule.tools === undefined || FILE_WRITE_TOOLS.every((tool) => rule.tools?.includes(tool)))
  );
}

/** The path a glob names under `root`, when srt can bind it as one; undefined otherwise. */
function bindablePath(root: string, glob: string): string | undefined {
  const scanned = picomatch.scan(glob);
  if (scanned.negated) return undefined;
  let path: string;
  if (!scanned.isGlob) path = glob;
  else if (scanned.glob === '**' && scanned.base !== '') path = scanned.base;
  else return undefined;
  const absolute = resolve(root, path);
  const inside = relative(root, absolute);
  // The root itself (`.`) is no file to write; denying it would deny the whole workspace.
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return undefined;
  return absolute;
}

/**
 * The absolute paths to write-deny in the sidecar's sandbox for these workspace roots, from the
 * rules that apply to each (`listingFor`, the host's PolicyStore.listing). When the rules cannot
 * be read, each root itself: the host then denies every call, and the sandbox every file write.
 */
export function fileToolWriteDenies(listingFor: (root: string) => PolicyListing, roots: readonly string[]): string[] {
  const denies = new Set<string>();
  for (const root of roots) {
    let listing: PolicyListing;
    try {
      listing = listingFor(root);
    } catch {
      denies.add(root);
      continue;
    }
    const layers = [listing.project?.rules ?? [], listing.global, listing.builtin];
    // The first layer with a rule a file tool could match decides a `deny`; a hard-deny holds anywhere.
    const deciding = layers.findIndex((rules) => rules.some(reachesFileTools));
    layers.forEach((rules, index) => {
      for (const rule of rules) {
        const held = rule.decision === 'hard-deny' || (rule.decision === 'deny' && index === deciding);
        if (!held || !deniesAllWrites(rule)) continue;
        for (const glob of rule.paths ?? []) {
          const path = bindablePath(root, glob);
          if (path !== undefined) denies.add(path);
        }
      }
    });
  }
  return [...denies].sort();
}

/**
 * Everything inside its write roots the sidecar's sandbox write-denies for the host: userData's
 * `host/` (policy.json) and the file-tool denies of the rules for `roots`.
 */
export function sidecarWriteDenies(userData: string, policy: PolicyStore, roots: readonly string[]): string[] {
  return [hostOnlyDir(userData), ...fileToolWriteDenies((root) => policy.listing(root), roots)];
}
