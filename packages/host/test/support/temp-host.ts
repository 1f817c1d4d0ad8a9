/**
 * Test support: a real host (real sidecar process, real sockets) on a temporary userData and
 * workspace, plus every log record it wrote, for canary scans. Stop it after the test: in
 * afterEach, or start it through `closedAfterEachTest(startTempHost, (host) => host.stop())`.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { LogRecord } from '@bastion/protocol';
import { makeTempDir } from '@bastion/test-support';
import { startBastionHost, type BastionHost, type BastionHostOptions } from '../../src/bastion-host.js';

export interface TempHost extends BastionHost {
  readonly root: string;
  readonly workspace: string;
  readonly records: LogRecord[];
}

export async function startTempHost(options: Partial<BastionHostOptions> = {}): Promise<TempHost> {
  const root = makeTempDir();
  const workspace = join(root, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const records: LogRecord[] = [];
  const host = await startBastionHost({
    userData: join(root, 'home'),
    workspaces: [workspace],
    stderr: 'none',
    ...options,
    logTap: (record) => {
      records.push(record);
      options.logTap?.(record);
    },
  });
  const stop = async () => {
    await host.stop();
    rmSync(root, { recursive: true, force: true });
  };
  return { ...host, root, workspace, records, stop };
}
