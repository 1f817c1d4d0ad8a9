/**
 * git-escape: a sandboxed run_command writes where the user's own git (run later on the host,
 * unsandboxed) reads code or directions from — a redirecting `commondir`, per-worktree config,
 * a configured hooks directory, an include target, a nested repository's or submodule's config,
 * a `.git` pointer, a linked worktree's metadata. Afterwards the host's real `git status` and
 * `git commit` run in every repository and no planted code runs (the marker outside the
 * workspace stays absent); the protected files keep their bytes. Ordinary git work still runs
 * inside the sandbox.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { describeAttack } from '../../../../test/support/attack.js';
import { acquireSrtSession, type SrtSession } from '../../src/sandbox/srt-session.js';
import { makeCommandWorld, makeTempDir, type CommandWorld } from './command-harness.js';
import { hostGitFor, IDENTITY } from './host-git.js';

let srt: SrtSession;
let world: CommandWorld;
let marker: string;
const realHome = process.env.HOME;
const hostGit = hostGitFor(
  () => world.home,
  () => marker,
);

beforeAll(async () => {
  const root = makeTempDir('bastion-git-escape-');
  process.env.HOME = join(root, 'home');
  srt = await acquireSrtSession();
  world = makeCommandWorld({ srt, root });
  marker = join(world.outside, 'PWNED');
}, 60_000);

afterAll(async () => {
  await srt?.release();
  process.env.HOME = realHome;
});

beforeEach(() => {
  for (const entry of readdirSync(world.workspace))
    rmSync(join(world.workspace, entry), { recursive: true, force: true });
  rmSync(join(world.outside, 'wt'), { recursive: true, force: true });
  rmSync(marker, { force: true });
});

/** Code the attacker wants the host to run: it leaves the marker outside the workspace. */
const payload = () => `touch '${marker}'`;
/** A config file that runs the payload on `git status` (fsmonitor) and on `git commit` (hooks dir). */
const evilConfig = (hooksDir: string) => `[core]\n\tfsmonitor = "${payload()}; false"\n\thooksPath = ${hooksDir}\n`;

/** Run `script` sandboxed in the workspace; returns its output. */
async function sandboxed(script: string): Promise<string> {
  const run = world.run('sh', ['-c', script]);
  await run.done;
  return run.text();
}

function bytesOf(paths: string[]): (Buffer | undefined)[] {
  return paths.map((path) => (existsSync(path) ? readFileSync(path) : undefined));
}

/** Leaves `<workspace>/evil` as a complete common directory whose config and hooks run the payload. */
const plantEvilCommonDir = [
  'mkdir -p evil/hooks evil/refs',
  'cp -r .git/objects evil/objects',
  'cp -r .git/refs/. evil/refs/',
  'cp .git/HEAD evil/HEAD',
  `printf '%s' '${evilConfig('hooks').replaceAll("'", "'\\''")}' > evil/config`,
  `printf '#!/bin/sh\\n${payload().replaceAll("'", "'\\''")}\\n' > evil/hooks/pre-commit`,
  'chmod +x evil/hooks/pre-commit',
].join('; ');

