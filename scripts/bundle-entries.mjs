/**
 * Bundles each process's entry with esbuild, after `tsc -b` (run by `npm run build`):
 *
 * - the sidecar: packages/daemon/src/main.ts → packages/daemon/dist/main.js
 * - the CLI and the host it starts: packages/cli/src/main.ts → packages/cli/dist/main.js
 *
 * Both replace tsc's output of the same entry, so everything that starts these files (the bin,
 * `npm start`, the host's `resolveDaemonEntry`, the tests) runs the bundle; the rest of tsc's
 * output stays for the modules the tests import. Node resolves and compiles one file instead of
 * hundreds, which is most of a cold start's module loading. Modules reached only through
 * `import()` (providers, the HTTP client) become chunks under dist/chunks/, loaded on first use.
 *
 * Issue 21: each file of a bundle is then rewritten as a CommonJS-shaped script (`main.cjs`,
 * `chunks/*.cjs`; imports become `require` of the chunk, `import()` a `require` on first use,
 * `import.meta.url` the script's own URL), and `dist/main.js` is a small entry that runs them
 * through packages/cli/src/bundle-loader.ts with V8's code cache, which Node 20 offers scripts but not ES modules.
 * The caches are made here, once per build: each entry is run the way a start begins (the CLI as
 * `bastion start --help`, the sidecar with its own V8 options and no host on its stdin, so it
 * loads everything a start loads and exits), and what V8 compiled by then is written beside each
 * script it loaded.
 *
 * Kept outside the bundles, loaded from node_modules as before: better-sqlite3 (a native addon
 * found relative to its own files; the sidecar's store and the host's home lock) and srt (it finds its vendored seccomp binaries relative to
 * its own module, and `patches/` is applied to its installed files).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transform } from 'esbuild';
import { SIDECAR_NODE_OPTIONS } from '../packages/host/dist/supervisor/sidecar-launcher.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * zod re-exports every one of its 64 locales as a namespace (`z.locales`, `core.locales`), so each
 * bundle carried all of them (360 KB of source, parsed at every start) though only English, zod's
 * default, is ever used. The namespace these bundles get holds English alone.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, ({ importer }) =>
      /[\\/]zod[\\/]v4[\\/](classic[\\/]external|core[\\/]index)\.js$/.test(importer)
        ? { path: join(dirname(importer), '..', 'locales', 'en.js'), namespace: 'zod-english-only' }
        : undefined,
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, ({ path }) => ({
      contents: `export { default as en } from ${JSON.stringify(path)};`,
      resolveDir: dirname(path),
    }));
  },
};

const ENTRIES = [
  { pkg: 'daemon', external: ['better-sqlite3'], prime: { nodeOptions: SIDECAR_NODE_OPTIONS, args: [] } },
  {
    pkg: 'cli',
    external: ['@anthropic-ai/sandbox-runtime', 'better-sqlite3'],
    prime: { nodeOptions: [], args: ['start', '--help'] },
  },
];

/** One output file of the ES module build as the script bundle-loader.ts runs. */
async function asScript(text) {
  const { code } = await transform(text.replace(/^#!.*\n/, ''), {
    format: 'cjs',
    loader: 'js',
    platform: 'node',
    target: 'node20',
    // `import()` of a chunk becomes a `require` of it when first reached, so it is loaded (and
    // cached) like any other script.
    supported: { 'dynamic-import': false },
    define: { 'import.meta.url': '__bastionImportMetaUrl' },
    logLevel: 'warning',
  });
  return asciiOnly(code.replace(/require\("(\.{1,2}\/[^"]+)\.js"\)/g, 'require("$1.cjs")'));
}

/**
 * esbuild writes every non-ASCII character escaped, except in the comments it keeps; one left
 * there makes V8 hold the whole script's source two bytes a character (the CLI's 1 MB script cost
 * 2 MB of the host's heap for four em dashes). Escaped, a comment only reads differently: nothing
 * else can hold one by then.
 */
function asciiOnly(code) {
  return code.replace(/[\u0080-\uffff]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Run the entry as a start begins, in a process with the options it runs with, and write the code
 * caches of the scripts it loaded. Its own output is not wanted; its exit code is its own
 * (`--help` exits 0, the sidecar without a host exits as its channel closes).
 */
function primeCodeCaches(outdir, { nodeOptions, args }) {
  const loader = join(root, 'packages', 'cli', 'dist', 'bundle-loader.js');
  const program = `
    import { runBundle } from ${JSON.stringify(loader)};
    process.argv.splice(1, Infinity, ${JSON.stringify(join(outdir, 'main.js'))}, ...${JSON.stringify(args)});
    const run = runBundle(${JSON.stringify(join(outdir, 'main.cjs'))});
    process.on('exit', () => run.writeCodeCaches());
  `;
  const result = spawnSync(process.execPath, [...nodeOptions, '--input-type=module', '-e', program], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (result.error) throw result.error;
}

for (const { pkg, external, prime } of ENTRIES) {
  const outdir = join(root, 'packages', pkg, 'dist');
  rmSync(join(outdir, 'chunks'), { recursive: true, force: true });
  rmSync(join(outdir, 'main.js.map'), { force: true });
  const { outputFiles, metafile } = await build({
    absWorkingDir: root,
    entryPoints: { main: join('packages', pkg, 'src', 'main.ts') },
    outdir,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external,
    plugins: [zodEnglishOnly],
    write: false,
    metafile: true,
    logLevel: 'warning',
  });
  // The source files each script holds (the conversion drops esbuild's `// <path>` markers), for
  // test/build/entry-bundles.test.ts: which packages a start loads.
  const inputs = {};
  for (const [path, output] of Object.entries(metafile.outputs)) {
    if (path.endsWith('.js'))
      inputs[relative(outdir, join(root, path)).replace(/\.js$/, '.cjs')] = Object.keys(output.inputs);
  }
  writeFileSync(join(outdir, 'bundle-inputs.json'), `${JSON.stringify(inputs, null, 1)}\n`);
  for (const file of outputFiles) {
    const path = file.path.replace(/\.js$/, '.cjs');
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, await asScript(file.text));
  }
  await build({
    absWorkingDir: root,
    stdin: {
      contents: [
        '#!/usr/bin/env node',
        "import { fileURLToPath } from 'node:url';",
        `import { runBundle } from ${JSON.stringify(join(root, 'packages', 'cli', 'dist', 'bundle-loader.js'))};`,
        "runBundle(fileURLToPath(new URL('./main.cjs', import.meta.url)));",
      ].join('\n'),
      resolveDir: outdir,
      sourcefile: 'main-entry.js',
    },
    outfile: join(outdir, 'main.js'),
    allowOverwrite: true,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  primeCodeCaches(outdir, prime);
}
