import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMMAND_MAX_ARGV_TOTAL_BYTES } from '@bastion/protocol';
import { validateShellRequest, type ShellValidationContext } from './validate.js';

let root: string;
let context: ShellValidationContext;
let workspace: string;
let sibling: string;
let userData: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'bastion-validate-')));
  userData = join(root, 'home');
  workspace = join(root, 'ws');
  sibling = join(root, 'ws-sibling');
  for (const dir of [
    userData,
    workspace,
    sibling,
    join(workspace, 'src'),
    join(userData, 'scratch', 'ses_other0001'),
  ]) {
    mkdirSync(dir, { recursive: true });
  }
  writeFileSync(join(userData, 'auth.json'), '{}');
  writeFileSync(join(workspace, 'file.txt'), 'x');
  context = { userData, grantedRoots: [workspace, sibling], workspaceRoot: workspace, sessionId: 'ses_mine00001' };
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

function refusal(result: ReturnType<typeof validateShellRequest>): { code: string; message: string } {
  if (result.ok) throw new Error('expected a refusal');
  return result;
}

describe('validateShellRequest: working directory', () => {
  it('defaults to the workspace root', () => {
    const result = validateShellRequest({ command: 'ls', args: [] }, context);
    expect(result).toMatchObject({ ok: true, cwd: workspace, workspaceRoot: workspace });
  });

  it('resolves a relative workdir against the workspace root', () => {
    expect(validateShellRequest({ command: 'ls', args: [], workdir: 'src' }, context)).toMatchObject({
      ok: true,
      cwd: join(workspace, 'src'),
    });
  });

  it("accepts the session's own scratch dir, even before the host created it", () => {
    const scratch = join(userData, 'scratch', 'ses_mine00001');
    expect(validateShellRequest({ command: 'ls', args: [], workdir: scratch }, context)).toMatchObject({
      ok: true,
      cwd: scratch,
      scratchDir: scratch,
    });
  });

  it('refuses a sibling workspace with its own code', () => {
    expect(refusal(validateShellRequest({ command: 'ls', args: [], workdir: sibling }, context)).code).toBe(
      'SHELL_CWD_OTHER_WORKSPACE',
    );
  });

  it('refuses a missing directory', () => {
    expect(refusal(validateShellRequest({ command: 'ls', args: [], workdir: 'nope' }, context)).code).toBe(
      'SHELL_CWD_MISSING',
    );
  });

  it('refuses a file as the working directory', () => {
    expect(refusal(validateShellRequest({ command: 'ls', args: [], workdir: 'file.txt' }, context)).code).toBe(
      'SHELL_CWD_NOT_DIRECTORY',
    );
  });

  it('refuses `..` into userData without echoing the path', () => {
    const result = refusal(validateShellRequest({ command: 'ls', args: [], workdir: '../home' }, context));
    expect(result.code).toBe('SHELL_CWD_PROTECTED');
    expect(result.message).not.toContain(root);
  });

  it("refuses another session's scratch dir as the working directory", () => {
    const other = join(userData, 'scratch', 'ses_other0001');
    expect(refusal(validateShellRequest({ command: 'ls', args: [], workdir: other }, context)).code).toBe(
      'SHELL_CWD_PROTECTED',
    );
  });

  it('refuses a workspace symlink that leads into userData', () => {
    symlinkSync(userData, join(workspace, 'door'));
    expect(refusal(validateShellRequest({ command: 'ls', args: [], workdir: 'door' }, context)).code).toBe(
      'SHELL_CWD_PROTECTED',
    );
  });

  it('refuses a directory outside every workspace', () => {
    expect(refusal(validateShellRequest({ command: 'ls', args: [], workdir: '/' }, context)).code).toBe(
      'SHELL_CWD_OUTSIDE_WORKSPACE',
    );
  });

  it('resolves `link/..` the way the kernel does, not lexically', () => {
    // ws/up -> <root>/ws-sibling/inner; `up/..` is the sibling workspace, not `ws`.
    mkdirSync(join(sibling, 'inner'));
    symlinkSync(join(sibling, 'inner'), join(workspace, 'up'));
    expect(refusal(validateShellRequest({ command: 'ls', args: [], workdir: 'up/..' }, context)).code).toBe(
      'SHELL_CWD_OTHER_WORKSPACE',
    );
  });

  it('uses the scratch dir when the session has no workspace', () => {
    const result = validateShellRequest({ command: 'ls', args: [] }, { ...context, workspaceRoot: null });
    expect(result).toMatchObject({ ok: true, cwd: join(userData, 'scratch', 'ses_mine00001') });
  });
});

