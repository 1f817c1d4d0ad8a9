import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger, type LogRecord } from '@bastion/protocol';
import { makeTempDir } from '@bastion/test-support';
import { createPlaceholderWarden, insideGitDirectory } from './placeholder-warden.js';

/** A pid that belonged to a process which has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

function world() {
  const root = makeTempDir('bastion-warden-');
  const userData = join(root, 'data');
  const workspace = join(root, 'ws');
  mkdirSync(join(workspace, '.git'), { recursive: true });
  mkdirSync(userData);
  const records: LogRecord[] = [];
  const log = createLogger('host', (record) => records.push(record));
  return { root, userData, workspace, records, log };
}

const quarantined = (userData: string, path: string): string | undefined =>
  readdirSync(join(userData, 'host', 'quarantine'))
    .map((batch) => join(userData, 'host', 'quarantine', batch, path))
    .find((candidate) => existsSync(candidate));

describe('placeholder warden', () => {
  it('keeps placeholders inside `.git` only, and guards every other absent path for a command', () => {
    expect(insideGitDirectory('/w/.git/hooks')).toBe(true);
    expect(insideGitDirectory('/w/sub/.git/config')).toBe(true);
    expect(insideGitDirectory('/w/.git')).toBe(false);
    expect(insideGitDirectory('/w/.vscode')).toBe(false);
    const { userData, workspace, log } = world();
    const warden = createPlaceholderWarden({ userData, log });
    expect(warden.sidecarSkip(join(workspace, '.vscode'))).toBe(true);
    expect(warden.sidecarSkip(join(workspace, '.git', 'hooks'))).toBe(false);
    const guard = warden.guard('cmd_1');
    expect(guard.skip(join(workspace, '.mcp.json'))).toBe(true);
    expect(guard.skip(join(workspace, '.git', 'hooks'))).toBe(false);
    guard.close();
    warden.close();
  });

  it('moves what appears at a guarded path to quarantine with its bytes, reports it, and leaves the rest', () => {
    const { userData, workspace, records, log } = world();
    const warden = createPlaceholderWarden({ userData, log });
    const guard = warden.guard('cmd_2');
    guard.skip(join(workspace, '.vscode'));
    mkdirSync(join(workspace, '.vscode'));
    writeFileSync(join(workspace, '.vscode', 'settings.json'), '{"planted":true}');
    writeFileSync(join(workspace, 'notes.txt'), 'mine');
    const moves = guard.sweep();
    guard.close();
    expect(moves.map((move) => move.from)).toEqual([join(workspace, '.vscode')]);
    expect(existsSync(join(workspace, '.vscode'))).toBe(false);
    expect(readFileSync(join(moves[0]?.to ?? '', 'settings.json'), 'utf8')).toBe('{"planted":true}');
    expect(readFileSync(join(workspace, 'notes.txt'), 'utf8')).toBe('mine');
    expect(records.find((r) => r.event === 'workspace.quarantined')?.fields).toMatchObject({
      count: 1,
      command_id: 'cmd_2',
    });
    warden.close();
  });

  it('moves nothing through a guarded path whose directory was swapped for a symlink (the link’s target keeps its files)', () => {
    const { root, userData, workspace, log } = world();
    const warden = createPlaceholderWarden({ userData, log });
    const sub = join(workspace, 'sub');
    mkdirSync(sub);
    const guard = warden.guard('cmd_3');
    guard.skip(join(sub, '.vscode'));
    // The command replaces `sub` by a link to the user's other project, which has its own .vscode.
    const other = join(root, 'other');
    mkdirSync(join(other, '.vscode'), { recursive: true });
    writeFileSync(join(other, '.vscode', 'settings.json'), 'the user’s own');
    spawnSync('sh', ['-c', `rmdir "${sub}" && ln -s "${other}" "${sub}"`]);
    expect(guard.sweep()).toEqual([]);
    expect(readFileSync(join(other, '.vscode', 'settings.json'), 'utf8')).toBe('the user’s own');
    guard.close();
    warden.close();
  });

  it('a dead host’s journal where the sidecar can write (userData itself, where it used to be) is never read: the file outside the workspace it names is neither moved nor removed', () => {
    const { root, userData, log } = world();
    const secret = join(root, 'home', '.ssh', 'id_rsa');
    const empty = join(root, 'home', 'empty');
    mkdirSync(join(root, 'home', '.ssh'), { recursive: true });
    writeFileSync(secret, 'KEY');
    writeFileSync(empty, '');
    mkdirSync(join(userData, 'sandbox-journal'));
    writeFileSync(
      join(userData, 'sandbox-journal', `${deadPid()}.json`),
      JSON.stringify({ placeholders: [empty], guarded: [secret] }),
    );
    const warden = createPlaceholderWarden({ userData, log });
    expect(readFileSync(secret, 'utf8')).toBe('KEY');
    expect(existsSync(empty)).toBe(true);
    expect(existsSync(join(userData, 'host', 'quarantine'))).toBe(false);
    warden.close();
  });

  it('on start, sweeps the journal of a host that died: empty placeholders removed, a non-empty one kept, guarded paths quarantined; a live host’s journal untouched', () => {
    const { userData, workspace, log } = world();
    mkdirSync(join(userData, 'host', 'sandbox-journal'), { recursive: true });
    const hooks = join(workspace, '.git', 'hooks');
    const config = join(workspace, '.git', 'config.worktree');
    const info = join(workspace, '.git', 'info');
    mkdirSync(hooks);
    writeFileSync(config, '');
    mkdirSync(info);
    writeFileSync(join(info, 'exclude'), 'kept');
    mkdirSync(join(workspace, '.idea'));
    writeFileSync(join(workspace, '.idea', 'workspace.xml'), 'planted');
    const dead = join(userData, 'host', 'sandbox-journal', `${deadPid()}.json`);
    writeFileSync(dead, JSON.stringify({ placeholders: [hooks, config, info], guarded: [join(workspace, '.idea')] }));
    const live = join(userData, 'host', 'sandbox-journal', `${process.ppid}.json`);
    writeFileSync(live, JSON.stringify({ placeholders: [], guarded: [] }));

    const warden = createPlaceholderWarden({ userData, log });
    expect(existsSync(hooks)).toBe(false);
    expect(existsSync(config)).toBe(false);
    expect(readFileSync(join(info, 'exclude'), 'utf8')).toBe('kept');
    expect(existsSync(join(workspace, '.idea'))).toBe(false);
    expect(readFileSync(join(quarantined(userData, join(workspace, '.idea')) ?? '', 'workspace.xml'), 'utf8')).toBe(
      'planted',
    );
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
    warden.close();
  });
});
