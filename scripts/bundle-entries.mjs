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
 * Kept outside the bundles, loaded from node_modules as before: better-sqlite3 (a native addon
 * found relative to its own files; the sidecar's store and the host's home lock) and srt (it finds its vendored seccomp binaries relative to
 * its own module, and `patches/` is applied to its installed files).
 */
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** CommonJS dependencies call `require`; an ESM bundle has none unless it makes one. */
const REQUIRE_SHIM =
  "import { createRequire as __bastionCreateRequire } from 'node:module'; const require = __bastionCreateRequire(import.meta.url);";

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
  { pkg: 'daemon', external: ['better-sqlite3'] },
  { pkg: 'cli', external: ['@anthropic-ai/sandbox-runtime', 'better-sqlite3'] },
];

for (const { pkg, external } of ENTRIES) {
  const outdir = join(root, 'packages', pkg, 'dist');
  rmSync(join(outdir, 'chunks'), { recursive: true, force: true });
  await build({
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
    banner: { js: REQUIRE_SHIM },
    sourcemap: true,
    plugins: [zodEnglishOnly],
    logLevel: 'warning',
  });
}
