/**
 * One host a userData (SEC-004: a second process must not touch the running host's state behind
 * its back). The lock is SQLite's fcntl lock on `<userData>/host.lock`, taken EXCLUSIVE and held
 * until the host releases it or its process dies; the kernel drops it with the process, so a host
 * killed with SIGKILL leaves no stale lock to detect. SQLite also refuses a second connection in
 * the same process, so an in-process second host is refused too. Does not catch a second host on
 * a file system without working fcntl locks (some network mounts).
 */
import Database from 'better-sqlite3';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { CONTROL_HOLDER_WAIT_MS } from '@bastion/protocol';
import { HostError } from '../errors.js';
import { askRunningHost } from './control-client.js';
import { holderStatusSchema, type HolderStatus } from './control-protocol.js';

export const HOME_LOCK_FILE = 'host.lock';

export interface HomeLock {
  release(): void;
}

/** Take the home's lock; `undefined` when another live host holds it. */
export function tryAcquireHomeLock(userData: string): HomeLock | undefined {
  const path = join(userData, HOME_LOCK_FILE);
  let db: Database.Database;
  try {
    // Created 0600 before SQLite opens it (it would use the umask's mode).
    closeSync(openSync(path, 'a', 0o600));
    db = new Database(path, { timeout: 0 });
  } catch (cause) {
    throw new HostError('HOME_LOCK_FAILED', `cannot open ${path}`, { cause });
  }
  try {
    // No journal file: nothing is ever written, and a killed host then leaves only host.lock behind.
    db.pragma('journal_mode = OFF');
    db.pragma('locking_mode = EXCLUSIVE');
    // An exclusive transaction that never commits holds the write lock for the connection's life.
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') return undefined;
    throw new HostError('HOME_LOCK_FAILED', `cannot lock ${path}`, { cause: error });
  }
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      db.close();
    },
  };
}

/** A second process found the home taken; `holder` says by whom when its control socket answered. */
export class HomeInUseError extends HostError {
  override readonly name = 'HomeInUseError';
  constructor(
    readonly userData: string,
    readonly holder: HolderStatus | undefined,
  ) {
    super(
      'HOME_IN_USE',
      holder
        ? `${userData} is in use by another Bastion (pid ${holder.pid}, \`bastion ${holder.command}\`, UI ${holder.ui})`
        : `${userData} is in use by another Bastion process`,
    );
  }
}

/** Take the home's lock, or throw HomeInUseError naming the holder (waiting briefly for a holder that is still starting). */
export async function acquireHomeLock(userData: string): Promise<HomeLock> {
  const lock = tryAcquireHomeLock(userData);
  if (lock) return lock;
  const deadline = Date.now() + CONTROL_HOLDER_WAIT_MS;
  for (;;) {
    const holder = await askRunningHost(userData, { op: 'status' }, holderStatusSchema).catch(() => undefined);
    if (holder || Date.now() >= deadline) throw new HomeInUseError(userData, holder);
    await delay(100);
    // The holder may have stopped meanwhile.
    const retried = tryAcquireHomeLock(userData);
    if (retried) return retried;
  }
}
