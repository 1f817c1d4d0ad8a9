/**
 * git-escape through a repository the command itself creates: during that command its config and
 * hooks are not write-protected (they did not exist at wrap time), so a command can `git init` or
 * clone a repository, or point a `.git` file at a git directory in its scratch dir, fill its
 * config and hooks with code and stage it in the top repository as a gitlink; the host's own
 * `git status` then enters it. Afterwards the host's real `git status` and `git commit` run in
 * every repository and no planted code runs (the marker outside the workspace stays absent); the
 * command's result says what was neutralised and where the originals were kept. Also: a rebase
 * todo list with `exec` lines the command plants in an existing repository is named in the result.
 * Repositories that existed at wrap time are left exactly as they were, and ordinary work in a new
 * sub-repository goes on across commands.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { scratchDirOf } from '@bastion/protocol';
import { waitFor } from '@bastion/test-support';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { describeAttack } from '../../../../test/support/attack.js';
import { acquireSrtSession, type SrtSession } from '../../src/sandbox/srt-session.js';
import { makeCommandWorld, makeTempDir, processesWith, type CommandWorld } from './command-harness.js';
import { hostGitFor, IDENTITY } from './host-git.js';

let srt: SrtSession;
let world: CommandWorld;
let marker: string;
let scratch: string;
const realHome = process.env.HOME;
const hostGit = hostGitFor(
  () => world.home,
  () => marker,
);
const GIT = `git ${IDENTITY.join(' ')}`;

beforeAll(async () => {
  const root = makeTempDir('bastion-git-created-');
  process.env.HOME = join(root, 'home');
  srt = await acquireSrtSession();
  world = makeCommandWorld({ srt, root });
  marker = join(world.outside, 'PWNED');
  scratch = scratchDirOf(world.userData, 'ses_minexx0001');
}, 60_000);

afterAll(async () => {
  await world?.executor.close();
  await srt?.release();
  process.env.HOME = realHome;
});

beforeEach(() => {
  for (const dir of [world.workspace, join(world.userData, 'host', 'quarantine')]) {
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { recursive: true, force: true });
  }
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true, mode: 0o700 });
  rmSync(marker, { force: true });
});

const payload = () => `touch '${marker}'`;
/** Shell that makes `gitDir`'s config run the payload on `git status` and `git commit`, and plants a hook. */
const plantIn = (gitDir: string) =>
  [
    `${GIT} --git-dir='${gitDir}' config core.fsmonitor "${payload()}; false"`,
    `${GIT} --git-dir='${gitDir}' config diff.evil.textconv "${payload()}; cat"`,
    `printf '#!/bin/sh\\n%s\\n' "${payload()}" > '${gitDir}/hooks/pre-commit'`,
    `chmod +x '${gitDir}/hooks/pre-commit'`,
  ].join('; ');

async function sandboxed(script: string) {
  const run = world.run('sh', ['-c', `set -e\n${script}`]);
  const frame = await run.done;
  return { frame, text: run.text() };
}

/** The user's `git status` in `dir` (the host's git): a bare repository may refuse it, what matters is what it ran. */
function statusIgnoringFailure(dir: string): void {
  try {
    hostGit(dir, ['status', '--porcelain']);
  } catch {
    // `fatal: this operation must be run in a work tree`: nothing ran.
  }
}

function noticesOf(frame: Awaited<ReturnType<typeof sandboxed>>['frame']): string[] {
  expect(frame.type).toBe('command.end');
  return frame.type === 'command.end' ? (frame.notices ?? []) : [];
}

