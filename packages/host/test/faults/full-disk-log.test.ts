/**
 * The host's log sink on a full disk (a real tmpfs, mounted for the test): a record that does not
 * fit is dropped, never thrown, and once space is freed the next record notes how many were lost.
 * Mounting needs root; elsewhere the suite is skipped, saying so.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { LogRecord } from '@bastion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHostLogSink } from '../../src/logger.js';
import { makeTempDir } from '../support/temp-host.js';

const isRoot = process.getuid?.() === 0;

function record(event: string): LogRecord {
  return { time: new Date().toISOString(), level: 'info', source: 'host', event, fields: {} };
}

/** Append to `path` until the disk refuses even one more byte (ENOSPC). */
function fill(path: string, flags: 'w' | 'a'): void {
  const fd = openSync(path, flags);
  try {
    for (const size of [4096, 1]) {
      try {
        for (;;) writeSync(fd, Buffer.alloc(size, 0x2e));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
}

describe.skipIf(!isRoot)('host log sink on a full tmpfs (skipped unless root: mounting a tmpfs needs root)', () => {
  let mount = '';
  beforeAll(() => {
    mount = makeTempDir('bastion-fulldisk-');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k,mode=0700', 'tmpfs', mount]);
  });
  afterAll(() => {
    if (mount) execFileSync('umount', [mount]);
  });

  it('drops a record the full disk cannot take without throwing, and notes the count once space is back', () => {
    const sink = createHostLogSink({ userData: mount, stderr: 'none' });
    sink(record('before.fill'));
    const filler = join(mount, 'filler');
    const log = join(mount, 'logs', 'host.log');
    fill(filler, 'w');
    // The log's own last block fills too, as it would from the host's own records.
    fill(log, 'a');
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
