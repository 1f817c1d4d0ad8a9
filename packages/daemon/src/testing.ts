/**
 * What other packages' tests and benchmarks may use of the daemon's internals (`@bastion/daemon/testing`):
 * its store, to seed or read sessions.db as the sidecar would, and the parts a host-side harness
 * drives directly. Not an API for anything that ships.
 */
export { formatSseEvent } from './agent/event-stream.js';
export type { HostChannel } from './channel/host-channel.js';
export { ChatgptCredentials } from './oauth/chatgpt-credentials.js';
export type { ProviderDefinition } from './providers/provider-registry.js';
export { AuthStore } from './secrets/auth-store.js';
export { CommandClient, type CommandRunResult } from './shell/command-client.js';
export { createRunCommandTool } from './shell/run-command-tool.js';
export type { ShellRefusal } from './shell/shell-error.js';
export { AuditLog } from './storage/audit-log.js';
export { openDatabase } from './storage/database.js';
export { SessionStore } from './storage/session-store.js';
export { ProviderTransport } from './transport/transport-fetch.js';
export { createFileTools } from './tools/file-tools.js';
export { WorkspaceRoots } from './workspaces/workspace-roots.js';
export type { WorkspaceWriter } from './workspaces/workspace-writer.js';
export { HostWorkspaceWriter } from './workspaces/workspace-writer.js';
