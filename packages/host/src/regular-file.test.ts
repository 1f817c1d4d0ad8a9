import { execFileSync } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '@bastion/test-support';
import { readRegularFile } from './regular-file.js';

describe('readRegularFile', () => {
  it('reads a regular file up to the bound; a larger one, a missing one, a link to one and a FIFO (no writer: it would wait forever) give undefined', () => {
    const dir = makeTempDir('bastion-regular-file-');
    writeFileSync(join(dir, 'plain'), 'four');
    symlinkSync(join(dir, 'plain'), join(dir, 'link'));
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    expect(readRegularFile(join(dir, 'plain'), 4)?.toString()).toBe('four');
    expect(readRegularFile(join(dir, 'plain'), 3)).toBeUndefined();
    expect(readRegularFile(join(dir, 'missing'), 4)).toBeUndefined();
    expect(readRegularFile(join(dir, 'link'), 4)).toBeUndefined();
    expect(readRegularFile(join(dir, 'fifo'), 4)).toBeUndefined();
  });
});
