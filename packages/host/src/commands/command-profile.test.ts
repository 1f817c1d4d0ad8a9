import { describe, expect, it } from 'vitest';
import { resolveHomeSecretPaths } from '../sandbox/home-secrets.js';
import { checkSandboxPolicy } from '../sandbox/sandbox-policy-check.js';
import {
  buildCommandSandboxProfile,
  WORKSPACE_WRITE_PROTECTED,
  workspaceGuardsWhenAbsent,
  workspaceWriteProtections,
} from './command-profile.js';

const input = {
  home: '/home/alice',
  userData: '/home/alice/.bastion',
  workspaceRoot: '/home/alice/project',
  scratchDir: '/home/alice/.bastion/scratch/ses_abcdefgh',
  privateTemp: '/tmp/bastion-cmd-x1',
  protectedInWorkspace: ['/home/alice/project/.git/hooks', '/home/alice/project/.envrc'],
  realPath: (path: string) => path,
  homeReads: ['/home/alice/.cargo/bin', '/home/alice/.pyenv'],
};

describe('buildCommandSandboxProfile', () => {
  const profile = buildCommandSandboxProfile(input);

  it('denies reads of HOME as a whole, of every HOME secret and of the whole userData', () => {
    expect(profile.filesystem.denyRead).toContain(input.home);
    for (const secret of resolveHomeSecretPaths(input.home)) expect(profile.filesystem.denyRead).toContain(secret);
    expect(profile.filesystem.denyRead).toContain(input.userData);
  });

  it('binds back exactly the allowlisted HOME paths it is given, and passes the policy check', () => {
    expect(profile.filesystem.allowRead).toEqual(input.homeReads);
    expect(checkSandboxPolicy(profile, input.home)).toEqual({ ok: true });
  });

  it('allows writes only in the workspace, its own scratch dir and the private temp dir', () => {
    expect([...profile.filesystem.allowWrite].sort()).toEqual(
      [input.privateTemp, input.scratchDir, input.workspaceRoot].sort(),
    );
  });

  it('write-denies srt’s shared /tmp/claude, and the HOME secrets a write root could reach', () => {
    expect(profile.filesystem.denyWrite).toContain('/tmp/claude');
    // Outside every write root nothing is writable: a deny there would be srt work for nothing.
    expect(profile.filesystem.denyWrite).not.toContain('/home/alice/.ssh');
    // By a symlink that points into one, and every glob.
    const reaching = buildCommandSandboxProfile({
      ...input,
      realPath: (path) => (path === '/home/alice/.npmrc' ? '/home/alice/.bastion/scratch/ses_abcdefgh/npmrc' : path),
    });
    expect(reaching.filesystem.denyWrite).toEqual(
      expect.arrayContaining(['/home/alice/.npmrc', '/home/alice/.cargo/credentials*']),
    );
    expect(reaching.filesystem.denyWrite).not.toContain('/home/alice/.ssh');
    expect(checkSandboxPolicy(reaching, input.home)).toEqual({ ok: true });
    // A workspace that holds HOME secrets (~/.config) would bind them back: the check refuses it.
    const holding = buildCommandSandboxProfile({ ...input, workspaceRoot: '/home/alice/.config' });
    expect(checkSandboxPolicy(holding, input.home)).toMatchObject({
      ok: false,
      code: 'SANDBOX_POLICY_BROAD_WRITE_ROOT',
    });
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

  it('write-denies the workspace paths it is given', () => {
    for (const path of input.protectedInWorkspace) expect(profile.filesystem.denyWrite).toContain(path);
  });

  it('leaves the scratch dir out when the command has none', () => {
    expect(buildCommandSandboxProfile({ ...input, scratchDir: undefined }).filesystem.allowWrite).not.toContain(
      input.scratchDir,
    );
  });
});

describe('workspaceWriteProtections', () => {
  it('each protected path that exists, and only those', () => {
    const present = new Set(['/w/.envrc', '/w/.vscode']);
    expect(workspaceWriteProtections('/w', (path) => present.has(path))).toEqual(['/w/.envrc', '/w/.vscode']);
    expect(workspaceWriteProtections('/w', () => true)).toHaveLength(WORKSPACE_WRITE_PROTECTED.length);
  });
});

describe('workspaceGuardsWhenAbsent', () => {
  it('guards each absent protected path at its first absent component (`.devcontainer` included), but not `.gitmodules` nor what exists', () => {
    const root = '/w';
    const present = new Set(['/w', '/w/.envrc', '/w/.claude', '/w/.claude/agents']);
    const guards = workspaceGuardsWhenAbsent(root, (path) => present.has(path));
    expect(guards).toEqual(
      expect.arrayContaining([
        '/w/AGENTS.md',
        '/w/CLAUDE.md',
        '/w/.vscode',
        '/w/.idea',
        '/w/.devcontainer',
        '/w/.claude/commands',
        '/w/.claude/settings.json',
        '/w/.claude/settings.local.json',
        '/w/.bashrc',
      ]),
    );
    expect(guards).not.toContain('/w/.gitmodules');
    expect(guards).not.toContain('/w/.envrc');
    expect(guards).not.toContain('/w/.claude/agents');
    expect(workspaceGuardsWhenAbsent(root, (path) => path === root)).toContain('/w/.claude');
  });
});
