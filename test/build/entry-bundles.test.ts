/**
 * Issue 21: each process's entry is an esbuild bundle (scripts/bundle-entries.mjs), and what a
 * start does not need is a chunk loaded by `import()` on first use. This reads the built bundles
 * and follows their static imports: a new static import that pulls a provider SDK, the AI SDK
 * or undici back into a start fails here.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PACKAGES = fileURLToPath(new URL('../../packages/', import.meta.url));

const STATIC_IMPORT = /^import\s+(?:[\w$*\s{},]+?\s+from\s+)?"(\.{1,2}\/[^"]+)"/gm;
const DYNAMIC_IMPORT = /\bimport\("(\.{1,2}\/[^"]+)"\)/g;

/**
 * The bundle's files an entry loads: itself and the chunks it imports statically, transitively
 * (what runs before the entry's first line), and with `dynamic` also those `import()` reaches.
 */
function reachable(entry: string, dynamic: boolean): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    const imports = [...text.matchAll(STATIC_IMPORT), ...(dynamic ? text.matchAll(DYNAMIC_IMPORT) : [])];
    for (const match of imports) visit(join(dirname(file), match[1] as string));
  };
  visit(entry);
  return [...seen];
}

/** The npm packages bundled into these files, by esbuild's `// node_modules/<package>/…` markers. */
function bundledPackages(files: readonly string[]): Set<string> {
  const packages = new Set<string>();
  for (const file of files) {
    for (const match of readFileSync(file, 'utf8').matchAll(/^\/\/ node_modules\/((?:@[^/\s]+\/)?[^/\s]+)\//gm)) {
      packages.add(match[1] as string);
    }
  }
  return packages;
}

const LAZY_IN_SIDECAR = ['ai', '@ai-sdk/openai', '@ai-sdk/anthropic', '@ai-sdk/openai-compatible', '@ai-sdk/gateway'];

describe('entry bundles', () => {
  const sidecar = join(PACKAGES, 'daemon', 'dist', 'main.js');
  const cli = join(PACKAGES, 'cli', 'dist', 'main.js');

  it('the sidecar starts with hono and zod bundled and without the AI SDK or any provider SDK, which its chunks hold', () => {
    const atStart = bundledPackages(reachable(sidecar, false));
    expect(atStart.has('hono')).toBe(true);
    expect(atStart.has('zod')).toBe(true);
    expect(LAZY_IN_SIDECAR.filter((name) => atStart.has(name))).toEqual([]);
    const loadable = bundledPackages(reachable(sidecar, true));
    expect(LAZY_IN_SIDECAR.filter((name) => !loadable.has(name))).toEqual([]);
  });

  /** The CLI's start: its entry, the command line and host it imports at once (main.ts), and their static imports. */
  const cliAtStart = () => {
    const chunk = /\bimport\("(\.\/chunks\/cli-[^"]+)"\)/.exec(readFileSync(cli, 'utf8'))?.[1];
    if (chunk === undefined) throw new Error('the CLI entry imports no cli chunk');
    return [...reachable(cli, false), ...reachable(join(dirname(cli), chunk), false)];
  };

  it('the CLI entry holds no package; before it imports the command line and host it loads only the host-start prelude (srt and the temp root, no zod, not the host)', () => {
    const entry = reachable(cli, false);
    expect([...bundledPackages(entry)]).toEqual([]);
    const entryText = entry.map((file) => readFileSync(file, 'utf8')).join('\n');
    expect(entryText).not.toContain('// packages/host/dist/bastion-host.js');
    const main = readFileSync(cli, 'utf8');
    const preludeChunk = /\bimport\("(\.\/chunks\/host-start-prelude-[^"]+)"\)/.exec(main)?.[1];
    if (preludeChunk === undefined) throw new Error('the CLI entry imports no host-start prelude chunk');
    const prelude = reachable(join(dirname(cli), preludeChunk), false);
    expect([...bundledPackages(prelude)]).toEqual([]);
    const preludeText = prelude.map((file) => readFileSync(file, 'utf8')).join('\n');
    expect(preludeText).toContain('// packages/host/dist/sandbox/srt-session.js');
    expect(preludeText).toContain('// packages/host/dist/sandbox/host-temp-root.js');
    expect(preludeText).not.toContain('// packages/host/dist/bastion-host.js');
    expect(main).toMatch(/beginProcessHostStart\([\s\S]*await import\("\.\/chunks\/cli-/);
  });

  it('the CLI (and the host it carries) starts without undici, which a chunk holds', () => {
    const atStart = bundledPackages(cliAtStart());
    expect(atStart.has('zod')).toBe(true);
    expect(atStart.has('undici')).toBe(false);
    expect(bundledPackages(reachable(cli, true)).has('undici')).toBe(true);
  });

  it("no bundle carries zod's locales but English (zod's default; the namespace re-exports the rest)", () => {
    const files = [...reachable(sidecar, true), ...reachable(cli, true)];
    const locales = new Set(
      files.flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/^\/\/ node_modules\/zod\/v4\/locales\/(\S+)$/gm)].map((m) => m[1]),
      ),
    );
    expect([...locales]).toEqual(['en.js']);
  });

  it('leaves srt and better-sqlite3 to node_modules (srt finds its seccomp binaries and carries patches/ there)', () => {
    const cliFiles = reachable(cli, true);
    const cliText = cliFiles.map((file) => readFileSync(file, 'utf8')).join('\n');
    expect(cliText).toMatch(/^import .* from "@anthropic-ai\/sandbox-runtime";$/m);
    expect(bundledPackages(cliFiles).has('@anthropic-ai/sandbox-runtime')).toBe(false);
    expect(readFileSync(sidecar, 'utf8')).toMatch(/from "better-sqlite3";$/m);
    expect(cliText).toMatch(/from "better-sqlite3";$/m);
  });
});
