import { describe, expect, it } from 'vitest';
import { resolveHomeSecretPaths } from '../sandbox/home-secrets.js';
import { checkSandboxPolicy } from '../sandbox/sandbox-policy-check.js';
import { buildCommandSandboxProfile } from './command-profile.js';

const input = {
  home: '/home/alice',
  userData: '/home/alice/.bastion',
  workspaceRoot: '/home/alice/project',
  scratchDir: '/home/alice/.bastion/scratch/ses_abcdefgh',
  privateTemp: '/tmp/bastion-cmd-x1',
  workspaceHasGitDir: true,
};

describe('buildCommandSandboxProfile', () => {
  const profile = buildCommandSandboxProfile(input);

  it('denies reads of every HOME secret and of the whole userData', () => {
    for (const secret of resolveHomeSecretPaths(input.home)) expect(profile.filesystem.denyRead).toContain(secret);
    expect(profile.filesystem.denyRead).toContain(input.userData);
  });

  it('allows writes only in the workspace, its own scratch dir and the private temp dir', () => {
    expect([...profile.filesystem.allowWrite].sort()).toEqual(
      [input.privateTemp, input.scratchDir, input.workspaceRoot].sort(),
    );
  });

  it('write-denies the HOME secrets and srt’s shared /tmp/claude', () => {
    for (const secret of resolveHomeSecretPaths(input.home)) expect(profile.filesystem.denyWrite).toContain(secret);
    expect(profile.filesystem.denyWrite).toContain('/tmp/claude');
  });

  it('has no network: empty strict allowlist, no local binding, no Unix sockets', () => {
    expect(profile.network).toMatchObject({
      allowedDomains: [],
      strictAllowlist: true,
      allowLocalBinding: false,
      allowAllUnixSockets: false,
    });
  });

  it('passes the same policy check as the sidecar policy', () => {
    expect(checkSandboxPolicy(profile, input.home)).toEqual({ ok: true });
  });

  it('write-denies the workspace files that would run code later, unsandboxed', () => {
    for (const relative of ['.git/hooks', '.git/config', '.envrc', '.vscode', '.bashrc', '.mcp.json']) {
      expect(profile.filesystem.denyWrite).toContain(`${input.workspaceRoot}/${relative}`);
    }
  });

  it('write-denies `.git` itself when the workspace is not a repository (no `git init` + hooks)', () => {
    const denyWrite = buildCommandSandboxProfile({ ...input, workspaceHasGitDir: false }).filesystem.denyWrite;
    expect(denyWrite).toContain(`${input.workspaceRoot}/.git`);
    expect(denyWrite).not.toContain(`${input.workspaceRoot}/.git/hooks`);
  });

  it('leaves the scratch dir out when the command has none', () => {
    expect(buildCommandSandboxProfile({ ...input, scratchDir: undefined }).filesystem.allowWrite).not.toContain(
      input.scratchDir,
    );
  });
});
