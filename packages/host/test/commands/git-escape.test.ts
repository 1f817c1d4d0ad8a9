/**
 * git-escape: a sandboxed run_command writes where the user's own git (run later on the host,
 * unsandboxed) reads code or directions from — a redirecting `commondir`, per-worktree config,
 * a configured hooks directory, an include target, a nested repository's or submodule's config,
 * a `.git` pointer, a linked worktree's metadata. Afterwards the host's real `git status` and
 * `git commit` run in every repository and no planted code runs (the marker outside the
 * workspace stays absent); the protected files keep their bytes. Ordinary git work still runs
 * inside the sandbox.
 */
import { GIT_REPOSITORY_SCAN_MAX_ENTRIES } from '@bastion/protocol';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { describeAttack } from '../../../../test/support/attack.js';
import { acquireSrtSession, type SrtSession } from '../../src/sandbox/srt-session.js';
import { holdsNothingWritten, makeCommandWorld, makeTempDir, type CommandWorld } from './command-harness.js';
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
  await world?.executor.close();
  await srt?.release();
  process.env.HOME = realHome;
});

beforeEach(() => {
  for (const entry of readdirSync(world.workspace))
    rmSync(join(world.workspace, entry), { recursive: true, force: true });
  for (const dir of ['wt', 'upstream']) rmSync(join(world.outside, dir), { recursive: true, force: true });
  rmSync(marker, { force: true });
});

