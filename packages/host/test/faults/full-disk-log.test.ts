/**
 * The host's log sink on a full disk (a real tmpfs, mounted for the test): a record that does not
 * fit is dropped, never thrown, and once space is freed the next record notes how many were lost.
 * Mounting needs root; elsewhere the suite is skipped, saying so.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { LogRecord } from '@bastion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canMount, fillDisk, mountTmpfs, type Tmpfs } from '../../../../test/support/tmpfs.js';
import { createHostLogSink } from '../../src/logger.js';

function record(event: string): LogRecord {
  return { time: new Date().toISOString(), level: 'info', source: 'host', event, fields: {} };
}

describe.skipIf(!canMount)('host log sink on a full tmpfs (skipped unless root: mounting a tmpfs needs root)', () => {
  let disk: Tmpfs | undefined;
  beforeAll(() => {
    disk = mountTmpfs('256k');
  });
  afterAll(() => disk?.unmount());

  it('drops a record the full disk cannot take without throwing, and notes the count once space is back', () => {
    const mount = disk?.path ?? '';
    const sink = createHostLogSink({ userData: mount, stderr: 'none' });
    sink(record('before.fill'));
    const filler = join(mount, 'filler');
    const log = join(mount, 'logs', 'host.log');
    fillDisk(filler, 'w');
    // The log's own last block fills too, as it would from the host's own records.
    fillDisk(log, 'a');
    expect(() => sink(record('while.full'))).not.toThrow();
    expect(readFileSync(log, 'utf8')).not.toContain('while.full');
    rmSync(filler);
    sink(record('after.free'));
    const text = readFileSync(log, 'utf8');
    expect(text).toContain('"event":"before.fill"');
    expect(text).toMatch(/"event":"log\.records-dropped","fields":\{"count":1\}/);
    expect(text).toContain('"event":"after.free"');
  });
});
