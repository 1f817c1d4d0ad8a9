import type { SandboxDependencyCheck } from '@anthropic-ai/sandbox-runtime';
import { describe, expect, it } from 'vitest';
import { checkSandboxAvailability, decideSandboxPosture } from './sandbox-posture.js';

const allPresent = (): SandboxDependencyCheck => ({ errors: [], warnings: [] });
const bwrapAndSocatMissing = (): SandboxDependencyCheck => ({
  errors: ['ripgrep (rg) not found', 'bubblewrap (bwrap) not installed', 'socat not installed'],
  warnings: [],
});

describe('sandbox posture', () => {
  it('runs under srt with the shell when the dependencies are present', () => {
    const posture = decideSandboxPosture({
      platform: 'linux',
      availability: checkSandboxAvailability('linux', allPresent),
      unsandboxedShell: false,
    });
    expect(posture.capabilities).toEqual({ sandbox: 'srt', shell: true, platform: 'linux' });
    expect(posture.warning).toBeUndefined();
  });

  it('withholds the shell on Windows, without asking srt, even with --unsandboxed-shell', () => {
    for (const unsandboxedShell of [false, true]) {
      const check = () => {
        throw new Error('the dependency check must not run on win32');
      };
      const posture = decideSandboxPosture({
        platform: 'win32',
        availability: checkSandboxAvailability('win32', check),
        unsandboxedShell,
      });
      expect(posture.capabilities).toMatchObject({ sandbox: 'none', shell: false, platform: 'win32' });
      expect(posture.capabilities.reason).toMatch(/run_command withheld/);
    }
  });

  it('withholds the shell on an unsupported platform', () => {
    const posture = decideSandboxPosture({
      platform: 'freebsd',
      availability: checkSandboxAvailability('freebsd', allPresent),
      unsandboxedShell: false,
    });
    expect(posture.capabilities).toMatchObject({ sandbox: 'none', shell: false });
  });

  it('fails closed on Linux with missing packages: no shell, the packages and the install command in the reason', () => {
    const availability = checkSandboxAvailability('linux', bwrapAndSocatMissing);
    expect(availability).toMatchObject({ available: false, missing: ['bubblewrap', 'socat', 'ripgrep'] });
    const posture = decideSandboxPosture({ platform: 'linux', availability, unsandboxedShell: false });
    expect(posture.capabilities).toMatchObject({ sandbox: 'none', shell: false, platform: 'linux' });
    expect(posture.capabilities.reason).toContain('missing bubblewrap, socat, ripgrep');
    expect(posture.capabilities.reason).toContain('apt-get install -y bubblewrap socat ripgrep');
    expect(posture.warning).toBeUndefined();
  });

  it('fails closed on a non-package problem too, naming it', () => {
    const availability = checkSandboxAvailability('linux', () => ({
      errors: ['bwrap cannot create a user namespace'],
      warnings: [],
    }));
    expect(availability.missing).toEqual([]);
    const posture = decideSandboxPosture({ platform: 'linux', availability, unsandboxedShell: false });
    expect(posture.capabilities).toMatchObject({ sandbox: 'none', shell: false });
    expect(posture.capabilities.reason).toContain('user namespace');
  });

  it('gives the shell back unsandboxed only with --unsandboxed-shell, with a loud warning', () => {
    const posture = decideSandboxPosture({
      platform: 'darwin',
      availability: checkSandboxAvailability('darwin', () => ({ errors: ['sandbox-exec not found'], warnings: [] })),
      unsandboxedShell: true,
    });
    expect(posture.capabilities).toMatchObject({ sandbox: 'none', shell: true, platform: 'darwin' });
    expect(posture.capabilities.reason).toMatch(/^--unsandboxed-shell/);
    expect(posture.warning).toMatch(/WITHOUT|WARNING/);
  });

  it('never drops an available sandbox because of --unsandboxed-shell', () => {
    const posture = decideSandboxPosture({
      platform: 'linux',
      availability: checkSandboxAvailability('linux', allPresent),
      unsandboxedShell: true,
    });
    expect(posture.capabilities).toEqual({ sandbox: 'srt', shell: true, platform: 'linux' });
  });
});