/** The workspace as a repository with the submodule `sub`, committed; returns the submodule's upstream (outside the workspace). */
function initWithSubmodule(): string {
  const upstream = join(world.outside, 'upstream');
  hostGit.init(upstream);
  hostGit.init(world.workspace);
  hostGit(world.workspace, ['submodule', '-q', 'add', upstream, 'sub']);
  hostGit(world.workspace, ['commit', '-q', '-m', 'submodule']);
  return upstream;
}

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
    expect(holdsNothingWritten(join(world.workspace, '.git', 'config.worktree'))).toBe(true);
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
    initWithSubmodule();
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
    expect(holdsNothingWritten(join(meta, 'config.worktree'))).toBe(true);
    hostGit.expectNothingPlantedRuns([world.workspace, linked]);
  });

  it("cannot point git at another object store (`objects/info/alternates`, `http-alternates`), the repository's or a submodule's", async () => {
    const upstream = initWithSubmodule();
    const stores = [join(world.workspace, '.git'), join(world.workspace, '.git', 'modules', 'sub')].flatMap((gitDir) =>
      ['alternates', 'http-alternates'].map((name) => join(gitDir, 'objects', 'info', name)),
    );
    const output = await sandboxed(
      stores.map((path) => `echo '${join(upstream, '.git', 'objects')}' > '${path}'`).join('; '),
    );
    expect(output.match(/Read-only file system|Permission denied/g)).toHaveLength(stores.length);
    for (const path of stores) expect(existsSync(path) ? readFileSync(path, 'utf8') : '').toBe('');
    hostGit.expectNothingPlantedRuns([world.workspace, join(world.workspace, 'sub')]);
  });

  it('cannot create an absent `config`, `objects/info/alternates` or `http-alternates` by writing, appending, moving, linking or removing; on the host each is absent or empty after the command (the wrap cache may keep its mount point)', async () => {
    hostGit.init(world.workspace);
    const gitDir = join(world.workspace, '.git');
    rmSync(join(gitDir, 'config'));
    const placeholders = [
      join(gitDir, 'config'),
      ...['alternates', 'http-alternates'].map((name) => join(gitDir, 'objects', 'info', name)),
    ];
    const attempts = placeholders.flatMap((path) => [
      `echo '${evilConfig('hooks')}' > '${path}'`,
      `echo more >> '${path}'`,
      `echo evil > planted && mv -f planted '${path}'`,
      `ln -sf '${marker}' '${path}'`,
      `rm -f '${path}'`,
    ]);
    const output = await sandboxed(attempts.map((attempt) => `{ ${attempt}; } 2>/dev/null || echo refused`).join('\n'));
    expect(output.match(/^refused$/gm)).toHaveLength(attempts.length);
    for (const path of placeholders) expect(holdsNothingWritten(path)).toBe(true);
    hostGit.expectNothingPlantedRuns([world.workspace]);
  });

  it('cannot write, append to or remove the empty file the placeholders are bound from, even where srt makes it in a directory the command may write; a placeholder still reads empty after', async () => {
    hostGit.init(world.workspace);
    /** The name of the file the placeholder at `.git/objects/info/alternates` of `repository` is bound from (the mount's root). */
    const sourceName = (repository: string) =>
      `name=$(awk '$5 == "${join(repository, '.git', 'objects', 'info', 'alternates')}" { print $4; exit }' /proc/self/mountinfo); name=\${name##*/}; echo "name=$name"`;
    const nameIn = (output: string) => /^name=(claude-empty-file-[0-9a-f]+)$/m.exec(output)?.[1];
    // srt makes it in its temp dir, which no command may write under Bastion (a host's root, or
    // the system temp dir). Removed there, the next one is made in the workspace, where only its
    // read-only pin protects it.
    const first = join(tmpdir(), nameIn(await sandboxed(sourceName(world.workspace))) ?? 'none');
    expect(existsSync(first)).toBe(true);
    rmSync(first);
    const writableTemp = join(world.workspace, 'srt-temp');
    mkdirSync(writableTemp);
    // A repository whose placeholders are not made yet (the kept wrap keeps the first one's).
    const second = join(world.workspace, 'second');
    hostGit.init(second);
    const realTemp = process.env.TMPDIR;
    process.env.TMPDIR = writableTemp;
    let output: string;
    try {
      output = await sandboxed(
        [
          sourceName(second),
          `source='${writableTemp}'/$name`,
          'for attempt in write append remove; do',
          '  case $attempt in',
          '    write) { echo evil > "$source"; } 2>/dev/null ;;',
          '    append) { echo evil >> "$source"; } 2>/dev/null ;;',
          '    remove) rm "$source" 2>/dev/null ;;',
          '  esac && echo "$attempt went through" || echo "$attempt refused"',
          'done',
          'echo "placeholder holds $(wc -c < second/.git/objects/info/alternates) bytes"',
        ].join('\n'),
      );
    } finally {
      if (realTemp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = realTemp;
    }
    const source = join(writableTemp, nameIn(output) ?? 'none');
    expect(output).toContain('write refused');
    expect(output).toContain('append refused');
    expect(output).toContain('remove refused');
    expect(output).toContain('placeholder holds 0 bytes');
    expect(readFileSync(source, 'utf8')).toBe('');
  });

  it('cannot write the config or hooks of a repository nested eight levels deep (the scan has no depth limit)', async () => {
    hostGit.init(world.workspace);
    const deep = join(world.workspace, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'deep');
    hostGit.init(deep);
    const protectedFiles = [join(deep, '.git', 'config')];
    const before = bytesOf(protectedFiles);
    const output = await sandboxed(
      [
        `printf '%s' '${evilConfig('hooks')}' >> a/b/c/d/e/f/g/deep/.git/config`,
        `printf '#!/bin/sh\\n%s\\n' "touch '${marker}'" > a/b/c/d/e/f/g/deep/.git/hooks/pre-commit`,
        'echo changed > a/b/c/d/e/f/g/deep/README',
      ].join('; '),
    );
    expect(output).toContain('Read-only file system');
    expect(bytesOf(protectedFiles)).toEqual(before);
    expect(existsSync(join(deep, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(readFileSync(join(deep, 'README'), 'utf8')).toBe('changed\n');
    hostGit.expectNothingPlantedRuns([deep]);
  });

  it('a workspace too large to scan whole (over GIT_REPOSITORY_SCAN_MAX_ENTRIES) runs the command read-only, and its result says so', async () => {
    hostGit.init(world.workspace);
    const big = join(world.workspace, 'big');
    mkdirSync(big);
    for (let i = 0; i <= GIT_REPOSITORY_SCAN_MAX_ENTRIES; i += 1) closeSync(openSync(join(big, String(i)), 'w'));
    const config = bytesOf([join(world.workspace, '.git', 'config')]);
    const run = world.run('sh', ['-c', `printf '%s' '${evilConfig('hooks')}' > .git/config; echo x > new-file`]);
    const frame = await run.done;
    expect(run.text()).toContain('Read-only file system');
    expect(frame.type === 'command.end' ? frame.notices : undefined).toEqual([
      expect.stringContaining(`more than ${GIT_REPOSITORY_SCAN_MAX_ENTRIES} entries`),
    ]);
    expect(existsSync(join(world.workspace, 'new-file'))).toBe(false);
    expect(bytesOf([join(world.workspace, '.git', 'config')])).toEqual(config);
  }, 120_000);
});

describe('ordinary git work inside the sandbox', () => {
  it('git add, commit, checkout and stash work inside a submodule and inside a linked worktree in the workspace', async () => {
    initWithSubmodule();
    hostGit(world.workspace, ['worktree', 'add', '-q', '-b', 'side', 'linked']);
    const git = `git ${IDENTITY.join(' ')}`;
    const work = (dir: string) =>
      [
        `cd ${dir}`,
        `echo one > a.txt; ${git} add a.txt; ${git} commit -q -m add-a-${dir}`,
        `${git} checkout -q -b topic-${dir}; echo two > b.txt; ${git} add b.txt; ${git} commit -q -m add-b-${dir}`,
        `echo dirty >> a.txt; ${git} stash -q; ${git} stash pop -q; ${git} checkout -q -- a.txt`,
        `${git} log --format=%s | head -2`,
        'cd ..',
      ].join('\n');
    const output = await sandboxed(['set -e', work('sub'), work('linked'), 'echo all-done'].join('\n'));
    expect(output).toContain('all-done');
    expect(output).toMatch(/add-b-sub\nadd-a-sub/);
    expect(output).toMatch(/add-b-linked\nadd-a-linked/);
    expect(hostGit(join(world.workspace, 'sub'), ['log', '-1', '--format=%s'])).toBe('add-b-sub\n');
    expect(hostGit(join(world.workspace, 'linked'), ['log', '-1', '--format=%s'])).toBe('add-b-linked\n');
    hostGit.expectNothingPlantedRuns([world.workspace, join(world.workspace, 'sub'), join(world.workspace, 'linked')]);
  });

  it('git status and git log print no warning: the absent, denied `objects/info/alternates` reads as an empty regular file', async () => {
    hostGit.init(world.workspace);
    const output = await sandboxed(
      [
        'git status 2>&1',
        'git log --format=%s 2>&1',
        "test -f .git/objects/info/alternates && test ! -s .git/objects/info/alternates && echo 'an empty regular file'",
      ].join('\n'),
    );
    expect(output).toContain('first');
    expect(output).toContain('an empty regular file');
    expect(output).not.toMatch(/warning|denied|unable/i);
  });

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
