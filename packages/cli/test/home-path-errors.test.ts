/**
 * A mistaken data folder, and broken files in a real one, as real CLI processes on real folders:
 * an empty BASTION_HOME counts as unset and an empty `--home` is a usage error (before, either made
 * the current folder the data folder and stripped every mode under it); a folder holding other
 * files, or HOME itself, is refused (HOME_NOT_BASTION) with every mode and file as it was, while a
 * new, an empty and an earlier version's home are adopted; `--home` at a file is one
 * HOME_NOT_A_DIRECTORY line for every command; a dead host's sandbox journal of the wrong shape is
 * removed and the run goes on; a killed write's temp copy of mcp.json goes at start; a lock file
 * that is no database, a symlinked preferences.json and an audit.jsonl that is a folder are named
 * with the next step; on a full disk (a real tmpfs, root only) `policy add` says the disk is full,
 * naming the lock file or policy.json, and leaves policy.json as it was.
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '@bastion/test-support';
import { canMount, fillDisk, mountTmpfs } from '../../../test/support/tmpfs.js';
import { CLI, type CliResult } from './support/cli-process.js';

/** The CLI run to its exit in `cwd`, with HOME at `home` and `env` added (no input). */
function bastion(
  args: readonly string[],
  options: { cwd: string; home: string; env?: NodeJS.ProcessEnv },
): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: options.home, ...options.env };
  if (options.env === undefined || !('BASTION_HOME' in options.env)) delete env.BASTION_HOME;
  const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/** A project folder holding `sub/run.sh` (0755) and `notes.txt` (0644), and an empty HOME beside it. */
function project(): { root: string; project: string; home: string; script: string; notes: string } {
  const root = makeTempDir('bastion-home-path-');
  const dir = join(root, 'project');
  mkdirSync(join(dir, 'sub'), { recursive: true });
  const script = join(dir, 'sub', 'run.sh');
  const notes = join(dir, 'notes.txt');
  writeFileSync(script, '#!/bin/sh\necho hi\n');
  writeFileSync(notes, 'mine\n');
  chmodSync(script, 0o755);
  chmodSync(notes, 0o644);
  chmodSync(dir, 0o755);
  const home = join(root, 'user-home');
  mkdirSync(home);
  return { root, project: dir, home, script, notes };
}

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

/** The project exactly as project() made it: no Bastion file in it, every mode kept. */
function expectUntouched(p: ReturnType<typeof project>): void {
  expect(readdirSync(p.project).sort()).toEqual(['notes.txt', 'sub']);
  expect(mode(p.project)).toBe('755');
  expect(mode(p.script)).toBe('755');
  expect(mode(p.notes)).toBe('644');
}

const run = (home: string[]) => ['run', ...home, '--provider', 'demo', 'hi'];

describe('the data folder a command is given', () => {
  it('an empty BASTION_HOME is unset: ~/.bastion is the data folder, the current folder is untouched', async () => {
    const p = project();
    const listed = await bastion(['sessions'], { cwd: p.project, home: p.home, env: { BASTION_HOME: '' } });
    expect(listed.stderr).not.toContain('mode-repaired');
    expect(listed.code).toBe(0);
    expectUntouched(p);
    expect(existsSync(join(p.home, '.bastion', 'host'))).toBe(true);
  });

  it('an empty --home is a usage error (exit 2) for every command, nothing made or changed', async () => {
    const p = project();
    for (const args of [
      ['sessions', '--home', ''],
      run(['--home', '']),
      ['policy', 'list', '--home='],
      ['doctor', '--home', ''],
    ]) {
      const refused = await bastion(args, { cwd: p.project, home: p.home });
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr).toMatch(/^bastion: --home needs a folder \(it was given an empty path\)/);
      expectUntouched(p);
    }
    expect(readdirSync(p.home)).toEqual([]);
  });

  it('a folder holding other files is refused (HOME_NOT_BASTION), even for a read-only command: no mode changed, nothing written', async () => {
    const p = project();
    for (const args of [['sessions', '--home', '.'], run(['--home', p.project]), ['policy', 'list', '--home', '.']]) {
      const refused = await bastion(args, { cwd: p.project, home: p.home });
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stderr.trim()).toBe(
        `bastion: HOME_NOT_BASTION: ${p.project} is not a Bastion data folder (it holds other files); pass an empty or new folder to --home (or BASTION_HOME)`,
      );
      expectUntouched(p);
    }
  });

  it('HOME itself is refused, even when it holds a name a Bastion home has (logs/)', async () => {
    const p = project();
    mkdirSync(join(p.home, 'logs'));
    chmodSync(join(p.home, 'logs'), 0o755);
    const refused = await bastion(['sessions', '--home', p.home], { cwd: p.project, home: p.home });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `HOME_NOT_BASTION: ${p.home} is not a Bastion data folder (it is your home folder)`,
    );
    expect(readdirSync(p.home)).toEqual(['logs']);
    expect(mode(join(p.home, 'logs'))).toBe('755');
  });

  it('a new folder, an empty one, a home of its own making and an earlier version’s (policy.json, no host/) are adopted', async () => {
    const p = project();
    const fresh = join(p.root, 'new', 'data');
    const empty = join(p.root, 'empty');
    mkdirSync(empty);
    const legacy = join(p.root, 'legacy');
    mkdirSync(legacy, { mode: 0o700 });
    const rules = `${JSON.stringify({ version: 1, global: [], projects: {} })}\n`;
    writeFileSync(join(legacy, 'policy.json'), rules, { mode: 0o600 });
    for (const home of [fresh, empty, fresh, legacy]) {
      const ran = await bastion(run(['--home', home]), { cwd: p.project, home: p.home });
      expect(ran.code, `${home}: ${ran.stderr}`).toBe(0);
      expect(existsSync(join(home, 'sessions.db'))).toBe(true);
    }
    expect(readFileSync(join(legacy, 'host', 'policy.json'), 'utf8')).toBe(rules);
  });

  it('--home at a file, or below one: one HOME_NOT_A_DIRECTORY line naming it for every command', async () => {
    const p = project();
    const file = join(p.project, 'notes.txt');
    const commands = [
      run([]),
      ['start', '--no-open'],
      ['chat'],
      ['sessions'],
      ['models'],
      ['undo'],
      ['changes'],
      ['open'],
      ['secrets', 'delete', 'openai'],
      ['mcp', 'list'],
      ['policy', 'list'],
      ['policy', 'audit'],
      ['doctor'],
    ];
    for (const args of commands) {
      const refused = await bastion([...args, '--home', file], { cwd: p.project, home: p.home });
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stderr.trim(), args.join(' ')).toBe(
        `bastion: HOME_NOT_A_DIRECTORY: ${file} is a file, not a folder: give --home (or BASTION_HOME) a folder or a new path`,
      );
    }
    const below = await bastion(run(['--home', join(file, 'sub')]), { cwd: p.project, home: p.home });
    expect(below.code).toBe(1);
    expect(below.stderr.trim()).toBe(
      `bastion: HOME_NOT_A_DIRECTORY: ${join(file, 'sub')} cannot be a folder: ${file} is a file; give --home (or BASTION_HOME) a folder or a new path`,
    );
    expectUntouched(p);
  });
});

