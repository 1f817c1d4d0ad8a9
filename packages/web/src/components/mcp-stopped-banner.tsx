/**
 * Above a session's transcript: each MCP server of its project that is not running (it failed to
 * start, or stopped), so the person knows the agent has none of its tools and why, with the way
 * to Settings → MCP servers. Read from the host when the session opens and after each run; hidden
 * by Dismiss until another server fails.
 */
import { useEffect, useState } from 'react';
import { UI_MCP_ERROR_SHOWN_CHARS } from '@bastion/protocol';
import type { BastionApi, McpServerStatus } from '@bastion/bridge';

export function McpStoppedBanner({
  bastion,
  workspace,
  runsEnded,
  onMcpServers,
}: {
  bastion: BastionApi;
  workspace: string;
  /** Grows when a run of this session ends: the servers are read again. */
  runsEnded: number;
  onMcpServers: () => void;
}) {
  const [failed, setFailed] = useState<McpServerStatus[]>([]);
  const [dismissed, setDismissed] = useState<string>();
  useEffect(() => {
    let current = true;
    bastion.mcp
      .list(workspace)
      .then((listing) => current && setFailed(listing.servers.filter((server) => server.state === 'failed')))
      // Settings says why the list cannot be read; the session goes on without the banner.
      .catch(() => current && setFailed([]));
    return () => {
      current = false;
    };
  }, [bastion, workspace, runsEnded]);

  const names = failed.map((server) => server.name).join(',');
  if (failed.length === 0 || dismissed === names) return null;
  return (
    <div className="banner banner-warn mcp-stopped" role="status" aria-label="MCP servers not running">
      {failed.map((server) => {
        const error = server.error ?? 'it failed';
        return (
          <p key={server.name}>
            MCP server <code>{server.name}</code> is not running, so the agent has none of its tools:{' '}
            {error.length > UI_MCP_ERROR_SHOWN_CHARS ? `${error.slice(0, UI_MCP_ERROR_SHOWN_CHARS - 1)}…` : error}
          </p>
        );
      })}
      <p>
        <button type="button" onClick={onMcpServers}>
          MCP servers
        </button>{' '}
        <button type="button" onClick={() => setDismissed(names)}>
          Dismiss
        </button>
      </p>
    </div>
  );
}
