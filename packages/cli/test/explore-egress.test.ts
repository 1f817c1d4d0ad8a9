/**
 * An explorer's model calls leave through the same host transport and egress guard as the
 * agent's: a private key the explorer reads (a project file; only credentials Bastion holds are
 * redacted from tool results) would ride in its next request, which the host blocks. The run ends
 * EGRESS_SECRET and the loopback endpoint never receives the key; the same run over an ordinary
 * file reaches the endpoint a third time, so the block is the guard's.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { startScriptedEndpoint, type ScriptedTurn } from '@bastion/test-support';
import { describeAttack } from '../../../test/support/attack.js';
import { closedAfterEachTest } from '../../../test/support/per-test.js';
import { runCli, scriptedRun } from './support/cli-process.js';

const startEndpoint = closedAfterEachTest(startScriptedEndpoint, (endpoint) => endpoint.close());

/** A private-key block's opening, assembled at run time so no tracked file holds one (the guard's corpus test scans them). */
const PRIVATE_KEY = ['-----BEGIN', ' RSA PRIVATE', ' KEY-----\nMIIEow'].join('');
const SCRIPT: ScriptedTurn[] = [
  { kind: 'tool-call', name: 'explore', input: { task: 'read the file found.txt' } },
  { kind: 'tool-call', name: 'read_file', input: { path: 'found.txt' } },
  { kind: 'text', pieces: ['The file holds a key.'] },
  { kind: 'text', pieces: ['done'] },
];

describeAttack('secret-egress', "an explorer's requests pass the host's egress guard", () => {
  it('a private key the explorer read is blocked in its next request: exit 1 with EGRESS_SECRET, and the endpoint never receives it', async () => {
    const endpoint = await startEndpoint(SCRIPT);
    const { workspace, args } = scriptedRun(endpoint);
    writeFileSync(join(workspace, 'found.txt'), `${PRIVATE_KEY}\n`);

    const result = await runCli([...args, 'what is in found.txt?']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('EGRESS_SECRET');
    expect(endpoint.seen).toHaveLength(2);
    expect(endpoint.seen[1]?.system).toMatch(/^You are an explorer/);
    expect(JSON.stringify(endpoint.seen)).not.toContain(PRIVATE_KEY.slice(0, 24));
    expect(`${result.stdout}${result.stderr}`).toContain('[explore] read the file found.txt');
  });

  it('control: the same run over an ordinary file reaches the endpoint with the explorer’s second request and finishes', async () => {
    const endpoint = await startEndpoint(SCRIPT);
    const { workspace, args } = scriptedRun(endpoint);
    writeFileSync(join(workspace, 'found.txt'), 'ORDINARY-CONTENT\n');

    const result = await runCli([...args, 'what is in found.txt?']);
    expect(result.code).toBe(0);
    expect(endpoint.seen).toHaveLength(4);
    expect(JSON.stringify(endpoint.seen[2]?.body)).toContain('ORDINARY-CONTENT');
    expect(JSON.stringify(endpoint.seen[3]?.body)).not.toContain('ORDINARY-CONTENT');
    expect(result.stdout).toContain('[explore] → answered after 1 tool call\n  The file holds a key.\n');
  });
});
