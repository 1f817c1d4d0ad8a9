/**
 * SECURITY.md is one hop from each control: every module and test it names by repository path
 * exists (a `*` in a name must match at least one file), and it points at nothing outside the
 * repository. A renamed or deleted file fails here instead of leaving a dead row.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SECURITY = readFileSync(join(ROOT, 'SECURITY.md'), 'utf8');

/** Backticked names that start at a top-level folder of the repository. */
const NAMED_PATHS = [
  ...new Set([...SECURITY.matchAll(/`((?:packages|test|bench|scripts)\/[^`\s]+)`/g)].map((match) => match[1] ?? '')),
];

/** The files and folders a repository path names; `*` matches within one path segment. */
function matches(path: string): string[] {
  let found = [ROOT];
  for (const segment of path.split('/')) {
    if (!segment.includes('*')) {
      found = found.map((dir) => join(dir, segment)).filter((candidate) => existsSync(candidate));
      continue;
    }
    const pattern = new RegExp(`^${segment.split('*').map(escapeRegExp).join('[^/]*')}$`);
    found = found.flatMap((dir) =>
      statSync(dir).isDirectory()
        ? readdirSync(dir)
            .filter((entry) => pattern.test(entry))
            .map((entry) => join(dir, entry))
        : [],
    );
  }
  return found;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

describe('SECURITY.md names files that exist', () => {
  it('names modules and tests by repository path', () => {
    expect(NAMED_PATHS.length).toBeGreaterThan(100);
  });

  it('every path it names resolves to a file or folder of the repository', () => {
    expect(NAMED_PATHS.filter((path) => matches(path).length === 0)).toEqual([]);
  });

  it('links nothing outside the repository: every link is an anchor or a file in it', () => {
    const targets = [...SECURITY.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] ?? '');
    const outside = targets.filter(
      (target) =>
        !target.startsWith('#') &&
        (/^[a-z]+:|^\/|(^|\/)\.\.\//.test(target) || !existsSync(join(ROOT, target.split('#')[0] ?? ''))),
    );
    expect(outside).toEqual([]);
    expect(SECURITY).not.toMatch(/\.\.\/shared\//);
  });
});
