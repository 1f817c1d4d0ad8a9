/**
 * Issue 15 §3: nothing of Bastion's in the user's workspace. With the host running from the
 * workspace (as `bastion start` does, so srt's own protections resolve against it), the
 * workspace's `git status --porcelain --ignored` and its directory listing are the same before,
 * while the real CLI's sandboxed sidecar runs, and after the host is killed with SIGKILL (the
 * sweep of a placeholder a killed host left inside `.git` is placeholder-warden.test.ts's). The
 * protections still hold for run_command children: what a command creates where a placeholder used to stop it is moved to
 * quarantine (and said so), a write under `.git/hooks` still fails, and an ordinary file stays.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeAttack } from '../../../../test/support/attack.js';
import { descendantPids } from '../../src/process-tree.js';
import { useCommandWorldInWorkspace } from '../commands/command-harness.js';
import { waitFor, makeTempDir } from '@bastion/test-support';
import { clisKilledAfterEachTest } from '../../../../test/support/per-test.js';
import { isRunning } from './process-tree.js';

const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...GIT_ENV } });
}

/** A repository with one commit, an ignored file, and no `.git/hooks` (srt denies it, absent or not). */
function makeRepository(dir: string): void {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q');
  writeFileSync(join(dir, 'README.md'), 'hello\n');
  writeFileSync(join(dir, '.gitignore'), 'build/\n');
  mkdirSync(join(dir, 'build'));
  writeFileSync(join(dir, 'build', 'out.txt'), 'ignored\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'first');
  rmSync(join(dir, '.git', 'hooks'), { recursive: true, force: true });
}

/** What the user sees: git's view (untracked and ignored included) and the folder and `.git` listings. */
function userView(dir: string): { status: string; entries: string[]; gitEntries: string[] } {
  return {
    status: git(dir, 'status', '--porcelain', '--ignored'),
    entries: readdirSync(dir).sort(),
    gitEntries: readdirSync(join(dir, '.git')).sort(),
  };
}

const startCliUntilReady = clisKilledAfterEachTest();

async function startCli(root: string, workspace: string): Promise<{ child: ChildProcess; hostPid: number }> {
  const { child, line } = await startCliUntilReady(
    ['start', '--json', '--no-open', '--home', join(root, 'data'), '--workspace', workspace],
    { ...process.env, HOME: join(root, 'home') },
  );
  const ready = JSON.parse(line) as { sandbox: string; pid: { host: number } };
  expect(ready.sandbox).toBe('srt');
  return { child, hostPid: ready.pid.host };
}

describe('the workspace under a running Bastion (real CLI, sandboxed sidecar)', { timeout: 120_000 }, () => {
  it('`git status --porcelain --ignored` and the listings, `.git`’s included, are identical before, during, after a SIGKILL of the host and after the next start (the sidecar’s sandbox denies `.git` whole: srt needs no placeholder there)', async () => {
    const root = makeTempDir('bastion-untouched-');
    mkdirSync(join(root, 'home'));
    const workspace = join(root, 'ws');
    makeRepository(workspace);
    const before = userView(workspace);

    const first = await startCli(root, workspace);
    expect(userView(workspace).status).toBe(before.status);
    expect(userView(workspace).entries).toEqual(before.entries);
    // The user's own tools can make what srt would have held with a placeholder.
    mkdirSync(join(workspace, '.vscode'));
    rmdirSync(join(workspace, '.vscode'));

    const tree = descendantPids(first.hostPid);
    first.child.kill('SIGKILL');
    await waitFor(() => tree.every((pid) => !isRunning(pid)), 15_000, 'the killed host’s sandbox to end');
    const afterKill = userView(workspace);
    expect(afterKill.status).toBe(before.status);
    expect(afterKill.entries).toEqual(before.entries);
    expect(afterKill.gitEntries).toEqual(before.gitEntries);

    const second = await startCli(root, workspace);
    const exited = new Promise((resolve) => second.child.once('exit', resolve));
    second.child.kill('SIGTERM');
    await exited;
    expect(userView(workspace)).toEqual(before);
  });
});

describeAttack(
  'path-traversal',
  'run_command cannot plant what a placeholder used to stop, and leaves no placeholder',
  () => {
    const suite = useCommandWorldInWorkspace('bastion-untouched-cmd-', (world) => makeRepository(world.workspace));

    const PLANTED = ['.vscode/settings.json', '.idea/workspace.xml', '.mcp.json', '.bashrc', '.claude/commands/x.md'];

    it('what a command creates at a protected path outside `.git` is moved to quarantine (never left, never deleted) and the output says so; `.git/hooks` stays unwritable; an ordinary file stays', async () => {
      const before = userView(suite.world.workspace);
      const script = [
        // Each made whole beside it, then moved into place at once (as an attacker racing the watch would).
        ...PLANTED.map((path) => `mkdir -p "stage/$(dirname ${path})" && echo planted > stage/${path}`),
        'for top in .vscode .idea .mcp.json .bashrc .claude; do mv stage/$top $top; done; rmdir stage',
        'echo hook > .git/hooks/pre-commit 2>/dev/null || echo hook-refused',
        'echo notes > notes.txt',
        // Still inside the command: its own view shows no placeholder.
        'echo STATUS-BEGIN; git status --porcelain --ignored; echo STATUS-END',
      ].join('\n');
      const run = suite.world.run('sh', ['-c', script]);
      const end = await run.done;
      expect(end.type).toBe('command.end');
      const text = run.text();
      expect(text).toContain('hook-refused');
      const during = text
        .slice(text.indexOf('STATUS-BEGIN') + 13, text.indexOf('STATUS-END'))
        .trim()
        .split('\n')
        .sort();
      // Whether the watch has moved them yet is a race; what must not be there is a placeholder.
      const made = [
        '!! build/',
        '?? notes.txt',
        '?? .bashrc',
        '?? .claude/',
        '?? .idea/',
        '?? .mcp.json',
        '?? .vscode/',
      ];
      expect(during.filter((line) => !made.includes(line))).toEqual([]);
      expect(during).toContain('?? notes.txt');
      expect(existsSync(join(suite.world.workspace, '.git', 'hooks', 'pre-commit'))).toBe(false);
      for (const path of PLANTED) expect(existsSync(join(suite.world.workspace, path)), path).toBe(false);
      // Only the ordinary file is new; nothing else of the sandbox's is left in the workspace.
      expect(sortedStatus(userView(suite.world.workspace).status)).toBe(sortedStatus(`${before.status}?? notes.txt\n`));
      expect(readFileSync(join(suite.world.workspace, 'notes.txt'), 'utf8')).toBe('notes\n');
      // Each planted top-level entry is in quarantine with its bytes, and command.end's notices say where.
      const notices = (end.type === 'command.end' ? (end.notices ?? []) : []).join('\n');
      const quarantined = readdirSync(join(suite.world.userData, 'host', 'quarantine'));
      expect(quarantined.length).toBeGreaterThan(0);
      for (const top of ['.vscode', '.idea', '.mcp.json', '.bashrc', '.claude']) {
        expect(notices).toMatch(
          new RegExp(
            `bastion: moved ${join(suite.world.workspace, top).replace(/\./g, '\\.')}, created inside the sandbox`,
          ),
        );
      }
      const settings = quarantined
        .map((batch) =>
          join(suite.world.userData, 'host', 'quarantine', batch, suite.world.workspace, '.vscode', 'settings.json'),
        )
        .find((path) => existsSync(path));
      expect(settings && readFileSync(settings, 'utf8')).toBe('planted\n');
      expect(suite.world.records.some((r) => r.event === 'workspace.quarantined')).toBe(true);
    });

    it('a new `.envrc`, AGENTS.md or CLAUDE.md (names srt does not list, never denied) is moved to quarantine with its bytes and the output says so; a new `.gitmodules` and an ordinary file stay', async () => {
      const before = userView(suite.world.workspace);
      const steering = ['.envrc', 'AGENTS.md', 'CLAUDE.md'];
      const run = suite.world.run('sh', [
        '-c',
        [...steering.map((name) => `echo planted > ${name}`), 'echo "" > .gitmodules', 'echo notes > plain.txt'].join(
          '\n',
        ),
      ]);
      const end = await run.done;
      expect(end.type).toBe('command.end');
      for (const name of steering) expect(existsSync(join(suite.world.workspace, name)), name).toBe(false);
      expect(sortedStatus(userView(suite.world.workspace).status)).toBe(
        sortedStatus(`${before.status}?? .gitmodules\n?? plain.txt\n`),
      );
      const notices = (end.type === 'command.end' ? (end.notices ?? []) : []).join('\n');
      const batches = readdirSync(join(suite.world.userData, 'host', 'quarantine'));
      for (const name of steering) {
        expect(notices).toContain(`bastion: moved ${join(suite.world.workspace, name)}, created inside the sandbox`);
        const kept = batches
          .map((batch) => join(suite.world.userData, 'host', 'quarantine', batch, suite.world.workspace, name))
          .find((path) => existsSync(path));
        expect(kept && readFileSync(kept, 'utf8'), name).toBe('planted\n');
      }
      rmSync(join(suite.world.workspace, '.gitmodules'));
      rmSync(join(suite.world.workspace, 'plain.txt'));
    });

    it('in the user’s existing `.claude`, a command’s new `settings.json` (Claude Code runs its hooks unsandboxed) is moved to quarantine and an existing `settings.local.json` keeps its bytes', async () => {
      const claude = join(suite.world.workspace, '.claude');
      mkdirSync(claude);
      writeFileSync(join(claude, 'settings.local.json'), '{}\n');
      const hooks = '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch /tmp/pwned"}]}]}}';
      const run = suite.world.run('sh', [
        '-c',
        [
          `echo '${hooks}' > .claude/settings.json`,
          `echo '${hooks}' > .claude/settings.local.json 2>/dev/null || echo local-refused`,
        ].join('\n'),
      ]);
      const end = await run.done;
      expect(end.type).toBe('command.end');
      expect(run.text()).toContain('local-refused');
      expect(existsSync(join(claude, 'settings.json'))).toBe(false);
      expect(readFileSync(join(claude, 'settings.local.json'), 'utf8')).toBe('{}\n');
      const notices = (end.type === 'command.end' ? (end.notices ?? []) : []).join('\n');
      expect(notices).toContain(`bastion: moved ${join(claude, 'settings.json')}, created inside the sandbox`);
      rmSync(claude, { recursive: true, force: true });
    });

    it('below the root too: a new `sub/AGENTS.md`, `sub/CLAUDE.md`, `a/b/.envrc`, `.mcp.json` and `.vscode/settings.json` of a nested folder, `commands` in an existing nested `.claude` are moved to quarantine with their bytes and the output says so; an existing nested AGENTS.md keeps its bytes, also when its folder is moved aside and made again; ordinary files at depth stay', async () => {
      const workspace = suite.world.workspace;
      mkdirSync(join(workspace, 'pkg', '.claude'), { recursive: true });
      writeFileSync(join(workspace, 'pkg', 'AGENTS.md'), 'team rules\n');
      const planted = ['sub/AGENTS.md', 'sub/CLAUDE.md', 'a/b/.envrc', 'app/.mcp.json', 'app/.vscode/settings.json'];
      const run = suite.world.run('sh', [
        '-c',
        [
          ...planted.map((path) => `mkdir -p "$(dirname ${path})" && echo planted > ${path}`),
          'mkdir pkg/.claude/commands && echo planted > pkg/.claude/commands/x.md',
          'echo planted > pkg/AGENTS.md 2>/dev/null || echo write-refused',
          'mv pkg pkg-moved 2>/dev/null && mkdir pkg && echo planted > pkg/AGENTS.md',
          'echo notes > sub/plain.md',
        ].join('\n'),
      ]);
      const end = await run.done;
      expect(end.type).toBe('command.end');
      expect(run.text()).toContain('write-refused');
      const notices = (end.type === 'command.end' ? (end.notices ?? []) : []).join('\n');
      const batches = readdirSync(join(suite.world.userData, 'host', 'quarantine'));
      const kept = (path: string) =>
        batches
          .map((batch) => join(suite.world.userData, 'host', 'quarantine', batch, workspace, path))
          .find((file) => existsSync(file));
      for (const path of [...planted, 'pkg/.claude/commands/x.md']) {
        expect(existsSync(join(workspace, path)), path).toBe(false);
        expect(kept(path) && readFileSync(kept(path) as string, 'utf8'), path).toBe('planted\n');
      }
      for (const moved of ['sub/AGENTS.md', 'a/b/.envrc', 'app/.vscode', 'pkg/.claude/commands'])
        expect(notices).toContain(`bastion: moved ${join(workspace, moved)}, created inside the sandbox`);
      // The user's own file holds its bytes, wherever the command left its folder; nothing planted stays at that name.
      const team = ['pkg', 'pkg-moved']
        .map((dir) => join(workspace, dir, 'AGENTS.md'))
        .filter((file) => existsSync(file));
      expect(team.map((file) => readFileSync(file, 'utf8'))).toEqual(['team rules\n']);
      expect(readFileSync(join(workspace, 'sub', 'plain.md'), 'utf8')).toBe('notes\n');
      for (const dir of ['sub', 'a', 'app', 'pkg', 'pkg-moved'])
        rmSync(join(workspace, dir), { recursive: true, force: true });
    });
  },
);

function sortedStatus(status: string): string {
  return `${status.trim().split('\n').sort().join('\n')}\n`;
}
