/**
 * SEC-004 watchdog, held by the kernel: a misbehaving sidecar fixture, started through the same
 * srt launcher as the real sidecar under the policy the host builds for it (real bubblewrap),
 * skips every policy check and writes straight to what the host keeps for itself — policy.json in
 * userData's `host/`, a workspace path a `hard-deny` rule denies to file tools, one a `deny` rule
 * does. Each workspace write is refused; `host/` is an empty tmpfs in the sidecar's view (it is
 * read-denied as well, sidecar-host-dir-unreadable.test.ts), so what it writes or removes there
 * stays in that tmpfs, and it cannot move the mount point aside. Each file on disk still holds its
 * bytes; the sidecar's own userData stays writable, and the rest of the workspace is read-only to
 * it as well (its writes are the host's). A control run of the same fixture without the sandbox
 * does each write, so the fixture can tell success from refusal.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeAttack } from '../../../../test/support/attack.js';
import { PolicyStore } from '../../src/policy/policy-store.js';
import { sidecarHostDenies } from '../../src/policy/sandbox-denies.js';
import { checkSandboxPolicy } from '../../src/sandbox/sandbox-policy-check.js';
import { plainLauncher } from '../../src/supervisor/sidecar-launcher.js';
import { ensureUserData } from '../../src/user-data.js';
import { probeSandboxPerFile, runSandboxProbe } from '../support/sandbox-probe.js';
import { makeTempDir } from '@bastion/test-support';

const FIXTURE = fileURLToPath(new URL('./fixtures/misbehaving-sidecar.mjs', import.meta.url));
const DEPLOY_SCRIPT = '#!/bin/sh\necho deploying\n';
const PROD_ENV = 'DATABASE_URL=postgres://prod\n';

type Results = Record<string, { ok: boolean; detail: string }>;

interface World {
  home: string;
  userData: string;
  workspace: string;
  store: PolicyStore;
  policyBytes: string;
}

/** A userData whose host/policy.json holds a hard-deny for deploy/** and a deny for config/prod.env. */
function makeWorld(): World {
  const root = makeTempDir('bastion-host-denies-');
  const home = join(root, 'home');
  const userData = join(root, 'user-data');
  const workspace = join(root, 'workspace');
  for (const dir of [home, join(workspace, 'deploy'), join(workspace, 'config'), join(workspace, 'src')]) {
    mkdirSync(dir, { recursive: true });
  }
  writeFileSync(join(workspace, 'deploy', 'run.sh'), DEPLOY_SCRIPT);
  writeFileSync(join(workspace, 'config', 'prod.env'), PROD_ENV);
  ensureUserData(userData);
  const store = new PolicyStore(userData);
  const project = { kind: 'project', root: workspace } as const;
  store.add(project, { decision: 'hard-deny', paths: ['deploy/**'], reason: 'deploys are by hand' });
  store.add(project, { decision: 'deny', tools: ['write_file', 'edit_file'], paths: ['config/prod.env'] });
  return { home, userData, workspace, store, policyBytes: readFileSync(store.path, 'utf8') };
}

function attempts(world: World) {
  const host = join(world.userData, 'host');
  return {
    policy_overwrite: { op: 'overwrite', path: join(host, 'policy.json') },
    host_create: { op: 'create', path: join(host, 'planted.json') },
    host_rename: { op: 'rename', path: host, to: join(world.userData, 'host-moved') },
    policy_remove: { op: 'remove', path: join(host, 'policy.json') },
    deploy_overwrite: { op: 'overwrite', path: join(world.workspace, 'deploy', 'run.sh') },
    deploy_create: { op: 'create', path: join(world.workspace, 'deploy', 'new.sh') },
    deploy_rename: { op: 'rename', path: join(world.workspace, 'deploy'), to: join(world.workspace, 'deploy-moved') },
    prod_overwrite: { op: 'overwrite', path: join(world.workspace, 'config', 'prod.env') },
    own_state: { op: 'create', path: join(world.userData, 'own-state.txt') },
    ordinary_file: { op: 'create', path: join(world.workspace, 'src', 'new.txt') },
  };
}

const sandbox = probeSandboxPerFile();

describeAttack('policy-bypass', 'a misbehaving sidecar cannot write what the host keeps for itself', () => {
  let world: World;
  let results: Results;

  beforeAll(async () => {
    world = makeWorld();
    const lists = { hostDenies: sidecarHostDenies(world.userData) };
    expect(checkSandboxPolicy(sandbox.policy(world, lists), world.home)).toEqual({ ok: true });
    const launcher = sandbox.launcher(world, lists);
    ({ result: results } = await runSandboxProbe<Results>(launcher, FIXTURE, attempts(world)));
  });

  it('cannot move host/ aside: in its view host/ is a mount point', () => {
    expect(results.host_rename).toEqual({ ok: false, detail: 'EBUSY' });
    expect(existsSync(join(world.userData, 'host-moved'))).toBe(false);
  });

  it('what it overwrites, plants or removes in host/ stays in its own empty host/ and never reaches the disk: the rules hold their bytes', () => {
    expect(readFileSync(world.store.path, 'utf8')).toBe(world.policyBytes);
    expect(existsSync(join(world.userData, 'host', 'planted.json'))).toBe(false);
    expect(world.store.read().projects[world.workspace]?.map((rule) => rule.decision)).toEqual(['hard-deny', 'deny']);
  });

  it('cannot write, add to or move a directory a hard-deny rule denies to file tools', () => {
    for (const name of ['deploy_overwrite', 'deploy_create', 'deploy_rename']) {
      expect(results[name]?.ok, name).toBe(false);
    }
    expect(readFileSync(join(world.workspace, 'deploy', 'run.sh'), 'utf8')).toBe(DEPLOY_SCRIPT);
    expect(existsSync(join(world.workspace, 'deploy', 'new.sh'))).toBe(false);
    expect(existsSync(join(world.workspace, 'deploy-moved'))).toBe(false);
  });

  it('cannot overwrite a file a deny rule denies to both file tools', () => {
    expect(results.prod_overwrite?.ok).toBe(false);
    expect(readFileSync(join(world.workspace, 'config', 'prod.env'), 'utf8')).toBe(PROD_ENV);
  });

  it('still writes its own userData; the rest of the workspace is read-only to it too (the host writes there for it)', () => {
    expect(results.own_state).toEqual({ ok: true, detail: '' });
    expect(results.ordinary_file).toEqual({ ok: false, detail: 'EROFS' });
    expect(existsSync(join(world.workspace, 'src', 'new.txt'))).toBe(false);
  });
});

describe('control: the same fixture without the sandbox', () => {
  it('does each write (so the refusals above are the sandbox’s)', async () => {
    const world = makeWorld();
    const { result } = await runSandboxProbe<Results>(plainLauncher, FIXTURE, attempts(world));
    for (const name of [
      'policy_overwrite',
      'host_create',
      'host_rename',
      'deploy_overwrite',
      'deploy_create',
      'deploy_rename',
      'prod_overwrite',
    ]) {
      expect(result[name], name).toEqual({ ok: true, detail: '' });
    }
    // Written, then moved aside: the fixture did reach the files the sandboxed run could not.
    expect(readFileSync(join(world.userData, 'host-moved', 'policy.json'), 'utf8')).not.toBe(world.policyBytes);
    expect(readFileSync(join(world.workspace, 'deploy-moved', 'run.sh'), 'utf8')).not.toBe(DEPLOY_SCRIPT);
  });
});