describe('validateShellRequest: arguments', () => {
  const protectedArgs: [string, (ws: string, home: string) => string[]][] = [
    ['an absolute path into userData', (_ws, home) => [join(home, 'auth.json')]],
    ['a relative path climbing into userData', () => ['../home/auth.json']],
    ['a not-yet-existing file in userData', (_ws, home) => [join(home, 'new', 'file')]],
    ["another session's scratch dir", (_ws, home) => [join(home, 'scratch', 'ses_other0001', 'x')]],
    ['a path in the value of a long flag', (_ws, home) => [`--file=${join(home, 'auth.json')}`]],
    ['userData itself', (_ws, home) => [home]],
  ];

  it.each(protectedArgs)('refuses %s with SHELL_ARG_PROTECTED and no path in the message', (_name, make) => {
    const result = refusal(validateShellRequest({ command: 'cat', args: make(workspace, userData) }, context));
    expect(result.code).toBe('SHELL_ARG_PROTECTED');
    expect(result.message).not.toContain(root);
  });

  it('refuses a symlink in the workspace that points into userData', () => {
    symlinkSync(join(userData, 'auth.json'), join(workspace, 'innocent.json'));
    expect(refusal(validateShellRequest({ command: 'cat', args: ['./innocent.json'] }, context)).code).toBe(
      'SHELL_ARG_PROTECTED',
    );
  });

  it('refuses a path-shaped command inside userData', () => {
    expect(refusal(validateShellRequest({ command: join(userData, 'tool'), args: [] }, context)).code).toBe(
      'SHELL_ARG_PROTECTED',
    );
  });

  it('allows paths in the workspace and its own scratch dir', () => {
    const scratchFile = join(userData, 'scratch', 'ses_mine00001', 'notes');
    expect(
      validateShellRequest({ command: 'cat', args: ['src/a.ts', join(workspace, 'file.txt'), scratchFile] }, context),
    ).toMatchObject({
      ok: true,
    });
  });

  it('does not treat flags as paths', () => {
    expect(validateShellRequest({ command: 'ls', args: ['-la', '--color=auto'] }, context)).toMatchObject({ ok: true });
  });

  it('refuses more than 256 arguments', () => {
    expect(
      refusal(validateShellRequest({ command: 'echo', args: Array.from({ length: 257 }, () => 'a') }, context)).code,
    ).toBe('SHELL_ARGS_TOO_MANY');
  });

  it('refuses an argument over 32 KiB', () => {
    expect(refusal(validateShellRequest({ command: 'echo', args: ['a'.repeat(32 * 1024 + 1)] }, context)).code).toBe(
      'SHELL_ARG_TOO_LONG',
    );
  });

  it('refuses argv over the total bound', () => {
    const count = Math.ceil(COMMAND_MAX_ARGV_TOTAL_BYTES / (32 * 1024)) + 1;
    const args = Array.from({ length: count }, () => 'a'.repeat(32 * 1024));
    expect(refusal(validateShellRequest({ command: 'echo', args }, context)).code).toBe('SHELL_ARGV_TOO_LARGE');
  });

  it('refuses a NUL byte in an argument or the command', () => {
    expect(refusal(validateShellRequest({ command: 'echo', args: ['a\0b'] }, context)).code).toBe('SHELL_ARG_NUL');
    expect(refusal(validateShellRequest({ command: 'ec\0ho', args: [] }, context)).code).toBe('SHELL_ARG_NUL');
  });

  it('refuses an empty command', () => {
    expect(refusal(validateShellRequest({ command: '', args: [] }, context)).code).toBe('SHELL_COMMAND_INVALID');
  });
});
