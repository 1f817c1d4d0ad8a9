import { readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, expect, it } from 'vitest';
import { makeTempDir } from '@bastion/test-support';
import { HOST_AUDIT_MAX_BYTES, type PolicyCall } from '@bastion/protocol';
import { ensureUserData } from '../user-data.js';
import { HostAuditLog } from './host-audit-log.js';
import { PolicyStore } from './policy-store.js';

let base: string;
let userData: string;
let logFile: string;

beforeEach(() => {
  base = makeTempDir('bastion-host-audit-');
  userData = join(base, 'home');
  ensureUserData(userData);
  logFile = join(userData, 'host', 'audit.jsonl');
});

const push = (root: string): PolicyCall => ({
  tool: 'run_command',
  workspace_root: root,
  command: { name: '/usr/bin/git', args: ['push', '--force', 'origin', 'secret-branch-name'], cwd: root },
});

it('a store with the audit log records each answer in host/audit.jsonl (0600) with the command name and no argument, cwd or path', () => {
  const audit = new HostAuditLog(userData);
  const store = new PolicyStore(userData, { audit });
  store.evaluate(push(base), { stage: 'command' });
  store.evaluate({ tool: 'write_file', workspace_root: base, paths: [join(base, '.github/workflows/ci.yml')] });

  expect(statSync(logFile).mode & 0o777).toBe(0o600);
  expect(audit.entries()).toEqual([
    expect.objectContaining({
      tool: 'run_command',
      command: 'git',
      verdict: 'ask',
      rule_id: 'builtin.git-force-push',
      stage: 'command',
    }),
    expect.objectContaining({
      tool: 'write_file',
      command: null,
      verdict: 'ask',
      rule_id: 'builtin.ci-workflows-write',
    }),
  ]);
  const text = readFileSync(logFile, 'utf8');
  for (const content of ['secret-branch-name', '--force', 'ci.yml', base]) expect(text).not.toContain(content);
});

it('a log that has reached HOST_AUDIT_MAX_BYTES is rotated to audit.jsonl.1 before the next line, and both are read oldest first', () => {
  const oldAt = '2026-01-01T00:00:00.000Z';
  const old = `${JSON.stringify({ at: oldAt, tool: 'read_file', command: null, verdict: 'none', rule_id: null })}\n`;
  writeFileSync(logFile, old.repeat(Math.ceil(HOST_AUDIT_MAX_BYTES / old.length)), { mode: 0o600 });
  const audit = new HostAuditLog(userData);
  audit.record(push(base), { verdict: 'allow' });

  expect(statSync(`${logFile}.1`).size).toBeGreaterThanOrEqual(HOST_AUDIT_MAX_BYTES);
  expect(readFileSync(logFile, 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
  const entries = audit.entries();
  expect(entries[0]?.at).toBe(oldAt);
  expect(entries.at(-1)).toMatchObject({ command: 'git', verdict: 'allow' });
});

it('a symbolic link planted at audit.jsonl is not written or read through, and the call it could not record is denied', () => {
  const elsewhere = join(base, 'elsewhere');
  writeFileSync(elsewhere, '');
  symlinkSync(elsewhere, logFile);
  const store = new PolicyStore(userData, { audit: new HostAuditLog(userData) });
  expect(store.evaluate({ tool: 'read_file', workspace_root: base, paths: [join(base, 'a.txt')] })).toMatchObject({
    verdict: 'deny',
    rule_id: 'audit-log-unusable',
  });
  expect(readFileSync(elsewhere, 'utf8')).toBe('');
  // Nor read through: the page gets a code, not the other file's lines.
  expect(() => new HostAuditLog(userData).page({})).toThrow(expect.objectContaining({ code: 'HOST_AUDIT_UNREADABLE' }));
});

it('a page is newest first, bounded by its limit, and its next cursor reaches the older decisions without repeating one', () => {
  const audit = new HostAuditLog(userData);
  for (const tool of ['t0', 't1', 't2', 't3', 't4']) {
    audit.record({ tool, workspace_root: base }, { verdict: 'none' }, { stage: 'check' });
  }
  const first = audit.page({ limit: 2 });
  expect(first.entries.map((entry) => entry.tool)).toEqual(['t4', 't3']);
  expect(first.next).toBe(3);
  // A decision recorded between two pages does not shift the older page.
  audit.record({ tool: 't5', workspace_root: base }, { verdict: 'none' });
  const second = audit.page({ limit: 2, before: first.next ?? 0 });
  expect(second.entries.map((entry) => entry.tool)).toEqual(['t2', 't1']);
  const last = audit.page({ limit: 2, before: second.next ?? 0 });
  expect(last.entries.map((entry) => entry.tool)).toEqual(['t0']);
  expect(last.next).toBeNull();
  expect(audit.page({}).entries).toHaveLength(6);
});

it('a line that is not a decision (torn, foreign, an unknown field) is skipped and counted, never shown half-read', () => {
  const audit = new HostAuditLog(userData);
  audit.record({ tool: 'read_file', workspace_root: base }, { verdict: 'none' });
  const good = readFileSync(logFile, 'utf8');
  writeFileSync(
    logFile,
    `${good}{"at":"2026-01-01T00:00:00.000Z","tool":"read_f\n${JSON.stringify({ ...JSON.parse(good), extra: 1 })}\nnot json\n${good}`,
  );
  const page = audit.page({});
  expect(page.unreadable).toBe(3);
  expect(page.entries).toHaveLength(2);
  expect(page.entries.every((entry) => entry.tool === 'read_file')).toBe(true);
});

it('a session page holds only the decisions reported for that session, and its cursor skips the others without ending early', () => {
  const audit = new HostAuditLog(userData);
  const sessions = ['ses_a', 'ses_b', 'ses_a', 'ses_b', 'ses_b', 'ses_a', undefined];
  sessions.forEach((session_id, index) =>
    audit.record(
      { tool: `t${index}`, workspace_root: base },
      { verdict: 'none' },
      { stage: 'check', session_id, run_id: 'run_x' },
    ),
  );
  const first = audit.page({ session_id: 'ses_a', limit: 2 });
  expect(first.entries.map((entry) => entry.tool)).toEqual(['t5', 't2']);
  expect(first.entries[0]).toMatchObject({ session_id: 'ses_a', run_id: 'run_x', stage: 'check' });
  const second = audit.page({ session_id: 'ses_a', limit: 2, before: first.next ?? 0 });
  expect(second.entries.map((entry) => entry.tool)).toEqual(['t0']);
  expect(second.next).toBeNull();
  // A page that took the last match of its session says so, though older lines of other sessions remain.
  expect(audit.page({ session_id: 'ses_b', limit: 3 }).next).toBeNull();
  expect(audit.entriesOf('ses_b').map((entry) => entry.tool)).toEqual(['t1', 't3', 't4']);
  expect(audit.page({ session_id: 'ses_none' }).entries).toEqual([]);
});
