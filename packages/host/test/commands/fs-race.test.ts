/**
 * fs-race, end to end: a sandboxed command (auto mode) swaps a directory of the workspace and a
 * symlink into userData with renameat2(RENAME_EXCHANGE) in a tight loop while another session's
 * agent runs `search` and `find_files` again and again. The daemon can read userData (auth.json),
 * so a walk of the workspace inside the daemon follows the swapped-in symlink; both run in the
 * host under the per-command profile instead, where userData is unreadable. The canary key is in
 * no event the runs streamed and in no log, and no userData file name is listed.
 */
import { lstatSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAttack } from '../../../../test/support/attack.js';
import type { Session } from '@bastion/protocol';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { makeTempDir, waitFor } from '@bastion/test-support';
import { AgentDriver, expectCanaryNowhere, toolResultOf } from './agent-stream.js';

const CANARY = 'CANARY-5e0c1b77-race';
const RACER = resolve(import.meta.dirname, '../../../../test/support/rename-exchange-racer.py');
/** Searches run while the swap loops; each one walks the swapped pair. */
const SEARCHES = 30;

let host: TempHost;

beforeAll(async () => {
  host = await startTempHost({ home: makeTempDir('bastion-race-home-') });
  expect(host.capabilities).toMatchObject({ sandbox: 'srt', shell: true });
  writeFileSync(join(host.userData, 'auth.json'), `{"key":"${CANARY}"}\n`, { mode: 0o600 });
  // The pair the command swaps: a real directory, and a symlink to userData.
  mkdirSync(join(host.workspace, 'bait'));
  writeFileSync(join(host.workspace, 'bait', 'notes.txt'), 'nothing to see\n');
  symlinkSync(host.userData, join(host.workspace, 'link'));
}, 60_000);

afterAll(async () => {
  await host?.stop();
});

describe('search through the host', () => {
  it('finds matches in the workspace, run as a sandboxed command', async () => {
    const agent = await AgentDriver.create(host, { workspace: host.workspace });
    const ran = await agent.say('search nothing to see');
    expect(toolResultOf(ran).output).toMatchObject({
      matches: [{ path: 'bait/notes.txt', line: 1, text: 'nothing to see' }],
      truncated: false,
    });
    expect(host.records.some((record) => record.event === 'command.started')).toBe(true);
  });

  it('find_files lists the workspace’s files by a glob, run as a sandboxed command too', async () => {
    const agent = await AgentDriver.create(host, { workspace: host.workspace });
    const commands = host.records.filter((record) => record.event === 'command.started').length;
    const ran = await agent.say('find *.txt');
    expect(toolResultOf(ran).output).toEqual({ paths: ['bait/notes.txt'], truncated: false });
    expect(host.records.filter((record) => record.event === 'command.started').length).toBe(commands + 1);
  });

  it("a glob ripgrep cannot read comes back with ripgrep's reason, from the sandboxed command's error output", async () => {
    const agent = await AgentDriver.create(host, { workspace: host.workspace });
    const ran = await agent.say('find [abc');
    expect(toolResultOf(ran).output).toEqual({
      ok: false,
      code: 'SEARCH_FAILED',
      message: "the glob is not one ripgrep reads: unclosed character class; missing ']'",
    });
  });
});

describeAttack('fs-race', 'search while a sandboxed command swaps a directory and a symlink into userData', () => {
  it('never returns auth.json: the canary is in no search result, event or log', async () => {
    const racer = await AgentDriver.create(host, { workspace: host.workspace });
    const switched = await host.client.request<Session>('PATCH', `/sessions/${racer.session.id}`, {
      mode: 'auto',
      consent_by: 'fs-race-test',
    });
    expect(switched.status).toBe(200);
    const started = await host.client.request('POST', '/agent/run', {
      session_id: racer.session.id,
      message: `$ sh -c 'exec /usr/bin/python3 ${RACER} bait link 300'`,
    });
    expect(started.status).toBe(202);
    // The swap is running once `bait` has been seen as a symlink from the host.
    await waitFor(() => lstatSync(join(host.workspace, 'bait')).isSymbolicLink(), 30_000, 'the swap loop to start');

    const searcher = await AgentDriver.create(host, { workspace: host.workspace });
    let raw = '';
    const outcomes: string[] = [];
    const found: unknown[] = [];
    for (let round = 0; round < SEARCHES; round += 1) {
      const ran = await searcher.say('search CANARY');
      raw += ran.raw;
      const output = toolResultOf(ran).output as { matches?: unknown[]; code?: string };
      outcomes.push(Array.isArray(output.matches) ? 'searched' : String(output.code));
      // find_files walks the same swapped pair: userData's file names are never listed either.
      const listed = toolResultOf(await searcher.say('find *.json')).output as { paths?: unknown[]; code?: string };
      outcomes.push(Array.isArray(listed.paths) ? 'searched' : String(listed.code));
      found.push(...(listed.paths ?? []));
    }
    expect(found).toEqual([]);
    // Every round really ran ripgrep: it searched or listed, or it exited with an error because a
    // directory vanished under it mid-walk (SEARCH_FAILED); no other refusal stood in for one.
    expect(outcomes.filter((outcome) => outcome !== 'searched' && outcome !== 'SEARCH_FAILED')).toEqual([]);
    expect(outcomes).toContain('searched');

    const aborted = await host.client.request('POST', '/agent/abort', { session_id: racer.session.id });
    expect(aborted).toMatchObject({ status: 200, body: { aborted: true } });
    const ended = await racer.readToEnd();
    raw += ended.raw;
    expectCanaryNowhere(host, raw, CANARY);
  });
});
