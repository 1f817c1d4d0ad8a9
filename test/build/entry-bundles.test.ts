/**
 * Issue 21: each process's entry is an esbuild bundle (scripts/bundle-entries.mjs), run as
 * CommonJS-shaped scripts with V8's code cache (`main.cjs`, `chunks/*.cjs`), and what a start does
 * not need is a chunk required on first use (what was an `import()`). This reads the built
 * scripts and follows their top-level requires of chunks: a new static import that pulls a
 * provider SDK, the AI SDK or undici back into a start fails here. Which packages a script holds
 * comes from the build's record of its inputs (bundle-inputs.json).
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CODE_CACHE_SUFFIX } from 'bastion/dist/bundle-loader.js';

const PACKAGES = fileURLToPath(new URL('../../packages/', import.meta.url));

/** A chunk required at the top level (a static import before the conversion). */
const STATIC_IMPORT = /^(?:var [\w$]+ = )?require\("(\.{1,2}\/[^"]+)"\);$/gm;
/** A chunk required when first reached (an `import()` before the conversion). */
const DYNAMIC_IMPORT = /\(\) => __toESM\(require\("(\.{1,2}\/[^"]+)"\)\)/g;

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

/** The source files bundled into one script, as the build recorded them (bundle-inputs.json beside `main.cjs`). */
function inputsOf(file: string): string[] {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    let record: Record<string, string[]>;
    try {
      record = JSON.parse(readFileSync(join(dir, 'bundle-inputs.json'), 'utf8')) as Record<string, string[]>;
    } catch {
      continue;
    }
    const inputs = record[relative(dir, file)];
    if (inputs === undefined) throw new Error(`bundle-inputs.json has no record of ${file}`);
    return inputs;
  }
  throw new Error(`no bundle-inputs.json above ${file}`);
}

/** The npm packages bundled into these files. */
function bundledPackages(files: readonly string[]): Set<string> {
  const packages = new Set<string>();
  for (const input of files.flatMap(inputsOf)) {
    const match = /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) packages.add(match[1] as string);
  }
  return packages;
}

const LAZY_IN_SIDECAR = ['ai', '@ai-sdk/openai', '@ai-sdk/anthropic', '@ai-sdk/openai-compatible', '@ai-sdk/gateway'];

describe('entry bundles', () => {
  const sidecar = join(PACKAGES, 'daemon', 'dist', 'main.cjs');
  const cli = join(PACKAGES, 'cli', 'dist', 'main.cjs');

  it('each entry (dist/main.js) runs its bundle (main.cjs) through the code-cache loader, and the build made the caches', () => {
    for (const script of [sidecar, cli]) {
      const entry = readFileSync(join(dirname(script), 'main.js'), 'utf8');
      expect(entry).toContain('runBundle(');
      expect(entry).toContain('new URL("./main.cjs", import.meta.url)');
      for (const file of reachable(script, false)) expect(statSync(file + CODE_CACHE_SUFFIX).isFile()).toBe(true);
    }
  });

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
    const chunk = /__toESM\(require\("(\.\/chunks\/cli-[^"]+)"\)\)/.exec(readFileSync(cli, 'utf8'))?.[1];
    if (chunk === undefined) throw new Error('the CLI entry imports no cli chunk');
    return [...reachable(cli, false), ...reachable(join(dirname(cli), chunk), false)];
  };

  it('the CLI entry holds no package; before it imports the command line and host it loads only the host-start prelude (srt and the temp root, no zod, not the host)', () => {
    const entry = reachable(cli, false);
    expect([...bundledPackages(entry)]).toEqual([]);
    expect(entry.flatMap(inputsOf)).not.toContain('packages/host/dist/bastion-host.js');
    const main = readFileSync(cli, 'utf8');
    const preludeChunk = /__toESM\(require\("(\.\/chunks\/host-start-prelude-[^"]+)"\)\)/.exec(main)?.[1];
    if (preludeChunk === undefined) throw new Error('the CLI entry imports no host-start prelude chunk');
    const prelude = reachable(join(dirname(cli), preludeChunk), false);
    expect([...bundledPackages(prelude)]).toEqual([]);
    const preludeInputs = prelude.flatMap(inputsOf);
    expect(preludeInputs).toContain('packages/host/dist/sandbox/srt-session.js');
    expect(preludeInputs).toContain('packages/host/dist/sandbox/host-temp-root.js');
    expect(preludeInputs).not.toContain('packages/host/dist/bastion-host.js');
    expect(main).toMatch(/beginProcessHostStart\([\s\S]*require\("\.\/chunks\/cli-/);
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
      files.flatMap(inputsOf).flatMap((input) => /^node_modules\/zod\/v4\/locales\/(\S+)$/.exec(input)?.[1] ?? []),
    );
    expect([...locales]).toEqual(['en.js']);
  });

  it('every script of both bundles is ASCII, so V8 holds its source one byte a character', () => {
    const files = [...reachable(sidecar, true), ...reachable(cli, true)];
    expect(files.length).toBeGreaterThan(4);
    const withOther = files.filter((file) => /\P{ASCII}/u.test(readFileSync(file, 'utf8')));
    expect(withOther.map((file) => relative(PACKAGES, file))).toEqual([]);
  });

  it('leaves srt and better-sqlite3 to node_modules (srt finds its seccomp binaries and carries patches/ there)', () => {
    const cliFiles = reachable(cli, true);
    const cliText = cliFiles.map((file) => readFileSync(file, 'utf8')).join('\n');
    expect(cliText).toMatch(/^var [\w$]+ = require\("@anthropic-ai\/sandbox-runtime"\);$/m);
    expect(bundledPackages(cliFiles).has('@anthropic-ai/sandbox-runtime')).toBe(false);
    expect(readFileSync(sidecar, 'utf8')).toMatch(/require\("better-sqlite3"\)\);$/m);
    expect(cliText).toMatch(/require\("better-sqlite3"\)\);$/m);
  });
});
