/**
 * userData is private: after a real host and sidecar have written everything they keep there
 * (sessions.db with its WAL and SHM, auth.json, endpoints.json, logs), every directory is 0700
 * and every file 0600 under an ordinary umask; a userData left loose (by an older Bastion, a
 * restored backup) is repaired on start, each repair logged, and nothing outside it or inside a
 * session's scratch dir is touched.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeAttack } from '../../../../test/support/attack.js';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { makeTempDir } from '@bastion/test-support';

let host: TempHost | undefined;
let umask: number;
beforeEach(() => {
  umask = process.umask(0o022);
});
afterEach(async () => {
  await host?.stop();
  host = undefined;
  process.umask(umask);
});

/** Every entry under `dir` (not following symlinks) with its permission bits in octal. */
function modesUnder(dir: string, prefix = ''): Record<string, string> {
  const modes: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    modes[`${prefix}${name}`] = (stat.mode & 0o777).toString(8);
    if (stat.isDirectory()) Object.assign(modes, modesUnder(path, `${prefix}${name}/`));
  }
  return modes;
}

describeAttack('secret-read', 'userData modes', () => {
  it('every directory Bastion makes in userData is 0700 and every file 0600, sessions.db-wal and -shm included', async () => {
    host = await startTempHost();
    expect((await host.client.request('POST', '/sessions', { title: 'modes' })).status).toBe(201);
    expect((await host.client.request('POST', '/secrets/set', { provider: 'openai', key: 'sk-modes' })).status).toBe(
      200,
    );
    const endpoint = { id: 'local', base_url: 'http://127.0.0.1:9/v1', models: ['m'] };
    expect((await host.client.request('POST', '/providers/endpoints/set', endpoint)).status).toBe(200);
    const modes = modesUnder(host.userData);
    for (const name of [
      'sessions.db',
      'sessions.db-wal',
      'sessions.db-shm',
      'auth.json',
      'endpoints.json',
      'logs/host.log',
    ]) {
      expect(modes[name], name).toBe('600');
    }
    expect(modes.logs).toBe('700');
    expect((statSync(host.userData).mode & 0o777).toString(8)).toBe('700');
    const loose = Object.entries(modes).filter(([, mode]) => mode !== '600' && mode !== '700');
    expect(loose).toEqual([]);
  });

  it('a loose userData is repaired on start, each entry logged; scratch contents, MCP servers’ data and symlink targets keep their modes', async () => {
    const root = makeTempDir();
    const userData = join(root, 'home');
    mkdirSync(join(userData, 'logs'), { recursive: true });
    mkdirSync(join(userData, 'scratch', 'ses_loose0001'), { recursive: true });
    mkdirSync(join(userData, 'host', 'mcp-data', 'memory'), { recursive: true });
    writeFileSync(join(userData, 'host', 'mcp-data', 'memory', 'memory.jsonl'), '{}\n');
    writeFileSync(join(userData, 'sessions.db-wal'), '');
    writeFileSync(join(userData, 'logs', 'host.log'), '');
    // Only group/other bits go: the owner's x and a missing owner w stay (0755 → 0700, 0444 → 0400).
    writeFileSync(join(userData, 'logs', 'rotate.sh'), '#!/bin/sh\n');
    writeFileSync(join(userData, 'logs', 'kept.log'), 'old\n');
    writeFileSync(join(userData, 'scratch', 'ses_loose0001', 'build.sh'), '#!/bin/sh\n');
    const outside = join(root, 'outside.txt');
    writeFileSync(outside, 'not bastion\n');
    symlinkSync(outside, join(userData, 'link.txt'));
    for (const [entry, mode] of [
      ['.', 0o755],
      ['logs', 0o755],
      ['scratch', 0o775],
      ['scratch/ses_loose0001', 0o755],
      ['sessions.db-wal', 0o644],
      ['logs/host.log', 0o640],
      ['logs/rotate.sh', 0o755],
      ['logs/kept.log', 0o444],
      ['scratch/ses_loose0001/build.sh', 0o755],
      ['host', 0o755],
      ['host/mcp-data', 0o755],
      ['host/mcp-data/memory', 0o755],
      ['host/mcp-data/memory/memory.jsonl', 0o644],
    ] as const) {
      chmodSync(join(userData, entry), mode);
    }
    chmodSync(outside, 0o644);

    host = await startTempHost({ userData });
    const modes = modesUnder(userData);
    expect((statSync(userData).mode & 0o777).toString(8)).toBe('700');
    expect(modes).toMatchObject({
      logs: '700',
      scratch: '700',
      'scratch/ses_loose0001': '700',
      'sessions.db-wal': '600',
      'logs/host.log': '600',
      'logs/rotate.sh': '700',
      'logs/kept.log': '400',
      'scratch/ses_loose0001/build.sh': '755',
      'host/mcp-data': '700',
      'host/mcp-data/memory': '700',
      'host/mcp-data/memory/memory.jsonl': '644',
    });
    expect((statSync(outside).mode & 0o777).toString(8)).toBe('644');
    const repaired = host.records
      .filter((record) => record.event === 'userdata.mode-repaired')
      .map((record) => [record.fields.entry, record.fields.reason]);
    expect(repaired).toEqual(
      expect.arrayContaining([
        ['.', 'was 755, group/other bits removed'],
        ['logs', 'was 755, group/other bits removed'],
        ['scratch', 'was 775, group/other bits removed'],
        ['scratch/ses_loose0001', 'was 755, group/other bits removed'],
        ['sessions.db-wal', 'was 644, group/other bits removed'],
        ['logs/host.log', 'was 640, group/other bits removed'],
        ['logs/rotate.sh', 'was 755, group/other bits removed'],
        ['logs/kept.log', 'was 444, group/other bits removed'],
        ['host', 'was 755, group/other bits removed'],
        ['host/mcp-data', 'was 755, group/other bits removed'],
        ['host/mcp-data/memory', 'was 755, group/other bits removed'],
      ]),
    );
    expect(repaired).toHaveLength(11);
  });
});
