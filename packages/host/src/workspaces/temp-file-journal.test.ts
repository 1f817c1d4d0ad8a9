import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '@bastion/test-support';
import { TempFileJournal, tempFileName } from './temp-file-journal.js';
import { resolveWritable, writeWorkspaceFile } from './workspace-files.js';

function setup() {
  const base = makeTempDir('bastion-write-journal-');
  const hostDir = join(base, 'home', 'host');
  const workspace = join(base, 'ws');
  mkdirSync(hostDir, { recursive: true });
  mkdirSync(join(workspace, 'src'), { recursive: true });
  const journal = new TempFileJournal(hostDir);
  const roots = [workspace];
  return { hostDir, workspace, journal, roots, pending: () => readdirSync(join(hostDir, 'pending-writes')) };
}

describe('the write temp-file journal', () => {
  it('a finished write leaves no journal entry and no temp file', () => {
    const { workspace, journal, pending } = setup();
    writeWorkspaceFile(resolveWritable(workspace, 'src/a.txt'), Buffer.from('a'), { journal });
    expect(pending()).toEqual([]);
    expect(readdirSync(join(workspace, 'src'))).toEqual(['a.txt']);
  });

  it('sweep removes a journaled temp file left behind, by its exact name, and keeps a look-alike nobody journaled', () => {
    const { workspace, journal, roots, pending } = setup();
    const left = tempFileName('a.txt', 'aaaaaaaaaaaa');
    journal.record(workspace, `src/${left}`, 'aaaaaaaaaaaa');
    writeFileSync(join(workspace, 'src', left), 'half a write');
    const mine = tempFileName('a.txt', 'bbbbbbbbbbbb');
    writeFileSync(join(workspace, 'src', mine), 'the user made this');
    expect(journal.sweep(roots)).toBe(1);
    expect(readdirSync(join(workspace, 'src'))).toEqual([mine]);
    expect(pending()).toEqual([]);
  });

  it('sweep never follows a journaled name swapped for a symlink: the file it points at keeps its bytes', () => {
    const { workspace, journal, roots } = setup();
    writeFileSync(join(workspace, 'src', 'main.ts'), 'precious');
    const left = tempFileName('main.ts', 'cccccccccccc');
    journal.record(workspace, `src/${left}`, 'cccccccccccc');
    symlinkSync('main.ts', join(workspace, 'src', left));
    expect(journal.sweep(roots)).toBe(0);
    expect(readFileSync(join(workspace, 'src', 'main.ts'), 'utf8')).toBe('precious');
    expect(lstatSync(join(workspace, 'src', left)).isSymbolicLink()).toBe(true);
  });

  it('sweep removes nothing an entry names that is not a temp file of that entry (a forged entry naming README.md)', () => {
    const { workspace, journal, roots } = setup();
    writeFileSync(join(workspace, 'README.md'), 'readme');
    journal.record(workspace, 'README.md', 'dddddddddddd');
    journal.record(workspace, `src/${tempFileName('x', 'ffffffffffff')}`, 'eeeeeeeeeeee');
    writeFileSync(join(workspace, 'src', tempFileName('x', 'ffffffffffff')), 'other token');
    expect(journal.sweep(roots)).toBe(0);
    expect(existsSync(join(workspace, 'README.md'))).toBe(true);
    expect(existsSync(join(workspace, 'src', tempFileName('x', 'ffffffffffff')))).toBe(true);
  });

  it('an entry of a root not granted in this start is kept for a start that grants it', () => {
    const { workspace, journal, pending, hostDir } = setup();
    const left = tempFileName('a.txt', '111111111111');
    journal.record(workspace, left, '111111111111');
    writeFileSync(join(workspace, left), 'half');
    expect(journal.sweep([])).toBe(0);
    expect(pending()).toEqual(['111111111111.json']);
    expect(new TempFileJournal(hostDir).sweep([workspace])).toBe(1);
    expect(existsSync(join(workspace, left))).toBe(false);
  });
});
