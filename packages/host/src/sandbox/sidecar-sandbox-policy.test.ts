import { describe, expect, it } from 'vitest';
import { checkSandboxPolicy } from './sandbox-policy-check.js';
import { buildSidecarSandboxPolicy, SRT_UNASKED_WRITE_PATHS } from './sidecar-sandbox-policy.js';

const home = '/home/alice';
const input = {
  home,
  userData: '/home/alice/.bastion',
  workspaces: ['/home/alice/code/app', '/srv/shared-repo'],
  privateTemp: '/tmp/bastion-sidecar-abc123',
  homeReads: ['/home/alice/.nvm', '/home/alice/src/bastion'],
  hostDenies: ['/home/alice/.bastion/host'],
};

// The list from the issue, spelled out here so a removal from HOME_SECRET_PATHS fails this test.
const REQUIRED_SECRETS = [
  '.ssh',
  '.aws',
  '.gnupg',
  '.docker/config.json',
  '.kube',
  '.config/gh',
  '.config/gcloud',
  '.azure',
  '.netrc',
  '.git-credentials',
  '.npmrc',
  '.pypirc',
  '.cargo/credentials*',
  '.bashrc',
  '.bash_profile',
  '.profile',
  '.zshrc',
  '.zprofile',
  '.zshenv',
  '.config/fish',
  // Issue 15 (`home-read`): named too, so no allowlist entry can re-open them.
  '.bash_history',
  '.zsh_history',
  '.bash_login',
  '.zlogin',
  '.codex',
  '.claude/.credentials.json',
  '.vault-token',
  '.local/share/keyrings',
  '.config/chromium',
];

describe('buildSidecarSandboxPolicy', () => {
  const policy = buildSidecarSandboxPolicy(input);

  it.each(REQUIRED_SECRETS)('denies reading and writing ~/%s, resolved against HOME', (relative) => {
    expect(policy.filesystem.denyRead).toContain(`${home}/${relative}`);
    expect(policy.filesystem.denyWrite).toContain(`${home}/${relative}`);
  });

  it('denies reading HOME as a whole and binds back only the HOME paths and workspaces it is given', () => {
    expect(policy.filesystem.denyRead).toContain(home);
    expect(policy.filesystem.allowRead).toEqual([...input.homeReads, ...input.workspaces]);
  });

  it('has an empty network allowlist, strict, with no local binding or Unix sockets', () => {
    expect(policy.network.allowedDomains).toEqual([]);
    expect(policy.network.strictAllowlist).toBe(true);
    expect(policy.network.allowLocalBinding).toBe(false);
    expect(policy.network.allowAllUnixSockets).toBe(false);
  });

  it('allows writing only userData and the private temp dir, never a granted workspace (the host writes there)', () => {
    expect(policy.filesystem.allowWrite).toEqual([input.userData, input.privateTemp]);
    for (const workspace of input.workspaces) expect(policy.filesystem.allowWrite).not.toContain(workspace);
    expect(policy.filesystem.allowWrite).not.toContain(home);
    expect(policy.filesystem.allowWrite).not.toContain('/tmp');
    expect(policy.filesystem.allowWrite).not.toContain('/');
  });

  it('read-denies the parent of this user’s host temp roots, binding back its own temp dir only when it lies there (a CLI host’s)', () => {
    const parent = `/tmp/bastion-${process.getuid?.() ?? 0}`;
    expect(policy.filesystem.denyRead).toContain(parent);
    expect(policy.filesystem.allowRead).not.toContain(input.privateTemp);
    const inRoot = `${parent}/bastion-host-00112233445566aa/bastion-sidecar-abc123`;
    const cli = buildSidecarSandboxPolicy({ ...input, privateTemp: inRoot });
    expect(cli.filesystem.denyRead).toContain(parent);
    expect(cli.filesystem.allowRead).toContain(inRoot);
    expect(cli.filesystem.allowWrite).toContain(inRoot);
  });

  it("write-denies what srt makes writable unasked (its shared /tmp/claude), but not the child's stdio", () => {
    expect(SRT_UNASKED_WRITE_PATHS).toContain('/tmp/claude');
    for (const path of SRT_UNASKED_WRITE_PATHS) expect(policy.filesystem.denyWrite).toContain(path);
    expect(policy.filesystem.denyWrite).not.toContain('/dev/null');
  });

  it("read- and write-denies the host's own paths inside the write roots (userData's host/)", () => {
    for (const path of input.hostDenies) {
      expect(policy.filesystem.denyRead).toContain(path);
      expect(policy.filesystem.denyWrite).toContain(path);
    }
  });

  it('passes the policy schema check', () => {
    expect(checkSandboxPolicy(policy, home)).toEqual({ ok: true });
  });

  it('is pure: the same input gives the same policy, and the input is not kept by reference', () => {
    const workspaces = [...input.workspaces];
    const first = buildSidecarSandboxPolicy({ ...input, workspaces });
    workspaces.push('/elsewhere');
    expect(first).toEqual(buildSidecarSandboxPolicy(input));
  });
});
