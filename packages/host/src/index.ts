export * from './errors.js';
export * from './bastion-host.js';
export * from './daemon-client.js';
export * from './user-data.js';
export * from './consent/host-confirmer.js';
export * from './network/network-authority.js';
export * from './network/route-posture.js';
export * from './sandbox/sandbox-posture.js';
export {
  HOME_READ_ALLOW_ENV,
  hiddenPathEntries,
  listHomeReads,
  type HomeReadEntry,
} from './sandbox/home-read-allowlist.js';
export * from './supervisor/daemon-socket-host.js';
export * from './supervisor/sidecar-launcher.js';
export * from './supervisor/sidecar-supervisor.js';
export * from './ui/ui-server.js';
export * from './ui/open-system-browser.js';
export * from './terminal/terminal-text.js';
export * from './policy/policy-store.js';
export * from './policy/host-audit-log.js';
export * from './policy/host-asks.js';
export * from './mcp/mcp-config-store.js';
export * from './control/control-client.js';
export * from './control/control-protocol.js';
export * from './control/undo-run.js';
export * from './control/session-changes.js';
export * from './control/workspace-sessions.js';
export * from './control/home-lock.js';
export * from './agent-event-reader.js';
export * from './storage/sessions-db-check.js';
