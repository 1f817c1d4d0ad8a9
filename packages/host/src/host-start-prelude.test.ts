/**
 * The CLI's early host start (host-start-prelude.ts) is taken only by the start it was begun for:
 * one begun for another home (or another ownership) is released, its temp root and journal entry
 * gone, and the steps run again for the home at hand. Real directories; this file's own process
 * claims the temp roots (TMPDIR moves into them and back).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '@bastion/test-support';
import { beginProcessHostStart, releaseUntakenHostStart, takeHostStart } from './host-start-prelude.js';

let base: string;
const userTmpdir = process.env.TMPDIR;
beforeEach(() => {
  base = makeTempDir('bastion-prelude-');
});
afterEach(async () => {
  await releaseUntakenHostStart();
});

const journal = (home: string) => readdirSync(join(home, 'host', 'temp-journal'));

describe('the host-start prelude', () => {
  it('a host takes the prelude begun for its own home: the same temp root, still claimed', async () => {
    const home = join(base, 'home');
    beginProcessHostStart({ userData: home, ownsProcess: true, srt: false });
    const claimed = process.env.TMPDIR;
    const taken = await takeHostStart({ userData: home, ownsProcess: true, srt: false });
    try {
      expect(taken.temp.path).toBe(claimed);
      expect(existsSync(claimed ?? '')).toBe(true);
      expect(journal(home)).toEqual([`${process.pid}.json`]);
    } finally {
      await taken.release();
    }
    expect(existsSync(claimed ?? '')).toBe(false);
    expect(journal(home)).toEqual([]);
    expect(process.env.TMPDIR).toBe(userTmpdir);
  });

  it("a prelude begun for another home is released (its root and journal entry gone) and the start's own home is claimed instead", async () => {
    const other = join(base, 'other');
    const home = join(base, 'home');
    beginProcessHostStart({ userData: other, ownsProcess: true, srt: false });
    const otherRoot = process.env.TMPDIR ?? '';
    expect(journal(other)).toEqual([`${process.pid}.json`]);
    const taken = await takeHostStart({ userData: home, ownsProcess: true, srt: false });
    try {
      expect(existsSync(otherRoot)).toBe(false);
      expect(journal(other)).toEqual([]);
      expect(taken.owned.path).toBe(realpathSync(home));
      expect(taken.temp.path).not.toBe(otherRoot);
      expect(process.env.TMPDIR).toBe(taken.temp?.path);
      expect(journal(home)).toEqual([`${process.pid}.json`]);
    } finally {
      await taken.release();
    }
    expect(process.env.TMPDIR).toBe(userTmpdir);
  });

  it('a prelude begun with another ownership is not taken: a host that does not own the process gets a root of its own, journaled under its pid and the root, with TMPDIR left alone', async () => {
    const home = join(base, 'home');
    beginProcessHostStart({ userData: home, ownsProcess: true, srt: false });
    const claimed = process.env.TMPDIR ?? '';
    const taken = await takeHostStart({ userData: home, ownsProcess: false, srt: false });
    const own = taken.temp.path;
    try {
      expect(existsSync(claimed)).toBe(false);
      expect(process.env.TMPDIR).toBe(userTmpdir);
      expect(basename(own)).toMatch(/^bastion-host-[0-9a-f]{16}$/);
      expect(existsSync(own)).toBe(true);
      expect(journal(home)).toEqual([`${process.pid}-${basename(own).slice('bastion-host-'.length)}.json`]);
    } finally {
      await taken.release();
    }
    expect(existsSync(own)).toBe(false);
    expect(journal(home)).toEqual([]);
  });

  it('the next start on a home sweeps the root an in-process host of a dead process journaled there', async () => {
    const home = join(base, 'home');
    const first = await takeHostStart({ userData: home, ownsProcess: false, srt: false });
    const left = first.temp.path;
    // A process that has died (pid 2^22 + 1 is above Linux's pid_max) journaled this root and left it.
    const [entry] = journal(home);
    renameSync(
      join(home, 'host', 'temp-journal', entry ?? ''),
      join(home, 'host', 'temp-journal', `4194305-${basename(left).slice('bastion-host-'.length)}.json`),
    );
    const next = await takeHostStart({ userData: home, ownsProcess: false, srt: false });
    try {
      expect(existsSync(left)).toBe(false);
      expect(next.temp.swept).toBe(1);
      expect(journal(home)).toEqual([`${process.pid}-${basename(next.temp.path).slice('bastion-host-'.length)}.json`]);
    } finally {
      await next.release();
      await first.release();
    }
  });

  it('one no host took is released when the command has finished, and the home it made goes with it', async () => {
    const home = join(base, 'new', 'home');
    beginProcessHostStart({ userData: home, ownsProcess: true, srt: false });
    const claimed = process.env.TMPDIR ?? '';
    expect(journal(home)).toHaveLength(1);
    await releaseUntakenHostStart();
    expect(existsSync(claimed)).toBe(false);
    expect(existsSync(join(base, 'new'))).toBe(false);
    expect(process.env.TMPDIR).toBe(userTmpdir);
  });

  it('releasing one no host took keeps a home that was there before, and what it holds', async () => {
    const home = join(base, 'home');
    mkdirSync(home, { mode: 0o700 });
    writeFileSync(join(home, 'preferences.json'), '{}');
    beginProcessHostStart({ userData: home, ownsProcess: true, srt: false });
    const claimed = process.env.TMPDIR ?? '';
    await releaseUntakenHostStart();
    expect(existsSync(claimed)).toBe(false);
    expect(journal(home)).toEqual([]);
    expect(readFileSync(join(home, 'preferences.json'), 'utf8')).toBe('{}');
  });

  it('releasing one no host took removes only empty directories of a home it made: a file written there meanwhile stays', async () => {
    const home = join(base, 'home');
    beginProcessHostStart({ userData: home, ownsProcess: true, srt: false });
    writeFileSync(join(home, 'sessions.db'), 'written by another start');
    await releaseUntakenHostStart();
    expect(readFileSync(join(home, 'sessions.db'), 'utf8')).toBe('written by another start');
  });
});