describeAttack('git-escape', 'run_command writing what the host’s git reads', () => {
  it('cannot redirect the repository with `.git/commondir`; no pin is left after the command', async () => {
    hostGit.init(world.workspace);
    const output = await sandboxed(`${plantEvilCommonDir}; echo ../evil > .git/commondir; cat .git/commondir`);
    expect(output).toContain('Read-only file system');
    expect(existsSync(join(world.workspace, '.git', 'commondir'))).toBe(false);
    hostGit.expectNothingPlantedRuns([world.workspace]);
  });

  it('cannot write `.git/config.worktree` of a repository with worktree config on', async () => {
    hostGit.init(world.workspace);
    hostGit(world.workspace, ['config', 'extensions.worktreeConfig', 'true']);
    await sandboxed(`printf '%s' '${evilConfig('.git/hooks')}' > .git/config.worktree`);
    expect(existsSync(join(world.workspace, '.git', 'config.worktree'))).toBe(false);
    hostGit.expectNothingPlantedRuns([world.workspace]);
  });

  it('cannot plant a hook in the configured core.hooksPath (.husky), existing or not', async () => {
    hostGit.init(world.workspace);
    hostGit(world.workspace, ['config', 'core.hooksPath', '.husky']);
    const hook = `#!/bin/sh\n${payload()}\n`;
    await sandboxed(`mkdir -p .husky; printf '%s' '${hook}' > .husky/pre-commit; chmod +x .husky/pre-commit`);
    expect(existsSync(join(world.workspace, '.husky', 'pre-commit'))).toBe(false);
    mkdirSync(join(world.workspace, '.husky'));
    await sandboxed(`printf '%s' '${hook}' > .husky/pre-commit; chmod +x .husky/pre-commit`);
    expect(existsSync(join(world.workspace, '.husky', 'pre-commit'))).toBe(false);
    hostGit.expectNothingPlantedRuns([world.workspace]);
  });

  it("cannot plant a script husky 9's `.husky/_` stubs would run from `.husky/`", async () => {
    hostGit.init(world.workspace);
    mkdirSync(join(world.workspace, '.husky', '_'), { recursive: true });
    writeFileSync(
      join(world.workspace, '.husky', '_', 'pre-commit'),
      '#!/bin/sh\n[ ! -f .husky/pre-commit ] || sh .husky/pre-commit\n',
      {
        mode: 0o755,
      },
    );
    hostGit(world.workspace, ['config', 'core.hooksPath', '.husky/_']);
    await sandboxed(`printf '#!/bin/sh\\n%s\\n' "touch '${marker}'" > .husky/pre-commit`);
    expect(existsSync(join(world.workspace, '.husky', 'pre-commit'))).toBe(false);
    hostGit.expectNothingPlantedRuns([world.workspace]);
  });

  it('cannot write a config file the repository config includes (`include.path`, `includeIf`), even before it exists', async () => {
    hostGit.init(world.workspace);
    hostGit(world.workspace, ['config', 'include.path', '../.gitconfig.local']);
    hostGit(world.workspace, ['config', 'includeIf.onbranch:evil.path', '../tools/branch.gitconfig']);
    mkdirSync(join(world.workspace, 'tools'));
    await sandboxed(
      `printf '%s' '${evilConfig('.git/hooks')}' > .gitconfig.local; printf '%s' '${evilConfig('.git/hooks')}' > tools/branch.gitconfig; git ${IDENTITY.join(' ')} checkout -q -b evil`,
    );
    expect(existsSync(join(world.workspace, '.gitconfig.local'))).toBe(false);
    expect(existsSync(join(world.workspace, 'tools', 'branch.gitconfig'))).toBe(false);
    hostGit.expectNothingPlantedRuns([world.workspace]);
  });

  it("cannot write a nested repository's config or hooks (the top repository's `git status` enters it)", async () => {
    hostGit.init(world.workspace);
    const nested = join(world.workspace, 'vendor', 'lib');
    hostGit.init(nested);
    hostGit(world.workspace, ['add', 'vendor/lib']);
    hostGit(world.workspace, ['commit', '-q', '-m', 'vendor']);
    const protectedFiles = [join(nested, '.git', 'config')];
    const before = bytesOf(protectedFiles);
    await sandboxed(
      [
        `printf '%s' '${evilConfig('hooks')}' >> vendor/lib/.git/config`,
        `mkdir -p vendor/lib/.git/hooks; printf '#!/bin/sh\\n%s\\n' "touch '${marker}'" > vendor/lib/.git/hooks/pre-commit`,
        'echo ../../evil > vendor/lib/.git/commondir',
        'echo changed > vendor/lib/README',
      ].join('; '),
    );
    expect(bytesOf(protectedFiles)).toEqual(before);
    expect(existsSync(join(nested, '.git', 'hooks', 'pre-commit'))).toBe(false);
    hostGit.expectNothingPlantedRuns([world.workspace, nested]);
  });

  it("cannot write a submodule's git directory (`.git/modules/*`) nor repoint its `.git` file", async () => {
    const upstream = join(world.outside, 'upstream');
    rmSync(upstream, { recursive: true, force: true });
    hostGit.init(upstream);
    hostGit.init(world.workspace);
    hostGit(world.workspace, ['submodule', '-q', 'add', upstream, 'sub']);
    hostGit(world.workspace, ['commit', '-q', '-m', 'submodule']);
    const protectedFiles = [
      join(world.workspace, '.git', 'modules', 'sub', 'config'),
      join(world.workspace, 'sub', '.git'),
    ];
    const before = bytesOf(protectedFiles);
    await sandboxed(
      [
        `printf '%s' '${evilConfig('hooks')}' >> .git/modules/sub/config`,
        `printf '#!/bin/sh\\n%s\\n' "touch '${marker}'" > .git/modules/sub/hooks/pre-commit`,
        plantEvilCommonDir,
        'echo "gitdir: ../evil" > sub/.git',
        'echo changed > sub/README',
      ].join('; '),
    );
    expect(bytesOf(protectedFiles)).toEqual(before);
    hostGit.expectNothingPlantedRuns([world.workspace, join(world.workspace, 'sub')]);
    rmSync(upstream, { recursive: true, force: true });
  });

  it("cannot write a linked worktree's metadata (`.git/worktrees/*`: commondir, config.worktree, gitdir)", async () => {
    hostGit.init(world.workspace);
    const linked = join(world.outside, 'wt');
    hostGit(world.workspace, ['worktree', 'add', '-q', linked]);
    const meta = join(world.workspace, '.git', 'worktrees', 'wt');
    const protectedFiles = ['commondir', 'gitdir', 'HEAD'].map((name) => join(meta, name));
    const before = bytesOf(protectedFiles);
    await sandboxed(
      [
        plantEvilCommonDir,
        'echo ../../../evil > .git/worktrees/wt/commondir',
        `printf '%s' '${evilConfig('hooks')}' > .git/worktrees/wt/config.worktree`,
      ].join('; '),
    );
    expect(bytesOf(protectedFiles)).toEqual(before);
    expect(existsSync(join(meta, 'config.worktree'))).toBe(false);
    hostGit.expectNothingPlantedRuns([world.workspace, linked]);
  });
});

describe('ordinary git work inside the sandbox', () => {
  it('git add, commit, checkout, stash and rebase all work, and leave no pin behind', async () => {
    hostGit.init(world.workspace);
    const git = `git ${IDENTITY.join(' ')}`;
    const output = await sandboxed(
      [
        'set -e',
        `echo one > a.txt; ${git} add a.txt; ${git} commit -q -m add-a`,
        `${git} checkout -q -b feature; echo two > b.txt; ${git} add b.txt; ${git} commit -q -m add-b`,
        `${git} checkout -q main; echo three > c.txt; ${git} add c.txt; ${git} commit -q -m add-c`,
        `echo dirty >> a.txt; ${git} stash -q; ${git} stash list | wc -l; ${git} stash pop -q`,
        `${git} checkout -q -- a.txt; ${git} checkout -q feature; ${git} rebase -q main`,
        `${git} log --format=%s`,
        'echo all-done',
      ].join('\n'),
    );
    expect(output).toContain('all-done');
    expect(output).toMatch(/add-b\nadd-c\nadd-a\nfirst/);
    expect(existsSync(join(world.workspace, '.git', 'commondir'))).toBe(false);
    expect(hostGit(world.workspace, ['status', '--porcelain'])).toBe('');
  });
});
