/**
 * Issue 21 (start-up), SEC-004: runs a process's entry bundle with V8's code cache. Node 20 has no
 * code cache for ES modules (`module.enableCompileCache` came in Node 22), so the build
 * (scripts/bundle-entries.mjs) writes each bundle file as a CommonJS-shaped script (`<name>.cjs`,
 * its chunks under `chunks/`), and this loader compiles each with `vm.Script`, handing V8 the
 * cached data the build made beside it (`<name>.cjs.v8cache`). V8 then skips parsing and compiling
 * what the cache holds; where it refuses the data (another Node or V8 flags) the script compiles
 * from source as without one.
 *
 * A cache is bytecode the process runs instead of its source, so one is used only when it is
 * exactly the build's for this very source and no one but the install's owner could have written
 * it: a regular file (not a link), owned by the owner of the script beside it, writable by no group
 * or other user, and opening with the SHA-256 of the script's source. Anything else is ignored
 * (never deleted or rewritten): the script runs from its source. Caches are only ever written by
 * the build, next to the bundle, in Bastion's own install; nothing at run time writes one, and the
 * host's and the sidecar's are separate files (the sidecar's sandbox cannot write either: it
 * writes only userData, the granted workspaces and its private temp dir).
 *
 * What it does not catch: an install inside a granted workspace or userData (its bundles, not
 * only their caches, are then writable from inside the sandbox); whoever can write the install
 * itself.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';

/** A bundle script's code cache is the script's path with this suffix. */
export const CODE_CACHE_SUFFIX = '.v8cache';
/** Opens every code cache, before the source's SHA-256 and V8's data. */
const CODE_CACHE_MAGIC = Buffer.from('BXV8CC1\n');
const SHA256_BYTES = 32;

/**
 * The function each script's source is compiled into: CommonJS's parameters, plus the value the
 * build put in place of `import.meta.url` (the script's own file URL).
 */
const WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname, __bastionImportMetaUrl) {';
const WRAPPER_TAIL = '\n})';

export type CodeCacheOutcome = 'used' | 'absent' | 'refused' | 'rejected-by-v8';

export interface LoadedScript {
  file: string;
  /** What became of the script's code cache: used, none there, refused by the checks above, or refused by V8. */
  cache: CodeCacheOutcome;
}

export interface BundleRun {
  /** The scripts loaded so far, in the order they were first required. */
  readonly scripts: readonly LoadedScript[];
  /** The build's step: write each loaded script's code cache beside it (what V8 has compiled of it by now). */
  writeCodeCaches(): void;
}

type ScriptModule = { exports: unknown };

function sha256(source: string): Buffer {
  return createHash('sha256').update(source).digest();
}

/** The V8 data of `file`'s cache when every check above holds (`digest`: its source's SHA-256), else why not. */
function readCodeCache(file: string, digest: Buffer): { data: Buffer } | { outcome: 'absent' | 'refused' } {
  const path = file + CODE_CACHE_SUFFIX;
  const cache = lstatSync(path, { throwIfNoEntry: false });
  if (cache === undefined) return { outcome: 'absent' };
  if (!cache.isFile() || cache.uid !== statSync(file).uid || (cache.mode & 0o022) !== 0) return { outcome: 'refused' };
  const bytes = readFileSync(path);
  const head = CODE_CACHE_MAGIC.length + SHA256_BYTES;
  if (
    bytes.length <= head ||
    !bytes.subarray(0, CODE_CACHE_MAGIC.length).equals(CODE_CACHE_MAGIC) ||
    !bytes.subarray(CODE_CACHE_MAGIC.length, head).equals(digest)
  )
    return { outcome: 'refused' };
  return { data: bytes.subarray(head) };
}

/**
 * Run the bundle script `entry` (an absolute path), loading the chunks it requires (relative ids)
 * the same way and everything else (Node's modules, packages left in node_modules) through Node's
 * own `require` from the script's place.
 */
export function runBundle(entry: string): BundleRun {
  const modules = new Map<string, ScriptModule>();
  const scripts: LoadedScript[] = [];
  // Each script's source's SHA-256, not the source: the script keeps its own copy of it.
  const compiled: { file: string; digest: Buffer; script: vm.Script }[] = [];

  const load = (file: string): unknown => {
    const known = modules.get(file);
    if (known) return known.exports;
    const module: ScriptModule = { exports: {} };
    modules.set(file, module);
    const source = readFileSync(file, 'utf8');
    const digest = sha256(source);
    const cache = readCodeCache(file, digest);
    const script = new vm.Script(WRAPPER_HEAD + source + WRAPPER_TAIL, {
      filename: file,
      cachedData: 'data' in cache ? cache.data : undefined,
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    const outcome: CodeCacheOutcome =
      'outcome' in cache ? cache.outcome : script.cachedDataRejected === true ? 'rejected-by-v8' : 'used';
    scripts.push({ file, cache: outcome });
    compiled.push({ file, digest, script });
    const nodeRequire = createRequire(file);
    const requireFromScript = (id: string): unknown =>
      id.startsWith('./') || id.startsWith('../') ? load(resolve(dirname(file), id)) : nodeRequire(id);
    const run = script.runInThisContext() as (...args: unknown[]) => void;
    run(module.exports, requireFromScript, module, file, dirname(file), pathToFileURL(file).href);
    return module.exports;
  };

  load(resolve(entry));
  return {
    scripts,
    writeCodeCaches() {
      for (const { file, digest, script } of compiled) {
        writeFileSync(file + CODE_CACHE_SUFFIX, Buffer.concat([CODE_CACHE_MAGIC, digest, script.createCachedData()]), {
          mode: 0o644,
        });
      }
    },
  };
}
