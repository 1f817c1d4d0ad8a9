/**
 * The host IPC channels the desktop app may call, each registered through `guarded()`.
 * `agent.server-info` answers with the current sidecar's port and per-spawn password, read fresh
 * on every call, so the bridge follows a restarted sidecar without a reload. The ChatGPT channels
 * reach the host coordinator (SEC-008) and answer with safe status only. The two consent
 * channels only *ask*: the host confirmer (the terminal, or the host's command line) decides, and
 * the renderer learns the verdict.
 */
import { realpath, stat } from 'node:fs/promises';
import { checkEndpointUrl, isWireErrorCode, SIDECAR_READY_TIMEOUT_MS, type ConsentOutcome } from '@bastion/protocol';
import type { HostConfirmer } from '../consent/host-confirmer.js';
import type { CustomGrantResult } from '../network/network-authority.js';
import type { ChatgptCoordinator } from '../oauth/chatgpt-coordinator.js';
import type { DaemonSocketHost } from '../supervisor/daemon-socket-host.js';
import type { SidecarSupervisor } from '../supervisor/sidecar-supervisor.js';
import { APP_PAGES } from './desktop-app.js';
import { HostError } from '../errors.js';
import type { HostAsks } from '../policy/host-asks.js';
import type { HostAuditLog } from '../policy/host-audit-log.js';
import type { McpHub } from '../mcp/mcp-hub.js';
import type { PolicyScope, PolicyStore } from '../policy/policy-store.js';
import { HostIpcFailure, type HostIpc } from './host-ipc.js';

export interface HostIpcDependencies {
  supervisor: SidecarSupervisor;
  socketHost: DaemonSocketHost;
  confirmer: HostConfirmer;
  /** Ask the confirmer, then grant the endpoint's exact origin. */
  grantEndpoint(url: string): Promise<CustomGrantResult>;
  /** Grant a workspace root (the sidecar respawns under the new policy). */
  grantWorkspace(dir: string): Promise<void>;
  /** SEC-008: the renderer's four ChatGPT operations; it only ever sees safe status. */
  chatgpt: Pick<ChatgptCoordinator, 'connect' | 'cancel' | 'status' | 'signOut'>;
  /** The watchdog's rules, edited here and never through the daemon. */
  policy: PolicyStore;
  /** The host's own record of every answer its policy gave, read here and never through the daemon. */
  audit: HostAuditLog;
  /** Tool calls held for the person's answer: read and answered here, never through the daemon. */
  asks: HostAsks;
  /** The MCP servers of mcp.json and their processes: listed, added, removed and restarted here, never through the daemon. */
  mcp: McpHub;
  /** The workspace roots the host granted (real paths): the only projects the renderer may edit rules for or see MCP servers in. */
  grantedWorkspaces(): readonly string[];
}

