/**
 * Test support: the srt launcher a probe runs under (the sidecar's own policy for one workspace),
 * and running a probe script through a sidecar launcher (that one, or the plain one for a control
 * run): hand it one JSON document on stdin, and read the JSON line it prints last. `output` is
 * everything it wrote, for canary scans.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, expect } from 'vitest';
import { createLogger } from '@bastion/protocol';
import { createPlaceholderWarden, type PlaceholderWarden } from '../../src/sandbox/placeholder-warden.js';
import { buildSidecarSandboxPolicy, type SidecarSandboxPolicyInput } from '../../src/sandbox/sidecar-sandbox-policy.js';
import { acquireSrtSession, type SrtSession } from '../../src/sandbox/srt-session.js';
import { createPrivateTempDir, type PrivateTempDir } from '../../src/sandbox/private-temp-dir.js';
import { createSrtSidecarLauncher } from '../../src/sandbox/srt-sidecar-launcher.js';
import type { SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import type { SidecarLauncher } from '../../src/supervisor/sidecar-launcher.js';

/** The warden a probe launcher needs, journaling under `userData`, logging nowhere. */
export function quietWarden(userData: string): PlaceholderWarden {
  return createPlaceholderWarden({ userData, log: createLogger('test', () => undefined) });
}

/** Where a probe's sidecar would live: the user's HOME, Bastion's userData and the one granted workspace. */
export interface ProbeLayout {
  home: string;
  userData: string;
  workspace: string;
}

/** The policy lists that are empty unless a test fills them. */
export type PolicyLists = Partial<Pick<SidecarSandboxPolicyInput, 'homeReads' | 'hostDenies'>>;

/** The sidecar's sandbox policy on `layout` with `privateTemp` as its TMPDIR, `lists` filled in. */
export function probePolicy(layout: ProbeLayout, privateTemp: string, lists: PolicyLists = {}): SandboxRuntimeConfig {
  const { home, userData, workspace } = layout;
  return buildSidecarSandboxPolicy({
    home,
    userData,
    workspaces: [workspace],
    privateTemp,
    homeReads: [],
    hostDenies: [],
    ...lists,
  });
}

/** The srt sidecar launcher on `layout`: probePolicy, built at each spawn. */
export function srtProbeLauncher(
  session: SrtSession,
  layout: ProbeLayout,
  privateTemp: string,
  lists: PolicyLists = {},
): SidecarLauncher {
  return createSrtSidecarLauncher({
    session,
    policy: () => probePolicy(layout, privateTemp, lists),
    home: layout.home,
    privateTemp,
    warden: quietWarden(layout.userData),
  });
}

export interface ProbeSandbox {
  /** srtProbeLauncher on the file's session and private temp dir. */
  launcher(layout: ProbeLayout, lists?: PolicyLists): SidecarLauncher;
  /** probePolicy with the file's private temp dir: the policy `launcher` wraps in. */
  policy(layout: ProbeLayout, lists?: PolicyLists): SandboxRuntimeConfig;
}

/**
 * For a test file: one srt session and one private temp dir for its probes, made before its tests
 * (beforeAll) and released after them (afterAll).
 */
export function probeSandboxPerFile(): ProbeSandbox {
  let session: SrtSession | undefined;
  let temp: PrivateTempDir | undefined;
  beforeAll(async () => {
    session = await acquireSrtSession();
    temp = createPrivateTempDir();
  });
  afterAll(async () => {
    temp?.remove();
    await session?.release();
  });
  const ready = () => {
    if (!session || !temp) throw new Error('the probe sandbox is made in beforeAll');
    return { session, temp };
  };
  return {
    launcher: (layout, lists) => srtProbeLauncher(ready().session, layout, ready().temp.path, lists),
    policy: (layout, lists) => probePolicy(layout, ready().temp.path, lists),
  };
}

export async function runSandboxProbe<T>(
  launcher: SidecarLauncher,
  probe: string,
  input: unknown,
): Promise<{ result: T; output: string }> {
  const launch = await launcher(probe);
  const child = spawn(launch.command, launch.args, { env: launch.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdin.end(JSON.stringify(input));
  // 'close', not 'exit': the process can end before its last output has been read from the pipe.
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  launch.cleanup?.();
  expect(code, stderr).toBe(0);
  return { result: JSON.parse(stdout.trim().split('\n').pop() ?? '') as T, output: stdout + stderr };
}
