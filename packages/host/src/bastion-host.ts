/**
 * Composes the trust anchor: userData, logging, the UI origin, the daemon socket host and the
 * sidecar supervisor. The CLI's `start` and `run` and the integration tests all go through here.
 */
import { realpathSync } from 'node:fs';
import type { Capabilities, Logger, LogSink } from '@bastion/protocol';
import { DaemonClient } from './daemon-client.js';
import { createHostLogger, createHostLogSink } from './logger.js';
import { DaemonSocketHost } from './supervisor/daemon-socket-host.js';
import { plainLauncher, resolveDaemonEntry, type SidecarLauncher } from './supervisor/sidecar-launcher.js';
import { SidecarSupervisor } from './supervisor/sidecar-supervisor.js';
import { UiServer } from './ui/ui-server.js';
import { ensureUserData } from './user-data.js';

export interface BastionHostOptions {
  userData: string;
  workspaces?: string[];
  launcher?: SidecarLauncher;
  capabilities?: Capabilities;
  verbose?: boolean;
  /** Extra log sink; tests use it to scan every record. */
  logTap?: LogSink;
}

export interface BastionHost {
  readonly userData: string;
  readonly daemonUrl: string;
  readonly uiOrigin: string;
  readonly capabilities: Capabilities;
  readonly log: Logger;
  readonly client: DaemonClient;
  readonly supervisor: SidecarSupervisor;
  readonly socketHost: DaemonSocketHost;
  readonly ui: UiServer;
  stop(): Promise<void>;
}

export async function startBastionHost(options: BastionHostOptions): Promise<BastionHost> {
  const { path: userData } = ensureUserData(options.userData);
  const sink = createHostLogSink({ userData, verbose: options.verbose, tap: options.logTap });
  const log = createHostLogger(sink);
  const workspaces = (options.workspaces ?? []).map((dir) => realpathSync(dir));
  const capabilities: Capabilities = options.capabilities ?? {
    sandbox: 'none',
    shell: false,
    platform: process.platform,
    reason: 'no sandbox configured',
  };

  const ui = new UiServer();
  await ui.listen();
  const socketHost = new DaemonSocketHost(log);
  const port = await socketHost.listen();

  const supervisor = new SidecarSupervisor({
    entry: resolveDaemonEntry(),
    launcher: options.launcher ?? plainLauncher,
    socketHost,
    log,
    sidecarLog: createHostLogger(sink, 'daemon'),
    config: () => ({ allowedOrigins: [ui.origin], userData, workspaces, capabilities }),
  });
  const client = new DaemonClient({
    uiOrigin: ui.origin,
    target: async () => {
      await supervisor.whenReady();
      const current = supervisor.current;
      if (!current) throw new Error('sidecar is not ready');
      return { port, password: current.password };
    },
  });

  try {
    await supervisor.start();
  } catch (error) {
    await supervisor.stop();
    await Promise.all([socketHost.close(), ui.close()]);
    throw error;
  }
  log.info('host.ready', { port, sandbox: capabilities.sandbox, shell: capabilities.shell });

  let stopped: Promise<void> | undefined;
  return {
    userData,
    daemonUrl: `http://127.0.0.1:${port}`,
    uiOrigin: ui.origin,
    capabilities,
    log,
    client,
    supervisor,
    socketHost,
    ui,
    stop() {
      stopped ??= (async () => {
        await supervisor.stop();
        await Promise.all([socketHost.close(), ui.close()]);
        log.info('host.stopped');
      })();
      return stopped;
    },
  };
}
