/**
 * Issue 21, SEC-004: bundle-loader.ts runs a bundle's scripts with the V8 code cache beside each
 * only when the cache is the build's for exactly that source and only the install's owner could
 * have written it. Each case runs the loader in a fresh Node process (V8 keeps compiled scripts
 * for the life of a process, so a cache is only ever consumed by a new one, as at a start).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { makeTempDir } from '@bastion/test-support';
import { CODE_CACHE_SUFFIX } from '../src/bundle-loader.js';

const LOADER = fileURLToPath(new URL('../dist/bundle-loader.js', import.meta.url));

interface Run {
  scripts: { file: string; cache: string }[];
  value: unknown;
}

/** Run `entry` through the loader in a new process (with `nodeOptions`); `write`: then write its caches. */
function run(entry: string, { write = false, nodeOptions = [] as string[] } = {}): Run {
  const program = `
    import { runBundle } from ${JSON.stringify(LOADER)};
    const run = runBundle(${JSON.stringify(entry)});
    if (${write}) run.writeCodeCaches();
    console.log(JSON.stringify({ scripts: run.scripts, value: globalThis.bundleLoaderProbe }));`;
  const result = spawnSync(process.execPath, [...nodeOptions, '--input-type=module', '-e', program], {
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout) as Run;
}

/** An entry script that requires one chunk; the chunk's source says `version`. */
function makeBundle(version: string): { entry: string; chunk: string } {
  const dir = makeTempDir('bastion-bundle-loader-');
  const entry = join(dir, 'main.cjs');
  const chunk = join(dir, 'chunk.cjs');
  writeFileSync(entry, 'const { version } = require("./chunk.cjs");\nglobalThis.bundleLoaderProbe = version();\n');
  writeFileSync(chunk, `exports.version = function version() { return ${JSON.stringify(version)}; };\n`);
  return { entry, chunk };
}

const outcomes = (result: Run) => result.scripts.map((script) => script.cache);

it("uses the build's cache of the entry and of the chunk it requires, and runs them", () => {
  const { entry } = makeBundle('v1');
  expect(outcomes(run(entry, { write: true }))).toEqual(['absent', 'absent']);
  const cached = run(entry);
  expect(outcomes(cached)).toEqual(['used', 'used']);
  expect(cached.value).toBe('v1');
});

it('refuses a cache made for another source of the same length, and runs the source as it is now', () => {
  const { entry, chunk } = makeBundle('v1');
  run(entry, { write: true });
  // V8 itself checks only the source's length: the same length with other bytes would pass it.
  writeFileSync(chunk, readFileSync(chunk, 'utf8').replace('"v1"', '"v2"'));
  const changed = run(entry);
  expect(outcomes(changed)).toEqual(['used', 'refused']);
  expect(changed.value).toBe('v2');
});

it('refuses a cache that its group or other users may write', () => {
  const { entry, chunk } = makeBundle('v1');
  run(entry, { write: true });
  chmodSync(chunk + CODE_CACHE_SUFFIX, 0o666);
  chmodSync(entry + CODE_CACHE_SUFFIX, 0o620);
  expect(outcomes(run(entry))).toEqual(['refused', 'refused']);
});

it('refuses a cache that is a symbolic link, even to a valid cache', () => {
  const { entry, chunk } = makeBundle('v1');
  run(entry, { write: true });
  renameSync(chunk + CODE_CACHE_SUFFIX, `${chunk}.elsewhere`);
  symlinkSync(`${chunk}.elsewhere`, chunk + CODE_CACHE_SUFFIX);
  expect(outcomes(run(entry))).toEqual(['used', 'refused']);
});

it('refuses a cache that does not open with the source hash (a bare V8 cache)', () => {
  const { entry, chunk } = makeBundle('v1');
  run(entry, { write: true });
  const cache = readFileSync(chunk + CODE_CACHE_SUFFIX);
  writeFileSync(chunk + CODE_CACHE_SUFFIX, cache.subarray(40));
  expect(outcomes(run(entry))).toEqual(['used', 'refused']);
});

it('runs from source when V8 rejects a cache made under other V8 options', () => {
  const { entry } = makeBundle('v1');
  run(entry, { write: true, nodeOptions: ['--max-semi-space-size=8'] });
  const other = run(entry);
  expect(outcomes(other)).toEqual(['rejected-by-v8', 'rejected-by-v8']);
  expect(other.value).toBe('v1');
});
