import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sidecarEnvironment, type SidecarLauncher } from '../../src/supervisor/sidecar-launcher.js';
import { closedAfterEachTest } from '../../../../test/support/per-test.js';
import { startTempHost } from '../support/temp-host.js';
import { waitFor } from '@bastion/test-support';

const FIXTURE = fileURLToPath(new URL('../fixtures/misbehaving-sidecar.mjs', import.meta.url));

const malformedLauncher: SidecarLauncher = () =>
  Promise.resolve({
    command: process.execPath,
    args: [FIXTURE],
    env: { ...sidecarEnvironment(), FIXTURE_MODE: 'malformed-frames', FIXTURE_FRAMES: '1000' },
  });

const startHost = closedAfterEachTest(startTempHost, (host) => host.stop());

describe('channel faults from a fake sidecar (real processes)', () => {
  it('closes the channel on the first of 1 000 malformed frames, replaces the sidecar, and keeps its own memory bounded', async () => {
    const host = await startHost({ launcher: malformedLauncher });
    const heapBefore = process.memoryUsage().heapUsed;
    // Count generations by the supervisor's own records: a generation that fails at once can live
    // shorter than any polling interval.
    const channelFailures = () => host.records.filter((r) => r.event === 'sidecar.channel-failed');
    await waitFor(() => channelFailures().length >= 3, 30_000, 'three sidecar generations');
    const failures = channelFailures();
    expect(host.records.filter((r) => r.event === 'sidecar.exited').length).toBeGreaterThanOrEqual(2);
    // Every failure names a channel code, never the bytes that caused it.
    for (const failure of failures) expect(String(failure.fields.code)).toMatch(/^CHANNEL_/);
    const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
    expect(heapGrowth).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);
});
