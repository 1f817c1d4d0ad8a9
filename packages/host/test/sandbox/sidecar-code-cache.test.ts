/**
 * SEC-004, issue 21: the V8 code caches the host and the sidecar run (bundle-loader.ts, made by
 * the build beside each bundle) cannot be written from inside the sidecar's sandbox. A misbehaving
 * sidecar fixture, started through the same srt launcher and policy as the real sidecar (real
 * bubblewrap), tries to overwrite the host's cache of its command line and host, to plant a cache
 * for the prelude chunk that has none, to move the CLI's chunks aside and to overwrite its own
 * cache: each is refused and every cache still holds its bytes. A control run of the fixture
 * without the sandbox does the same writes on a copy, so the fixture can tell success from refusal.
 */
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { CODE_CACHE_SUFFIX } from 'bastion/dist/bundle-loader.js';
import { describeAttack } from '../../../../test/support/attack.js';
import { checkSandboxPolicy } from '../../src/sandbox/sandbox-policy-check.js';
import { plainLauncher } from '../../src/supervisor/sidecar-launcher.js';
import { ensureUserData } from '../../src/user-data.js';
import { probeSandboxPerFile, runSandboxProbe } from '../support/sandbox-probe.js';
import { makeTempDir } from '@bastion/test-support';

const FIXTURE = fileURLToPath(new URL('./fixtures/misbehaving-sidecar.mjs', import.meta.url));
const PACKAGES = fileURLToPath(new URL('../../../', import.meta.url));

type Results = Record<string, { ok: boolean; detail: string }>;

/** The built CLI's and sidecar's dist directories (or copies of them), and the scripts in them. */
function builtCaches(cliDist: string, daemonDist: string) {
  const chunk = (prefix: string) => {
    const name = readdirSync(join(cliDist, 'chunks')).find((file) => file.startsWith(prefix) && file.endsWith('.cjs'));
    if (name === undefined) throw new Error(`no ${prefix} chunk in ${cliDist}`);
    return join(cliDist, 'chunks', name);
  };
  return {
    hostCache: chunk('cli-') + CODE_CACHE_SUFFIX,
    preludeCache: chunk('host-start-prelude-') + CODE_CACHE_SUFFIX,
    cliChunks: join(cliDist, 'chunks'),
    sidecarCache: join(daemonDist, 'main.cjs') + CODE_CACHE_SUFFIX,
  };
}

function attempts(caches: ReturnType<typeof builtCaches>, moved: string) {
  return {
    host_cache_overwrite: { op: 'overwrite', path: caches.hostCache },
    prelude_cache_plant: { op: 'create', path: caches.preludeCache },
    cli_chunks_rename: { op: 'rename', path: caches.cliChunks, to: moved },
    sidecar_cache_overwrite: { op: 'overwrite', path: caches.sidecarCache },
  };
}

const sandbox = probeSandboxPerFile();

describeAttack('policy-bypass', "a misbehaving sidecar cannot write the host's or its own code caches", () => {
  const caches = builtCaches(join(PACKAGES, 'cli', 'dist'), join(PACKAGES, 'daemon', 'dist'));
  const moved = join(PACKAGES, 'cli', 'dist', 'chunks-moved');
  let before: { host: Buffer; sidecar: Buffer };
  let results: Results;

  beforeAll(async () => {
    before = { host: readFileSync(caches.hostCache), sidecar: readFileSync(caches.sidecarCache) };
    const root = makeTempDir('bastion-code-cache-');
    const layout = { home: join(root, 'home'), userData: join(root, 'user-data'), workspace: join(root, 'workspace') };
    ensureUserData(layout.userData);
    mkdirSync(layout.workspace);
    mkdirSync(layout.home);
    const lists = { hostDenies: [join(layout.userData, 'host')] };
    expect(checkSandboxPolicy(sandbox.policy(layout, lists), layout.home)).toEqual({ ok: true });
    const launcher = sandbox.launcher(layout, lists);
    ({ result: results } = await runSandboxProbe<Results>(launcher, FIXTURE, attempts(caches, moved)));
  });

  it("cannot overwrite the host's cache of its command line and host: it still holds the build's bytes", () => {
    expect(results.host_cache_overwrite?.ok).toBe(false);
    expect(readFileSync(caches.hostCache).equals(before.host)).toBe(true);
  });

  it('cannot plant a cache for a script that has none, nor move the chunks and their caches aside', () => {
    expect(results.prelude_cache_plant?.ok).toBe(false);
    expect(existsSync(caches.preludeCache)).toBe(false);
    expect(results.cli_chunks_rename?.ok).toBe(false);
    expect(existsSync(moved)).toBe(false);
  });

  it('cannot overwrite its own cache either: the next sidecar runs the build’s', () => {
    expect(results.sidecar_cache_overwrite?.ok).toBe(false);
    expect(readFileSync(caches.sidecarCache).equals(before.sidecar)).toBe(true);
  });
});

describe('control: the same fixture without the sandbox, on a copy of the dist directories', () => {
  it('does each write (so the refusals above are the sandbox’s)', async () => {
    const copy = makeTempDir('bastion-code-cache-copy-');
    cpSync(join(PACKAGES, 'cli', 'dist', 'chunks'), join(copy, 'cli', 'chunks'), { recursive: true });
    cpSync(join(PACKAGES, 'daemon', 'dist', 'main.cjs'), join(copy, 'daemon', 'main.cjs'));
    copyFileSync(
      join(PACKAGES, 'daemon', 'dist', 'main.cjs') + CODE_CACHE_SUFFIX,
      join(copy, 'daemon', 'main.cjs') + CODE_CACHE_SUFFIX,
    );
    const caches = builtCaches(join(copy, 'cli'), join(copy, 'daemon'));
    const { result } = await runSandboxProbe<Results>(
      plainLauncher,
      FIXTURE,
      attempts(caches, join(copy, 'cli', 'chunks-moved')),
    );
    for (const name of ['host_cache_overwrite', 'prelude_cache_plant', 'cli_chunks_rename', 'sidecar_cache_overwrite'])
      expect(result[name], name).toEqual({ ok: true, detail: '' });
  });
});
