/**
 * What other packages' tests and benchmarks may use of the host's internals (`@bastion/host/testing`):
 * the sandbox policies and sessions, supervisor and launchers, executors and guards they measure
 * or check directly. Not an API for anything that ships.
 */
export { CommandExecutor } from './commands/command-executor.js';
export { buildCommandSandboxProfile } from './commands/command-profile.js';
export { EgressGuard } from './network/egress-guard.js';
export { createSystemRoute } from './network/system-route.js';
export { HostAuditLog } from './policy/host-audit-log.js';
export { PolicyStore } from './policy/policy-store.js';
export { writePrivateFile } from './private-file.js';
export { descendantPids, isSameProcessRunning, processStartTime } from './process-tree.js';
export { sweepDeadHostTempRoots } from './sandbox/host-temp-root.js';
export { createPlaceholderWarden } from './sandbox/placeholder-warden.js';
export { createPrivateTempDir } from './sandbox/private-temp-dir.js';
export { checkSandboxPolicy } from './sandbox/sandbox-policy-check.js';
export { buildSidecarSandboxPolicy } from './sandbox/sidecar-sandbox-policy.js';
export { acquireSrtSession } from './sandbox/srt-session.js';
export { createSrtSidecarLauncher } from './sandbox/srt-sidecar-launcher.js';
export { DaemonSocketHost } from './supervisor/daemon-socket-host.js';
export { plainLauncher, resolveDaemonEntry, type SidecarLauncher } from './supervisor/sidecar-launcher.js';
export { SidecarSupervisor } from './supervisor/sidecar-supervisor.js';
export { buildDesktopCsp } from './ui/csp.js';
export { TempFileJournal } from './workspaces/temp-file-journal.js';
export { resolveWritable, writeWorkspaceFile } from './workspaces/workspace-files.js';
export { attachWorkspaceWrites } from './workspaces/workspace-writes.js';
export { ProtectedLinkIndex, protectedLinkTargets } from './workspaces/protected-link-targets.js';