export function registerHostIpcChannels(ipc: HostIpc, deps: HostIpcDependencies): void {
  ipc.guarded('agent.server-info', {
    pages: APP_PAGES,
    async handle() {
      const sidecar = await readySidecar(deps.supervisor);
      return { port: deps.socketHost.port, password: sidecar.password };
    },
  });

  ipc.guarded('chatgpt.connect', { pages: APP_PAGES, handle: () => deps.chatgpt.connect() });
  ipc.guarded('chatgpt.cancel', { pages: APP_PAGES, handle: () => deps.chatgpt.cancel() });
  ipc.guarded('chatgpt.status', { pages: APP_PAGES, handle: () => deps.chatgpt.status() });
  ipc.guarded('chatgpt.sign-out', { pages: APP_PAGES, handle: () => deps.chatgpt.signOut() });

  ipc.guarded('endpoints.request-consent', {
    pages: APP_PAGES,
    async handle({ url }) {
      const granted = await deps.grantEndpoint(url);
      if (granted.ok) return { outcome: 'granted', subject: granted.grant.origin };
      if (granted.code !== 'GRANT_DECLINED') return { outcome: 'denied', code: granted.code };
      return declined(deps.confirmer, checkEndpointUrl(url));
    },
  });

  registerPolicyChannels(ipc, deps);
  registerMcpChannels(ipc, deps);

  // Host-owned asks: the page waits for the calls the host holds and answers them here; a rule
  // "Always allow" cannot save reaches the page as its code, and the call stays held.
  ipc.guarded('asks.wait', { pages: APP_PAGES, handle: ({ after }) => deps.asks.wait(after) });
  ipc.guarded('asks.answer', {
    pages: APP_PAGES,
    handle: ({ id, answer }) => hostCall(() => deps.asks.answer(id, answer)),
  });

  ipc.guarded('workspaces.request-grant', {
    pages: APP_PAGES,
    async handle({ path }) {
      const root = await existingDirectory(path);
      if (!(await deps.confirmer.confirm({ kind: 'workspace', path: root }))) {
        if (deps.confirmer.asks === 'nobody') return { outcome: 'unavailable', subject: root, code: 'CONSENT_NOBODY' };
        return { outcome: 'denied', subject: root, code: 'WORKSPACE_DECLINED' };
      }
      try {
        await deps.grantWorkspace(root);
      } catch (error) {
        return {
          outcome: 'denied',
          subject: root,
          code: error instanceof HostError ? error.code : 'WORKSPACE_REFUSED',
        };
      }
      return { outcome: 'granted', subject: root };
    },
  });
}

/**
 * A declined endpoint, said truthfully: who said no, or that nobody could be asked — then the
 * exact `--allow-endpoint` base URL to restart with (the renderer shows the command).
 */
function declined(confirmer: HostConfirmer, checked: ReturnType<typeof checkEndpointUrl>): ConsentOutcome {
  const subject = checked.ok ? checked.baseUrl : undefined;
  const base = subject === undefined ? {} : { subject };
  switch (confirmer.asks) {
    case 'nobody':
      return { outcome: 'unavailable', code: 'CONSENT_NOBODY', ...base };
    case 'consent-page':
      return { outcome: 'denied', code: 'DECLINED_ON_PAGE', ...base };
    case 'terminal':
      return { outcome: 'denied', code: 'DECLINED_IN_TERMINAL', ...base };
    case undefined:
      return { outcome: 'denied', code: 'GRANT_DECLINED', ...base };
  }
}

/**
 * The policy channels: the renderer lists, adds and removes rules of a granted workspace's project
 * (or the global ones); the host's store checks every rule and writes policy.json. Built-in rules
 * cannot be removed, and no channel reaches another project's rules. `policy.audit` reads the
 * host's own audit log a page at a time.
 */
function registerPolicyChannels(ipc: HostIpc, deps: HostIpcDependencies): void {
  const scopeOf = (workspace: string | null): PolicyScope => {
    if (workspace === null) return { kind: 'global' };
    const root = deps.grantedWorkspaces().find((granted) => granted === workspace);
    if (root === undefined) throw new HostIpcFailure('POLICY_PROJECT_UNKNOWN', 'not a workspace Bastion was granted');
    return { kind: 'project', root };
  };
  ipc.guarded('policy.list', {
    pages: APP_PAGES,
    handle: ({ workspace }) =>
      hostCall(() => {
        const scope = scopeOf(workspace);
        return deps.policy.listing(scope.kind === 'project' ? scope.root : null);
      }),
  });
  ipc.guarded('policy.add', {
    pages: APP_PAGES,
    handle: ({ workspace, rule }) => hostCall(() => ({ rule: deps.policy.add(scopeOf(workspace), rule) })),
  });
  ipc.guarded('policy.audit', {
    pages: APP_PAGES,
    handle: (query) => hostCall(() => deps.audit.page(query)),
  });
  ipc.guarded('policy.remove', {
    pages: APP_PAGES,
    handle: ({ workspace, id }) => hostCall(() => ({ removed: deps.policy.remove(scopeOf(workspace), id) })),
  });
}

