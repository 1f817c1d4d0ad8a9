import type { SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import { describe, expect, it } from 'vitest';
import { checkSandboxPolicy } from './sandbox-policy-check.js';
import { buildSidecarSandboxPolicy } from './sidecar-sandbox-policy.js';

const home = '/home/alice';
const good = (): SandboxRuntimeConfig =>
  buildSidecarSandboxPolicy({
    home,
    userData: '/home/alice/.bastion',
    workspaces: ['/home/alice/code/app'],
    privateTemp: '/tmp/bastion-sidecar-abc123',
    homeReads: ['/home/alice/.cargo/bin', '/home/alice/.nvm'],
    hostDenies: [],
  });

function withDomains(allowedDomains: string[]): SandboxRuntimeConfig {
  const policy = good();
  return { ...policy, network: { ...policy.network, allowedDomains } };
}

function withWriteRoot(root: string): SandboxRuntimeConfig {
  const policy = good();
  return { ...policy, filesystem: { ...policy.filesystem, allowWrite: [...policy.filesystem.allowWrite, root] } };
}

describe('checkSandboxPolicy', () => {
  it('accepts the sidecar policy and a narrow domain', () => {
    expect(checkSandboxPolicy(good(), home)).toEqual({ ok: true });
    expect(checkSandboxPolicy(withDomains(['api.example.com', '*.example.com:443']), home)).toEqual({ ok: true });
  });

  it.each(['*', 'com', '*.com', 'localhost', 'com:443'])('refuses the broad domain pattern %j', (pattern) => {
    const result = checkSandboxPolicy(withDomains([pattern]), home);
    expect(result.ok).toBe(false);
    expect(result).toMatchObject({ ok: false });
    if (!result.ok) expect(['SANDBOX_POLICY_BROAD_DOMAIN', 'SANDBOX_POLICY_INVALID']).toContain(result.code);
  });

  it.each([
    ['/', 'the root'],
    [home, 'HOME itself'],
    [`${home}/`, 'HOME with a trailing slash'],
    ['/home', 'an ancestor of HOME'],
    ['/tmp', 'the shared temp dir'],
    ['/var/tmp', 'the other shared temp dir'],
    ['/dev/shm', 'shared memory'],
    ['/srv/*', 'a glob'],
    ['relative/dir', 'a relative path'],
    [`${home}/.ssh/keys`, 'a dir inside a HOME secret'],
    [`${home}/.config`, 'a dir holding HOME secrets (gh, gcloud, chromium)'],
    [`${home}/.local/share`, 'a dir holding a HOME secret (keyrings)'],
  ])('refuses the write root %j (%s)', (root) => {
    const result = checkSandboxPolicy(withWriteRoot(root), home);
    expect(result).toMatchObject({ ok: false, code: 'SANDBOX_POLICY_BROAD_WRITE_ROOT' });
  });

  it('refuses a policy that drops one HOME secret from denyRead', () => {
    const policy = good();
    const dropped = {
      ...policy,
      filesystem: { ...policy.filesystem, denyRead: policy.filesystem.denyRead.filter((p) => p !== `${home}/.aws`) },
    };
    expect(checkSandboxPolicy(dropped, home)).toMatchObject({ ok: false, code: 'SANDBOX_POLICY_SECRET_NOT_DENIED' });
  });

  it('accepts a write deny list without the HOME secrets (no write root can reach one)', () => {
    const policy = good();
    const trimmed = {
      ...policy,
      filesystem: {
        ...policy.filesystem,
        denyWrite: policy.filesystem.denyWrite.filter((p) => typeof p !== 'string' || !p.startsWith(`${home}/.`)),
      },
    };
    expect(checkSandboxPolicy(trimmed, home)).toEqual({ ok: true });
  });

  it.each([
    [`${home}/.ssh/id_rsa`, 'a file inside a HOME secret'],
    [`${home}/.local/share`, 'a directory holding a HOME secret (keyrings)'],
    [`${home}/.cargo`, 'a directory holding a HOME secret glob (credentials*)'],
    [`${home}/.config/chromium/Default`, 'a browser profile'],
  ])('refuses an allowRead that re-opens a HOME secret: %j (%s)', (path) => {
    const policy = good();
    const reopened = { ...policy, filesystem: { ...policy.filesystem, allowRead: [path] } };
    expect(checkSandboxPolicy(reopened, home)).toMatchObject({ ok: false, code: 'SANDBOX_POLICY_SECRET_NOT_DENIED' });
  });

  it.each([
    [home, 'HOME itself'],
    [`${home}/`, 'HOME with a trailing slash'],
    ['/home', 'an ancestor of HOME'],
    [`${home}/.cache/*`, 'a glob'],
    ['relative/.cargo/bin', 'a relative path'],
  ])('refuses the allowRead %j (%s): HOME stays unreadable', (path) => {
    const policy = good();
    const opened = { ...policy, filesystem: { ...policy.filesystem, allowRead: [path] } };
    expect(checkSandboxPolicy(opened, home)).toMatchObject({ ok: false, code: 'SANDBOX_POLICY_HOME_READABLE' });
  });

  it('refuses a policy whose read denies lack HOME itself', () => {
    const policy = good();
    const readable = {
      ...policy,
      filesystem: { ...policy.filesystem, denyRead: policy.filesystem.denyRead.filter((p) => p !== home) },
    };
    expect(checkSandboxPolicy(readable, home)).toMatchObject({ ok: false, code: 'SANDBOX_POLICY_HOME_READABLE' });
  });

  it('refuses local binding, all Unix sockets and a disabled filesystem policy', () => {
    const policy = good();
    expect(
      checkSandboxPolicy({ ...policy, network: { ...policy.network, allowLocalBinding: true } }, home),
    ).toMatchObject({
      ok: false,
      code: 'SANDBOX_POLICY_LOCAL_ACCESS',
    });
    expect(
      checkSandboxPolicy({ ...policy, network: { ...policy.network, allowAllUnixSockets: true } }, home),
    ).toMatchObject({
      ok: false,
      code: 'SANDBOX_POLICY_LOCAL_ACCESS',
    });
    expect(checkSandboxPolicy({ ...policy, filesystem: { ...policy.filesystem, disabled: true } }, home)).toMatchObject(
      {
        ok: false,
        code: 'SANDBOX_POLICY_FILESYSTEM_DISABLED',
      },
    );
  });

  it("refuses what srt's own schema refuses", () => {
    const policy = good();
    const broken = { ...policy, filesystem: { ...policy.filesystem, allowWrite: [''] } };
    expect(checkSandboxPolicy(broken, home)).toMatchObject({ ok: false, code: 'SANDBOX_POLICY_INVALID' });
  });
});
