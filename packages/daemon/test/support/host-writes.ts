/**
 * Test support: the daemon's workspace writes performed by the host's real code, in this process.
 * A daemon-side HostWorkspaceWriter and the host's attachWorkspaceWrites (host
 * workspaces/workspace-writes.ts) talk over a real channel v1 pair (the codec, the strict frame
 * schemas, the binary chunk frames) on in-memory streams, with the host's policy store in
 * `userData` (no rules unless a test writes them) and its write journal in `userData/host`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '@bastion/protocol';
import { attachWorkspaceWrites, PolicyStore, ProtectedLinkIndex, TempFileJournal } from '@bastion/host/testing';
import { connectedChannelPair } from '../../../../test/support/channel-pair.js';
import { HostWorkspaceWriter } from '../../src/workspaces/workspace-writer.js';

export function hostWrites(options: { userData: string; workspaces: readonly string[] }): HostWorkspaceWriter {
  const { host, sidecar } = connectedChannelPair();
  const hostDir = join(options.userData, 'host');
  mkdirSync(hostDir, { recursive: true, mode: 0o700 });
  attachWorkspaceWrites(
    { channel: host, config: { workspaces: [...options.workspaces] } },
    {
      userData: options.userData,
      policy: new PolicyStore(options.userData),
      journal: new TempFileJournal(hostDir),
      links: new ProtectedLinkIndex(),
      log: createLogger('host', () => undefined),
    },
  );
  return new HostWorkspaceWriter(sidecar);
}
