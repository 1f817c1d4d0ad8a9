/**
 * Corrupt files in userData, as real CLI processes: a sessions.db that is not a database fails
 * `start` at once naming the file and how to recover, and stays byte for byte; `doctor` runs
 * quick_check and reports a damaged page.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { damageTableRootPage } from '../../../test/support/damaged-database.js';
import { makeTempDir } from '@bastion/test-support';
import { runCli } from './support/cli-process.js';

function layout(): { home: string; workspace: string; db: string } {
  const root = makeTempDir();
  const home = join(root, 'home');
  const workspace = join(root, 'ws');
  mkdirSync(home, { mode: 0o700 });
  mkdirSync(workspace);
  return { home, workspace, db: join(home, 'sessions.db') };
}

describe('corrupt sessions.db', () => {
  it('start on a sessions.db that is not a database exits 1 naming the file and the move-aside fix, leaving its bytes', async () => {
    const { home, workspace, db } = layout();
    const bytes = Buffer.from('these are my notes, not a database\n'.repeat(200));
    writeFileSync(db, bytes, { mode: 0o600 });
    const started = await runCli(['start', '--no-open', '--home', home, '--workspace', workspace]);
    expect(started.code).toBe(1);
    expect(started.stderr).toContain(`STORE_NOT_A_DATABASE: ${db} is not a SQLite database`);
    expect(started.stderr).toContain(`mv ${db} ${db}.damaged`);
    expect(started.stderr).not.toContain('SIDECAR_NOT_READY');
    expect(readFileSync(db).equals(bytes)).toBe(true);
  });

  it('doctor runs quick_check: a damaged page is reported (exit 1, STORE_CORRUPT naming the file), the file unchanged', async () => {
    const { home, db } = layout();
    const setup = new Database(db);
    setup.exec('CREATE TABLE notes (n INTEGER PRIMARY KEY, body TEXT)');
    const insert = setup.prepare('INSERT INTO notes (body) VALUES (?)');
    for (let i = 0; i < 300; i++) insert.run('y'.repeat(300));
    setup.close();
    const sound = await runCli(['doctor', '--home', home]);
    expect(sound.stdout).toContain('sessions.db passes quick_check');
    damageTableRootPage(db, 'notes');
    const bytes = readFileSync(db);
    const damaged = await runCli(['doctor', '--json', '--home', home]);
    expect(damaged.code).toBe(1);
    const report = JSON.parse(damaged.stdout) as { store: { ok: boolean; code: string; problem: string } };
    expect(report.store).toMatchObject({ ok: false, code: 'STORE_CORRUPT' });
    expect(report.store.problem).toContain(`${db} is damaged`);
    expect(readFileSync(db).equals(bytes)).toBe(true);
  });
});
