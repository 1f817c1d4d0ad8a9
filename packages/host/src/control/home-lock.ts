/**
 * One host a userData (SEC-004: a second process must not touch the running host's state behind
 * its back). The lock is `<userData>/host.lock` (file-lock.ts: SQLite's fcntl lock, held until
 * the host releases it or its process dies, so a host killed with SIGKILL leaves no stale lock). SQLite also refuses a second connection in
 * the same process, so an in-process second host is refused too. Does not catch a second host on
 * a file system without working fcntl locks (some network mounts).
 */
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { CONTROL_HOLDER_WAIT_MS } from '@bastion/protocol';
import { HostError } from '../errors.js';
import { takeFileLock, type FileLock } from '../file-lock.js';
import { askRunningHost } from './control-client.js';
import { holderStatusSchema, type HolderStatus } from './control-protocol.js';

export const HOME_LOCK_FILE = 'host.lock';

export type HomeLock = FileLock;

/** Take the home's lock; `undefined` when another live host holds it. */
export function tryAcquireHomeLock(userData: string): HomeLock | undefined {
  return takeFileLock(join(userData, HOME_LOCK_FILE), 0);
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
