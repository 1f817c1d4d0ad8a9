/**
 * Where a start's time goes (issue 21): a real sandboxed host writes one `startup.stage` record
 * per stage, its own and the sidecar's (forwarded from its stderr), which `npm run bench -- start`
 * reads from host.log. The records carry a stage name and a duration only.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { LogRecord } from '@bastion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor, makeTempDir } from '@bastion/test-support';
import { startTempHost, type TempHost } from '../support/temp-host.js';

let host: TempHost | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

function stages(records: readonly LogRecord[], source: string): Map<string, LogRecord['fields']> {
  return new Map(
    records
      .filter((record) => record.event === 'startup.stage' && record.source === source)
      .map((record) => [String(record.fields.stage), record.fields]),
  );
}

describe('start-up stages', () => {
  it('a sandboxed start logs each host and sidecar stage once, with a duration and nothing else', async () => {
    const home = makeTempDir('bastion-home-');
    mkdirSync(join(home, '.ssh'));
    host = await startTempHost({ home });
    expect(host.capabilities.sandbox).toBe('srt');
    const records = host.records;
    // The sidecar's records come through its stderr, which may trail its readiness over IPC.
    await waitFor(() => records.some((record) => record.event === 'sidecar.ready' && record.source === 'daemon'));
    const hostStages = stages(records, 'host');
    const sidecarStages = stages(records, 'daemon');
    expect([...hostStages.keys()].sort()).toEqual([
      'host-load',
      'process-start',
      'sidecar',
      'sidecar-launch',
      'srt-initialize',
    ]);
    expect([...sidecarStages.keys()].sort()).toEqual(['agent-runtime', 'bootstrap', 'process-start']);
    for (const fields of [...hostStages.values(), ...sidecarStages.values()]) {
      expect(Object.keys(fields).filter((key) => key !== 'attempt')).toEqual(['stage', 'duration_ms']);
      expect(fields.duration_ms).toBeGreaterThanOrEqual(0);
    }
    // The sidecar's ready record carries its uptime, which the bench subtracts to find the sandbox's set-up.
    const ready = records.find((record) => record.event === 'sidecar.ready' && record.source === 'daemon');
    expect(ready?.fields.duration_ms).toBeGreaterThan(0);
  });
});