/**
 * The MCP server channels: the renderer lists the servers of mcp.json with their state and tools
 * in a granted workspace, adds one (the hub checks and saves it, then starts it there), removes
 * or restarts one; the message box lists their prompts and resources (starting them as a run
 * would), runs a prompt and reads a resource for the person. The workspace must be exactly one the host granted: a page never starts,
 * stops or sees a server in any other folder. The hub's own refusals (a bad definition, a name
 * in use, an unusable mcp.json) reach the page as their codes.
 */
function registerMcpChannels(ipc: HostIpc, deps: HostIpcDependencies): void {
  const granted = (workspace: string): string => {
    const root = deps.grantedWorkspaces().find((candidate) => candidate === workspace);
    if (root === undefined) throw new HostIpcFailure('WORKSPACE_NOT_GRANTED', 'not a workspace Bastion was granted');
    return root;
  };
  ipc.guarded('mcp.list', {
    pages: APP_PAGES,
    handle: ({ workspace }) => hostCall(() => deps.mcp.listing(granted(workspace))),
  });
  ipc.guarded('mcp.add', {
    pages: APP_PAGES,
    handle: ({ workspace, server }) => hostCall(() => deps.mcp.add(granted(workspace), server)),
  });
  ipc.guarded('mcp.remove', {
    pages: APP_PAGES,
    handle: ({ workspace, name }) => hostCall(() => deps.mcp.remove(granted(workspace), name)),
  });
  ipc.guarded('mcp.restart', {
    pages: APP_PAGES,
    handle: ({ workspace, name }) => hostCall(() => deps.mcp.restart(granted(workspace), name)),
  });
  // The message box's prompts and resources: the person's, run and read here for them, never the agent's.
  ipc.guarded('mcp.catalog', {
    pages: APP_PAGES,
    handle: ({ workspace }) => hostCall(() => deps.mcp.catalog(granted(workspace))),
  });
  ipc.guarded('mcp.prompt', {
    pages: APP_PAGES,
    handle: ({ workspace, server, name, arguments: args }) =>
      hostCall(() => deps.mcp.prompt(granted(workspace), server, name, args)),
  });
  ipc.guarded('mcp.resource', {
    pages: APP_PAGES,
    handle: ({ workspace, server, uri, variables }) =>
      hostCall(() => deps.mcp.resource(granted(workspace), server, uri, variables)),
  });
}

/** A HostError with a wire code (a bad rule, an unusable policy.json) reaches the page as that code. */
function hostCall<T>(call: () => T | Promise<T>): Promise<T> {
  return Promise.resolve()
    .then(call)
    .catch((error: unknown) => {
      if (error instanceof HostError && isWireErrorCode(error.code))
        throw new HostIpcFailure(error.code, error.message);
      throw error;
    });
}

async function existingDirectory(path: string): Promise<string> {
  try {
    if (!path.startsWith('/')) throw new Error('relative');
    const root = await realpath(path);
    if ((await stat(root)).isDirectory()) return root;
  } catch {
    // One answer for every reason, so the renderer cannot probe the file system through it.
  }
  throw new HostIpcFailure('WORKSPACE_PATH', 'not an existing folder (give an absolute path)');
}

async function readySidecar(supervisor: SidecarSupervisor) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new HostIpcFailure('SIDECAR_UNAVAILABLE', 'the agent is restarting; try again')),
      SIDECAR_READY_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([supervisor.whenReady(), timeout]);
  } catch (error) {
    if (error instanceof HostIpcFailure) throw error;
    throw new HostIpcFailure('SIDECAR_UNAVAILABLE', 'the agent is not running');
  } finally {
    clearTimeout(timer);
  }
  const current = supervisor.current;
  if (!current) throw new HostIpcFailure('SIDECAR_UNAVAILABLE', 'the agent is restarting; try again');
  return current;
}