describeAttack('git-escape', 'run_command creating a repository the host’s git then enters', () => {
  it('`git init sub` with planted config and hooks, staged as a gitlink: the host’s git runs none of it', async () => {
    hostGit.init(world.workspace);
    const { frame } = await sandboxed(
      [
        'mkdir sub',
        `${GIT} init -q -b main sub`,
        'echo x > sub/a; git -C sub add a',
        `${GIT} -C sub commit -q -m sub`,
        plantIn('sub/.git'),
        'echo "a diff=evil" > sub/.gitattributes',
        `${GIT} add sub`,
      ].join('\n'),
    );
    expect(existsSync(marker)).toBe(false);
    hostGit.expectNothingPlantedRuns([world.workspace, join(world.workspace, 'sub')]);
    hostGit(join(world.workspace, 'sub'), ['log', '-p']);
    expect(existsSync(marker)).toBe(false);
    const notices = noticesOf(frame);
    expect(notices.join('\n')).toContain(join(world.workspace, 'sub', '.git'));
    expect(notices.join('\n')).toContain(join(world.userData, 'host', 'quarantine'));
    // The originals are kept, private to the user.
    const quarantine = join(world.userData, 'host', 'quarantine');
    expect(statSync(quarantine).mode & 0o777).toBe(0o700);
    const [kept] = readdirSync(quarantine);
    const keptFiles = readdirSync(join(quarantine, kept as string), { recursive: true, withFileTypes: true });
    expect(keptFiles.filter((entry) => entry.isFile()).length).toBeGreaterThanOrEqual(2);
    for (const entry of keptFiles)
      expect(statSync(join(entry.parentPath, entry.name)).mode & 0o777).toBe(entry.isFile() ? 0o600 : 0o700);
  });

  it('a clone from a local path, and a new top repository with a new submodule: neither runs planted code', async () => {
    const upstream = join(world.workspace, 'upstream');
    hostGit.init(upstream);
    rmSync(join(upstream, '.git'), { recursive: true });
    const { frame } = await sandboxed(
      [
        `${GIT} init -q -b main upstream; ${GIT} -C upstream add README; ${GIT} -C upstream commit -q -m up`,
        `${GIT} init -q -b main .`,
        `${GIT} -c protocol.file.allow=always submodule -q add ./upstream mod`,
        `${GIT} clone -q ./upstream cloned`,
        plantIn('.git'),
        plantIn('.git/modules/mod'),
        plantIn('cloned/.git'),
        `${GIT} add cloned upstream`,
        `${GIT} commit -q -m all`,
      ].join('\n'),
    );
    hostGit.expectNothingPlantedRuns(['', 'mod', 'cloned', 'upstream'].map((dir) => join(world.workspace, dir)));
    expect(noticesOf(frame).length).toBeGreaterThanOrEqual(3);
  });

  it.each([
    ['a `.git` file whose `gitdir:` points', ''],
    ['a `.git` symlink', 'rm sub/.git; ln -s "$GIT_DIR_PLANTED" sub/.git'],
  ])('%s to a git directory in the scratch dir: the target is neutralised too', async (_, relink) => {
    hostGit.init(world.workspace);
    const gitDir = join(scratch, 'g');
    const { frame } = await sandboxed(
      [
        `GIT_DIR_PLANTED='${gitDir}'`,
        `${GIT} init -q -b main --separate-git-dir='${gitDir}' sub`,
        relink,
        'echo x > sub/a',
        `${GIT} -C sub add a; ${GIT} -C sub commit -q -m sub`,
        plantIn(gitDir),
        `${GIT} add sub`,
      ].join('\n'),
    );
    hostGit.expectNothingPlantedRuns([world.workspace, join(world.workspace, 'sub')]);
    expect(noticesOf(frame).join('\n')).toContain(gitDir);
  });

  it('repositories planted in `node_modules` (a package’s, a scoped one’s, a nested package’s), one staged as a gitlink with `-f`: the host’s git at the top and in each package runs none of it', async () => {
    hostGit.init(world.workspace);
    writeFileSync(join(world.workspace, '.gitignore'), 'node_modules/\n');
    const packages = ['node_modules/left-pad', 'node_modules/@scope/pkg', 'node_modules/a/node_modules/b'];
    const { frame } = await sandboxed(
      [
        ...packages.map((dir) =>
          [
            `mkdir -p ${dir}; ${GIT} init -q -b main ${dir}`,
            `echo x > ${dir}/index.js; git -C ${dir} add index.js; ${GIT} -C ${dir} commit -q -m p`,
            plantIn(`${dir}/.git`),
          ].join('; '),
        ),
        `${GIT} add -f node_modules/left-pad`,
      ].join('\n'),
    );
    hostGit.expectNothingPlantedRuns([world.workspace, ...packages.map((dir) => join(world.workspace, dir))]);
    const notices = noticesOf(frame).join('\n');
    for (const dir of packages) expect(notices).toContain(join(world.workspace, dir, '.git'));
  });

  it('a repository in `node_modules` that existed at wrap time: its config and hooks are write-protected', async () => {
    const dependency = join(world.workspace, 'node_modules', 'dep');
    hostGit.init(dependency);
    const config = readFileSync(join(dependency, '.git', 'config'));
    const { text } = await sandboxed(
      [
        `${GIT} -C node_modules/dep config core.fsmonitor "${payload()}; false" 2>/dev/null || echo config-refused`,
        `echo x > node_modules/dep/.git/hooks/pre-commit 2>/dev/null || echo hook-refused`,
      ].join('\n'),
    );
    expect(text).toContain('config-refused');
    expect(text).toContain('hook-refused');
    expect(readFileSync(join(dependency, '.git', 'config'))).toEqual(config);
    hostGit.expectNothingPlantedRuns([dependency]);
  });

  it('`git init --bare lib` given core.fsmonitor, core.worktree .. and core.bare false: neutralised after the command (neither key left, the result names lib), and the host’s git status in lib runs nothing', async () => {
    hostGit.init(world.workspace);
    const lib = join(world.workspace, 'lib');
    const { frame } = await sandboxed(
      [
        `${GIT} init -q --bare lib`,
        `${GIT} --git-dir=lib config core.fsmonitor "${payload()}; false"`,
        `${GIT} --git-dir=lib config core.worktree ..`,
        `${GIT} --git-dir=lib config core.bare false`,
      ].join('\n'),
    );
    const config = readFileSync(join(lib, 'config'), 'utf8');
    expect(config).not.toMatch(/fsmonitor|worktree/i);
    expect(noticesOf(frame).join('\n')).toContain(`git repository ${lib},`);
    statusIgnoringFailure(lib);
    expect(existsSync(marker)).toBe(false);
  });

  it('a bare repository that existed at wrap time (`git init --bare lib`): its config and hooks are write-protected, and the host’s git status in lib runs nothing', async () => {
    hostGit.init(world.workspace);
    const lib = join(world.workspace, 'lib');
    hostGit(world.workspace, ['init', '-q', '--bare', 'lib']);
    const config = readFileSync(join(lib, 'config'));
    const { text } = await sandboxed(
      [
        `${GIT} --git-dir=lib config core.fsmonitor "${payload()}; false" 2>/dev/null || echo config-refused`,
        `echo '[core] worktree = ..' >> lib/config 2>/dev/null || echo append-refused`,
        `echo x > lib/hooks/post-checkout 2>/dev/null || echo hook-refused`,
      ].join('\n'),
    );
    expect(text).toContain('config-refused');
    expect(text).toContain('append-refused');
    expect(text).toContain('hook-refused');
    expect(readFileSync(join(lib, 'config'))).toEqual(config);
    expect(existsSync(join(lib, 'hooks', 'post-checkout'))).toBe(false);
    statusIgnoringFailure(lib);
    expect(existsSync(marker)).toBe(false);
  });

  it('a symlinked `.git` that existed at wrap time: its config and hooks are write-protected like any other', async () => {
    hostGit.init(world.workspace);
    const gitDir = join(scratch, 'linked');
    hostGit(world.workspace, ['init', '-q', '--separate-git-dir', gitDir, 'sub']);
    rmSync(join(world.workspace, 'sub', '.git'));
    symlinkSync(gitDir, join(world.workspace, 'sub', '.git'));
    hostGit(join(world.workspace, 'sub'), ['commit', '-q', '--allow-empty', '-m', 'sub']);
    hostGit(world.workspace, ['add', 'sub']);
    const config = readFileSync(join(gitDir, 'config'));
    const { text } = await sandboxed(
      plantIn(gitDir)
        .split('; ')
        .map((step) => `${step} || true`)
        .join('\n'),
    );
    expect(text).toContain('could not write config file');
    expect(readFileSync(join(gitDir, 'config'))).toEqual(config);
    expect(existsSync(join(gitDir, 'hooks', 'pre-commit'))).toBe(false);
    hostGit.expectNothingPlantedRuns([world.workspace, join(world.workspace, 'sub')]);
  });

  it('a helper process the command leaves running dies with its sandbox: it is gone before it could plant, and nothing planted runs', async () => {
    hostGit.init(world.workspace);
    // The helper's subshell and its sleep carry the tag in their command lines; it plants after ~2 s.
    // The command ends only once the test has seen the helper running (it writes `.helper-seen`).
    const tag = `2.${Math.floor(Math.random() * 1e6)}4747`;
    const run = world.run('sh', [
      '-c',
      [
        'set -e',
        `${GIT} init -q -b main sub; echo x > sub/a; ${GIT} -C sub add a; ${GIT} -C sub commit -q -m sub; ${GIT} add sub`,
        `(sleep ${tag}; ${plantIn('sub/.git')}) </dev/null >/dev/null 2>&1 &`,
        'until [ -e .helper-seen ]; do sleep 0.05; done; rm .helper-seen',
      ].join('\n'),
    ]);
    await waitFor(() => processesWith(`sleep ${tag}`).length > 0, 10_000, 'the helper to start');
    writeFileSync(join(world.workspace, '.helper-seen'), '');
    expect((await run.done).type).toBe('command.end');
    // Had the helper outlived its sandbox, it would plant and only then exit: the check below would see it run.
    await waitFor(() => processesWith(tag).length === 0, 10_000, 'the helper to be gone');
    hostGit.expectNothingPlantedRuns([world.workspace, join(world.workspace, 'sub')]);
  });

  it('a git directory made by hand under `.git/modules/`, then `git submodule update --init` by the host: it runs none of it', async () => {
    const upstream = join(world.outside, 'upstream');
    rmSync(upstream, { recursive: true, force: true });
    hostGit.init(upstream);
    const head = hostGit(upstream, ['rev-parse', 'HEAD']).trim();
    hostGit.init(world.workspace);
    const moduleDir = '.git/modules/evil';
    const { frame } = await sandboxed(
      [
        `mkdir -p .git/modules; cp -r '${join(upstream, '.git')}' ${moduleDir}`,
        `${GIT} --git-dir=${moduleDir} config core.bare false`,
        plantIn(moduleDir),
        `cp ${moduleDir}/hooks/pre-commit ${moduleDir}/hooks/post-checkout`,
        `printf '[submodule "evil"]\\n\\tpath = evil\\n\\turl = ${upstream}\\n' > .gitmodules`,
        `${GIT} update-index --add --cacheinfo 160000,${head},evil`,
        `${GIT} add .gitmodules; ${GIT} commit -q -m evil`,
      ].join('\n'),
    );
    expect(noticesOf(frame).join('\n')).toContain(join(world.workspace, '.git', 'modules', 'evil'));
    hostGit(world.workspace, ['submodule', '-q', 'update', '--init']);
    hostGit.expectNothingPlantedRuns([world.workspace, join(world.workspace, 'evil')]);
    rmSync(upstream, { recursive: true, force: true });
  });

  it('an `exec` line planted in an existing repository’s rebase todo is named in the result', async () => {
    hostGit.init(world.workspace);
    const { frame } = await sandboxed(
      [
        'mkdir -p .git/rebase-merge .git/sequencer',
        `printf 'pick 0000000 first\\nexec ${payload()}\\n' > .git/rebase-merge/git-rebase-todo`,
        `printf 'x ${payload()}\\n' > .git/sequencer/todo`,
      ].join('\n'),
    );
    const notices = noticesOf(frame).join('\n');
    expect(notices).toContain(join(world.workspace, '.git', 'rebase-merge', 'git-rebase-todo'));
    expect(notices).toContain(join(world.workspace, '.git', 'sequencer', 'todo'));
    expect(notices).toContain('exec');
  });
});

