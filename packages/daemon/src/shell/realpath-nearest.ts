/**
 * Containment by realpath, never by string prefix. A path that does not exist yet resolves
 * through its nearest existing ancestor, so a symlink anywhere above it is followed exactly as
 * the kernel would follow it when the command later creates the file.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';

/**
 * Realpath of `path` (absolute, not normalized: `..` after a symlink must be resolved by the
 * kernel, not lexically: hence realpath(3), not Node's JS realpath), or of its nearest existing ancestor with the missing tail appended.
 */
export function realpathNearest(path: string): string {
  const tail: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(realpathSync.native(current), ...tail.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return join(current, ...tail.reverse());
      tail.push(basename(current));
      current = parent;
    }
  }
}

/** True when `child` is `parent` or below it; both must already be realpaths. */
export function isInsideRoot(child: string, parent: string): boolean {
  if (child === parent) return true;
  const prefix = parent.endsWith(sep) ? parent : `${parent}${sep}`;
  return child.startsWith(prefix);
}
