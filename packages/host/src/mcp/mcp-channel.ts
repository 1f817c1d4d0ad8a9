/**
 * The sidecar's way to MCP servers: `mcp.list` (a workspace's servers and their tools; the host
 * starts what is not running) and `mcp.call` (one tool), answered with `mcp.listed`,
 * `mcp.result` or `mcp.error`. The host is the MCP client, so the sidecar never holds a server's
 * pipes, and every call passes the watchdog's policy here, on the call as the host will make it,
 * whatever the sidecar asked before: `deny`/`hard-deny` is refused (MCP_POLICY_DENIED) and `ask`
 * is put to the person by the host itself (host-asks.ts), refused unless they say yes. An answer,
 * and a server's error message, is cut of every variable the user gave a server (a token) before
 * it is sent on.
 *
 * What it does not catch: which session or run a call belongs to is the sidecar's word (recorded
 * beside the decision, never decided by).
 */
import {
  MCP_CALL_ARGS_MAX_BYTES,
  MCP_CALL_TIMEOUT_MS,
  MCP_ERROR_MAX_CHARS,
  MCP_LISTING_MAX_BYTES,
  MCP_MAX_CONCURRENT_CALLS,
  MCP_RESULT_MAX_BYTES,
  mcpToolName,
  type FrameOfType,
  type Logger,
  type McpCallErrorCode,
  type SidecarToHostFrame,
} from '@bastion/protocol';
import type { SidecarHandle } from '../supervisor/sidecar-supervisor.js';
import type { HostAsks } from '../policy/host-asks.js';
import type { PolicyStore } from '../policy/policy-store.js';
import { resultText } from './mcp-content-text.js';
import type { McpHub, McpListedTool } from './mcp-hub.js';

type Sidecar = Pick<SidecarHandle, 'channel' | 'config'>;
type CallFrame = FrameOfType<SidecarToHostFrame, 'mcp.call'>;

export interface McpChannelOptions {
  hub: McpHub;
  policy: PolicyStore;
  asks: HostAsks | undefined;
  log: Logger;
}

/** Cut `text` to at most `max` UTF-8 bytes, on a character boundary. */
function cutUtf8(text: string, max: number): { text: string; truncated: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.byteLength <= max) return { text, truncated: false };
  let end = max;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return { text: bytes.subarray(0, end).toString('utf8'), truncated: true };
}

/** The servers' tools, within what one `mcp.listed` frame may carry; the rest are left out. */
function withinFrame(
  servers: { name: string; state: 'stopped' | 'starting' | 'ready' | 'failed'; tools: McpListedTool[] }[],
): typeof servers {
  let room = MCP_LISTING_MAX_BYTES;
  return servers.map((server) => {
    const tools: McpListedTool[] = [];
    for (const tool of server.tools) {
      const size = Buffer.byteLength(JSON.stringify(tool));
      if (size > room) break;
      room -= size;
      tools.push(tool);
    }
    return { ...server, tools };
  });
}

