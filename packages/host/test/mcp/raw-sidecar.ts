/**
 * Test support for the MCP tests: the host's channel module on a real channel pair, its sidecar
 * end sending raw `mcp.*` frames as a misbehaving sidecar could, granted one workspace.
 */
import { createLogger, type FrameOfType, type HostToSidecarFrame, type Logger } from '@bastion/protocol';
import { connectedChannelPair } from '../../../../test/support/channel-pair.js';
import { attachMcpCalls } from '../../src/mcp/mcp-channel.js';
import type { McpHub } from '../../src/mcp/mcp-hub.js';
import type { PolicyStore } from '../../src/policy/policy-store.js';

type Answer = FrameOfType<HostToSidecarFrame, 'mcp.result' | 'mcp.error'>;
type Listed = FrameOfType<HostToSidecarFrame, 'mcp.listed'>;

export function rawSidecar(options: { hub: McpHub; workspace: string; policy: PolicyStore; log?: Logger }) {
  const pair = connectedChannelPair();
  const detach = attachMcpCalls(
    { channel: pair.host, config: { workspaces: [options.workspace] } as never },
    {
      hub: options.hub,
      policy: options.policy,
      asks: undefined,
      log: options.log ?? createLogger('host', () => undefined),
    },
  );
  let next = 0;
  const waiting = new Map<string, (frame: Answer) => void>();
  const lists = new Map<string, (frame: Listed) => void>();
  pair.sidecar.on('mcp.result', (frame) => waiting.get(frame.id)?.(frame));
  pair.sidecar.on('mcp.error', (frame) => waiting.get(frame.id)?.(frame));
  pair.sidecar.on('mcp.listed', (frame) => lists.get(frame.id)?.(frame));
  const answer = (id: string) => new Promise<Answer>((resolve) => waiting.set(id, resolve));
  return {
    /** `args`: an object, or the raw text a sidecar could send instead. */
    call(server: string, tool: string, args: Record<string, unknown> | string = {}, root = options.workspace) {
      const id = `mcc_test${(next += 1)}`;
      const answered = answer(id);
      pair.sidecar.send({
        v: 1,
        type: 'mcp.call',
        id,
        workspace_root: root,
        server,
        tool,
        arguments: typeof args === 'string' ? args : JSON.stringify(args),
      });
      return answered;
    },
    /** The `mcp.listed` answer to an `mcp.list` of the granted workspace. */
    list() {
      const id = `mcl_test${(next += 1)}`;
      const listed = new Promise<Listed>((resolve) => lists.set(id, resolve));
      pair.sidecar.send({ v: 1, type: 'mcp.list', id, workspace_root: options.workspace });
      return listed;
    },
    close() {
      detach();
      pair.host.fail({ code: 'CHANNEL_CLOSED', message: 'test done' } as never);
    },
  };
}