describe('broken files in a real data folder', () => {
  /** A home a real run made, and the project it ran in. */
  async function usedHome() {
    const p = project();
    const data = join(p.root, 'data');
    const first = await bastion(run(['--home', data]), { cwd: p.project, home: p.home });
    expect(first.code, first.stderr).toBe(0);
    return { ...p, data };
  }

  it('a dead host’s sandbox journal of the wrong shape ({} or null) is removed and the run goes on', async () => {
    const { data, project: cwd, home } = await usedHome();
    for (const text of ['{}', 'null', '{"placeholders":["relative"],"guarded":[]}']) {
      const journal = join(data, 'host', 'sandbox-journal', '4000000.json');
      writeFileSync(journal, text, { mode: 0o600 });
      const ran = await bastion(run(['--home', data]), { cwd, home });
      expect(ran.code, `${text}: ${ran.stderr}`).toBe(0);
      expect(ran.stderr).not.toContain('is not iterable');
      expect(existsSync(journal)).toBe(false);
      const log = readFileSync(join(data, 'logs', 'host.log'), 'utf8');
      expect(log).toContain('sandbox.journal-skipped');
    }
  });

  it('a killed write’s temp copies of mcp.json and policy.json are removed at start; a look-alike stays', async () => {
    const { data, project: cwd, home } = await usedHome();
    const host = join(data, 'host');
    const temps = ['.mcp.json.0123456789ab.bastion-tmp', '.policy.json.ba9876543210.bastion-tmp'];
    for (const name of temps)
      writeFileSync(join(host, name), '{"servers":[{"env":{"TOKEN":"s3cret"}}]}', { mode: 0o600 });
    writeFileSync(join(host, '.mcp.json.mine.bastion-tmp'), 'not Bastion’s', { mode: 0o600 });
    const ran = await bastion(run(['--home', data]), { cwd, home });
    expect(ran.code, ran.stderr).toBe(0);
    for (const name of temps) expect(existsSync(join(host, name)), name).toBe(false);
    expect(existsSync(join(host, '.mcp.json.mine.bastion-tmp'))).toBe(true);
  });

  it('a lock file that is no database: HOME_LOCK_CORRUPT names it and says to remove it; policy.json unchanged', async () => {
    const { data, project: cwd, home } = await usedHome();
    const lock = join(data, 'host', 'policy.json.lock');
    writeFileSync(lock, 'junk, not a SQLite database\n'.repeat(8), { mode: 0o600 });
    const before = existsSync(join(data, 'host', 'policy.json'));
    const added = await bastion(['policy', 'add', 'deny', '--global', '--home', data, '--', 'rmdir'], { cwd, home });
    expect(added.code).toBe(1);
    expect(added.stderr.trim()).toBe(
      `bastion: HOME_LOCK_CORRUPT: ${lock} is not a lock file Bastion made (SQLITE_NOTADB): remove that file (no process can hold a lock in it) and try again; nothing was changed`,
    );
    expect(existsSync(join(data, 'host', 'policy.json'))).toBe(before);
  });

  it('a symlinked preferences.json or auth.json: `models` names the file and what to do', async () => {
    const { data, project: cwd, root, home } = await usedHome();
    const elsewhere = join(root, 'elsewhere.json');
    writeFileSync(elsewhere, '{}', { mode: 0o600 });
    for (const name of ['preferences.json', 'auth.json']) {
      symlinkSync(elsewhere, join(data, name));
      const listed = await bastion(['models', '--home', data], { cwd, home });
      expect(listed.code, name).toBe(1);
      expect(listed.stderr).toContain(
        `SECRETS_FILE_SYMLINK: ${name} is a symbolic link; refusing to read it: put the file itself there, or move it out of the Bastion data folder`,
      );
      expect(listed.stderr).not.toContain('the secrets store could not be used');
      expect(listed.stderr).not.toContain(root);
      unlinkSync(join(data, name));
    }
  });

  it('policy audit: a folder at audit.jsonl is named (HOST_AUDIT_UNREADABLE, no EISDIR); an empty or torn log says so', async () => {
    const { data, project: cwd, home } = await usedHome();
    const audit = join(data, 'host', 'audit.jsonl');
    mkdirSync(audit);
    const folder = await bastion(['policy', 'audit', '--home', data], { cwd, home });
    expect(folder.code).toBe(1);
    expect(folder.stderr.trim()).toBe(
      'bastion: HOST_AUDIT_UNREADABLE: audit.jsonl is not a regular file (a folder?): move it out of the host folder in the Bastion data folder',
    );
    rmdirSync(audit);
    writeFileSync(audit, '', { mode: 0o600 });
    const empty = await bastion(['policy', 'audit', '--home', data], { cwd, home });
    expect(empty).toMatchObject({ code: 0, stdout: '', stderr: 'bastion: no audit records\n' });
    writeFileSync(audit, '{"torn\n[1,2]\n', { mode: 0o600 });
    const torn = await bastion(['policy', 'audit', '--home', data], { cwd, home });
    expect(torn).toMatchObject({
      code: 0,
      stdout: '',
      stderr:
        'bastion: 2 unreadable line(s) of host/audit.jsonl skipped (torn or foreign)\nbastion: no audit records\n',
    });
  });

  describe.skipIf(!canMount)('on a full disk (skipped unless root: mounting a tmpfs needs root)', () => {
    it('policy add says STORAGE_FULL naming the lock file, not a lock another process holds; nothing written', async () => {
      const p = project();
      const disk = mountTmpfs('8m');
      try {
        const data = join(disk.path, 'home');
        const made = await bastion(['policy', 'list', '--home', data], { cwd: p.project, home: p.home });
        expect(made.code, made.stderr).toBe(0);
        fillDisk(join(disk.path, 'filler'));
        const lock = join(data, 'host', 'policy.json.lock');
        const added = await bastion(['policy', 'add', 'deny', '--global', '--home', data, '--', 'rmdir'], {
          cwd: p.project,
          home: p.home,
        });
        expect(added.code).toBe(1);
        expect(added.stderr.trim()).toBe(
          `bastion: STORAGE_FULL: cannot lock ${lock}: the disk is full or failing (SQLITE_FULL): free some space and try again; nothing was changed`,
        );
        expect(existsSync(join(data, 'host', 'policy.json'))).toBe(false);
      } finally {
        disk.unmount();
      }
    });

    it('policy add over a policy.json it cannot replace says STORAGE_FULL naming policy.json; its bytes kept, no temp file', async () => {
      const p = project();
      const disk = mountTmpfs('8m');
      try {
        const data = join(disk.path, 'home');
        const args = ['--global', '--home', data, '--', 'rmdir'];
        // A policy.json of 16 KiB, so that its next version needs more room than the lock does.
        const globs = Array.from({ length: 32 }, (_, index) => ['--path', `${String(index).padStart(500, 'g')}/**`]);
        const first = await bastion(['policy', 'add', 'deny', ...globs.flat(), ...args], {
          cwd: p.project,
          home: p.home,
        });
        expect(first.code, first.stderr).toBe(0);
        const policy = join(data, 'host', 'policy.json');
        const before = readFileSync(policy);
        expect(before.byteLength).toBeGreaterThan(16 * 1024);
        const hostFiles = readdirSync(join(data, 'host')).sort();
        // Full, then 8 KiB free: room for the lock, not for a new policy.json.
        const filler = join(disk.path, 'filler');
        fillDisk(filler);
        truncateSync(filler, statSync(filler).size - 8192);
        const added = await bastion(['policy', 'add', 'ask', ...args], {
          cwd: p.project,
          home: p.home,
        });
        expect(added.code).toBe(1);
        expect(added.stderr).toBe(
          `bastion: STORAGE_FULL: the disk holding ${policy} is full: free some space and try again; policy.json was left as it was\n`,
        );
        expect(readFileSync(policy).equals(before)).toBe(true);
        expect(readdirSync(join(data, 'host')).sort()).toEqual(hostFiles);
      } finally {
        disk.unmount();
      }
    });
  });
});