describe('repositories around a command that creates one', () => {
  it('a repository that existed at wrap time keeps its config and hooks byte for byte', async () => {
    hostGit.init(world.workspace);
    const nested = join(world.workspace, 'vendor');
    hostGit.init(nested);
    hostGit(nested, ['config', 'core.fsmonitor', 'false']);
    writeFileSync(join(nested, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const files = ['config', 'hooks/pre-commit'].map((name) => join(nested, '.git', name));
    const before = files.map((file) => readFileSync(file));
    const { frame } = await sandboxed(`${GIT} init -q sub`);
    expect(files.map((file) => readFileSync(file))).toEqual(before);
    expect(noticesOf(frame).join('\n')).not.toContain(nested + '/.git');
  });

  it('git init and commit in a new sub-repository, then the next command keeps using it', async () => {
    hostGit.init(world.workspace);
    const first = await sandboxed(
      [
        `${GIT} init -q -b main sub`,
        'git -C sub config user.name Agent; git -C sub config user.email agent@example.invalid',
        'git -C sub remote add origin https://example.invalid/r.git',
        'echo one > sub/a; git -C sub add a; git -C sub commit -q -m one',
      ].join('\n'),
    );
    // Nothing in it can run code: nothing to neutralise, nothing to report.
    expect(noticesOf(first.frame)).toEqual([]);
    const second = await sandboxed(
      [
        'echo two >> sub/a; git -C sub commit -q -am two',
        'git -C sub log --format="%an %s"',
        'git -C sub remote get-url origin',
        'git -C sub checkout -q -b topic; git -C sub status --porcelain; echo ok',
      ].join('\n'),
    );
    expect(second.text).toMatch(/Agent two\nAgent one\nhttps:\/\/example\.invalid\/r\.git\nok/);
  });
});