export function attachMcpCalls(sidecar: Sidecar, options: McpChannelOptions): () => void {
  const { hub, log } = options;
  /** Calls in flight, for MCP_MAX_CONCURRENT_CALLS. */
  const calls = new Map<string, AbortController>();
  const send = (frame: Parameters<Sidecar['channel']['send']>[0]) => {
    if (!sidecar.channel.closed) sidecar.channel.send(frame);
  };
  const granted = (root: string) => sidecar.config.workspaces.includes(root);

  sidecar.channel.on('mcp.list', (frame) => {
    if (!granted(frame.workspace_root)) {
      return send({ v: 1, type: 'mcp.listed', id: frame.id, available: hub.available, servers: [] });
    }
    void hub
      .tools(frame.workspace_root)
      .then((servers) =>
        send({ v: 1, type: 'mcp.listed', id: frame.id, available: hub.available, servers: withinFrame(servers) }),
      )
      .catch(() => send({ v: 1, type: 'mcp.listed', id: frame.id, available: hub.available, servers: [] }));
  });

  sidecar.channel.on('mcp.call', (frame) => {
    const refuse = (code: McpCallErrorCode, message?: string) => {
      log.info('mcp.refused', { server: frame.server, code });
      send({
        v: 1,
        type: 'mcp.error',
        id: frame.id,
        code,
        ...(message === undefined ? {} : { message: message.slice(0, MCP_ERROR_MAX_CHARS) }),
      });
    };
    if (calls.has(frame.id)) return refuse('MCP_DUPLICATE_ID');
    if (!hub.available) return refuse('MCP_UNAVAILABLE');
    if (!granted(frame.workspace_root)) return refuse('MCP_WORKSPACE_REFUSED');
    if (calls.size >= MCP_MAX_CONCURRENT_CALLS) return refuse('MCP_BUSY');
    const controller = new AbortController();
    calls.set(frame.id, controller);
    void call(frame, controller.signal, refuse).finally(() => calls.delete(frame.id));
  });

  sidecar.channel.on('mcp.abort', (frame) => calls.get(frame.id)?.abort());

  async function call(
    frame: CallFrame,
    signal: AbortSignal,
    refuse: (code: McpCallErrorCode, message?: string) => void,
  ): Promise<void> {
    const name = mcpToolName(frame.server, frame.tool);
    if (name === undefined) return refuse('MCP_TOOL_UNKNOWN');
    let args: unknown;
    try {
      args = JSON.parse(frame.arguments);
    } catch {
      return refuse('MCP_ARGUMENTS_INVALID', 'the arguments are not JSON');
    }
    if (
      typeof args !== 'object' ||
      args === null ||
      Array.isArray(args) ||
      frame.arguments.length > MCP_CALL_ARGS_MAX_BYTES
    ) {
      return refuse('MCP_ARGUMENTS_INVALID', 'the arguments must be a JSON object');
    }
    const audited = { stage: 'mcp', session_id: frame.session_id, run_id: frame.run_id } as const;
    const verdict = options.policy.evaluate({ tool: name, workspace_root: frame.workspace_root }, audited);
    if (verdict.verdict === 'deny' || verdict.verdict === 'hard-deny') {
      return refuse('MCP_POLICY_DENIED', verdict.reason ?? `denied by rule ${verdict.rule_id ?? ''}`);
    }
    if (verdict.verdict === 'ask') {
      const outcome = await (options.asks === undefined
        ? Promise.resolve('unanswered' as const)
        : options.asks.ask(
            {
              tool: name,
              workspace_root: frame.workspace_root,
              ...(verdict.rule_id === undefined ? {} : { rule_id: verdict.rule_id }),
              ...(verdict.reason === undefined ? {} : { reason: verdict.reason }),
              ...(frame.session_id === undefined ? {} : { session_id: frame.session_id }),
            },
            signal,
            audited,
          ));
      log.info('mcp.asked', { server: frame.server, outcome });
      if (signal.aborted) return;
      if (outcome !== 'approved') return refuse('MCP_POLICY_UNAPPROVED');
    }
    const target = hub.callable(frame.workspace_root, frame.server, frame.tool);
    if ('code' in target) return refuse(target.code);
    const started = performance.now();
    try {
      const result = await target.client.callTool(
        { name: frame.tool, arguments: args as Record<string, unknown> },
        undefined,
        { signal, timeout: MCP_CALL_TIMEOUT_MS },
      );
      if (signal.aborted) return;
      const text = cutUtf8(hub.redact(resultText(result as Parameters<typeof resultText>[0])), MCP_RESULT_MAX_BYTES);
      log.info('mcp.called', {
        server: frame.server,
        bytes: Buffer.byteLength(text.text),
        duration_ms: Math.round(performance.now() - started),
      });
      send({ v: 1, type: 'mcp.result', id: frame.id, is_error: result.isError === true, ...text });
    } catch (error) {
      if (signal.aborted) return;
      const timedOut = error instanceof Error && /timed? ?out/i.test(error.message);
      if (timedOut)
        return refuse('MCP_CALL_TIMEOUT', `the server did not answer within ${MCP_CALL_TIMEOUT_MS / 1000} s`);
      // The server's own error message is its words about the call (the model reads them as a tool
      // result), cut of the held values as its answers are.
      return refuse('MCP_CALL_FAILED', error instanceof Error ? hub.redact(error.message) : 'the call failed');
    }
  }

  return () => {
    for (const controller of calls.values()) controller.abort();
    calls.clear();
  };
}
