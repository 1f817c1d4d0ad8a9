/**
 * git-escape by the sidecar itself: a compromised sidecar (here a probe started by the same srt
 * launcher and policy builder as the sidecar) writes what the user's own git later runs outside
 * the sandbox, in a workspace that is not the host's working directory (so srt's own list, which
 * follows the host's cwd, covers none of it): a hook in `.git/hooks`, the repository's config, a
 * redirecting `commondir` (absent at spawn), a submodule's hook, and a hook in the configured
 * `core.hooksPath` (`.husky`, absent at spawn). Every write fails, the ordinary file's
 * too (the workspace is read-only to the sidecar: the host performs its writes), no `.husky` is
 * made, and the host's real `git status` and `git commit` run nothing planted (the marker stays
 * absent).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { describeAttack } from '../../../../test/support/attack.js';
import { hostGitFor } from '../commands/host-git.js';
import { probeSandboxPerFile, runSandboxProbe } from '../support/sandbox-probe.js';
import { makeTempDir } from '@bastion/test-support';

const PROBE = fileURLToPath(new URL('./fixtures/write-probe.mjs', import.meta.url));

const sandbox = probeSandboxPerFile();
// Made before the tests, not as the file is read: a run whose filter skips them all (-t) runs no
// hook, and the setup file's removal would not see it.
let root = '';
let home = '';
let userData = '';
let workspace = '';
let marker = '';
const hostGit = hostGitFor(
  () => home,
  () => marker,
);

beforeAll(() => {
  root = makeTempDir('bastion-sidecar-git-');
  home = join(root, 'home');
  userData = join(root, 'userdata');
  workspace = join(root, 'workspace');
  marker = join(root, 'outside', 'PWNED');
  for (const dir of [home, userData, join(root, 'outside')]) mkdirSync(dir, { recursive: true, mode: 0o700 });
});

describeAttack('git-escape', 'the sidecar writing what the host’s git reads', () => {
  it('cannot plant a hook, config, commondir or submodule hook in any git directory, nor keep a hook in a configured `.husky` absent at spawn', async () => {
    const upstream = join(root, 'outside', 'upstream');
    hostGit.init(upstream);
    hostGit.init(workspace);
    hostGit(workspace, ['submodule', '-q', 'add', upstream, 'sub']);
    hostGit(workspace, ['commit', '-q', '-m', 'submodule']);
    hostGit(workspace, ['config', 'core.hooksPath', '.husky']);
    const config = readFileSync(join(workspace, '.git', 'config'));
    const hook = `#!/bin/sh\ntouch '${marker}'\n`;
    const attempts = [
      join(workspace, '.git', 'hooks', 'pre-commit'),
      join(workspace, '.git', 'config'),
      join(workspace, '.git', 'commondir'),
      join(workspace, '.git', 'modules', 'sub', 'hooks', 'pre-commit'),
      join(workspace, '.husky', 'pre-commit'),
      join(workspace, 'notes.txt'),
    ];
    const launcher = sandbox.launcher({ home, userData, workspace });
    const { result } = await runSandboxProbe<Record<string, { ok: boolean }>>(
      launcher,
      PROBE,
      attempts.map((path) => ({ path, text: path.endsWith('config') ? '[core]\n\tfsmonitor = x\n' : hook })),
    );
    // The workspace is read-only to the sidecar: every write fails, the ordinary file's too (the
    // host performs the sidecar's writes), and a `.husky` absent at spawn cannot even be made.
    for (const path of attempts) expect(result[path]?.ok, path).toBe(false);
    expect(result[join(workspace, 'notes.txt')]).toEqual({ ok: false, detail: 'EROFS' });
    expect(readFileSync(join(workspace, '.git', 'config'))).toEqual(config);
    for (const path of attempts) if (!path.endsWith('config')) expect(existsSync(path), path).toBe(false);
    expect(existsSync(join(workspace, '.husky'))).toBe(false);
    hostGit.expectNothingPlantedRuns([workspace, join(workspace, 'sub')]);
  });
});
