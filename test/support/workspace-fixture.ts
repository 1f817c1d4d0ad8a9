/**
 * Test support for containment tests: a workspace and, beside it, a folder holding a canary the
 * workspace must never reach. No dependency on any package (the daemon's tests use it too).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Under `base`: the workspace `ws` holding `files` (relative path → text; folders made, and
 * `ws/src` always), and `outside/secret.txt` holding `secret`.
 */
export function workspaceWithOutside(
  base: string,
  files: Record<string, string>,
  secret: string,
): { root: string; outside: string } {
  const root = join(base, 'ws');
  const outside = join(base, 'outside');
  mkdirSync(join(root, 'src'), { recursive: true });
  mkdirSync(outside);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  writeFileSync(join(outside, 'secret.txt'), secret);
  return { root, outside };
}
