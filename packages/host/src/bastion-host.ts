/**
 * Composes the trust anchor: userData, logging, the UI origin, the daemon socket host and the
 * sidecar supervisor. The CLI's `start` and `run` and the integration tests all go through here.
 */
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import {
  CHATGPT_HOST_KEY_HEADER,
  CONTROL_MAX_EXPORT_ANSWER_BYTES,
  defaultModelResponseSchema,
  elapsedMs,
  logStartupStage,
  modelListResponseSchema,
  secretDeleteResponseSchema,
  secretSetResponseSchema,
  type Capabilities,
  type Logger,
  type LogSink,
} from '@bastion/protocol';
import { DaemonClient } from './daemon-client.js';
import { HostError } from './errors.js';
import { createHostLogger, createHostLogSink } from './logger.js';
import { DaemonSocketHost } from './supervisor/daemon-socket-host.js';
import { plainLauncher, resolveDaemonEntry, type SidecarLauncher } from './supervisor/sidecar-launcher.js';
import { SidecarSupervisor } from './supervisor/sidecar-supervisor.js';
import { createPrivateTempDir, type PrivateTempDir } from './sandbox/private-temp-dir.js';
import { checkWorkspaceRoot } from './sandbox/sandbox-policy-check.js';
import { checkSandboxAvailability, decideSandboxPosture, type SandboxPosture } from './sandbox/sandbox-posture.js';
import { buildSidecarSandboxPolicy } from './sandbox/sidecar-sandbox-policy.js';
import { beginSrtSession, type SrtSession } from './sandbox/srt-session.js';
import { createSrtSidecarLauncher } from './sandbox/srt-sidecar-launcher.js';
import { homeReadPaths } from './sandbox/home-read-allowlist.js';
import { createPlaceholderWarden } from './sandbox/placeholder-warden.js';
import { takeHostStart, type HostStartPrelude } from './host-start-prelude.js';
import { CommandExecutor } from './commands/command-executor.js';
import { attachMcpCalls } from './mcp/mcp-channel.js';
import { McpHub } from './mcp/mcp-hub.js';
import { McpConfigStore } from './mcp/mcp-config-store.js';
import { attachPolicyChecks } from './policy/policy-checks.js';
import { hostOnlyDir } from './user-data.js';
import { TempFileJournal } from './workspaces/temp-file-journal.js';
import { attachWorkspaceWrites } from './workspaces/workspace-writes.js';
import { ProtectedLinkIndex } from './workspaces/protected-link-targets.js';
import { PolicyStore } from './policy/policy-store.js';
import { HostAuditLog } from './policy/host-audit-log.js';
import { HostAsks, type HostAskPrompt } from './policy/host-asks.js';
import { sidecarHostDenies } from './policy/sandbox-denies.js';
import { UiServer } from './ui/ui-server.js';
import { DesktopApp } from './ui/desktop-app.js';
import { defaultDesktopAssetFiles, type DesktopAssetFiles } from './ui/desktop-assets.js';
import { registerHostIpcChannels } from './ui/host-ipc-channels.js';
import { ReleaseStack } from './release-stack.js';
import { ControlServer, refused, type ControlHandler } from './control/control-server.js';
import { sessionChangesIn } from './control/session-changes.js';
import { rewindRun, undoRun } from './control/undo-run.js';
import { sessionMarkdownIn, sessionsIn } from './control/workspace-sessions.js';
import { acquireHomeLock } from './control/home-lock.js';
import { removeStaleTempFiles } from './private-file.js';
import { checkSessionsDatabase } from './storage/sessions-db-check.js';
import { ConsentPage, type ConsentOpener } from './consent/consent-page.js';
import { createHostConfirmer, withConsentPage, type HostConfirmer } from './consent/host-confirmer.js';
import { NetworkAuthority, type CustomGrantResult } from './network/network-authority.js';
import { attachProviderTransport } from './network/provider-transport.js';
import { createSystemRoute } from './network/system-route.js';
import { BUILTIN_GRANTS } from './network/builtin-grants.js';
import { EgressGuard } from './network/egress-guard.js';
import { systemBrowserOpener } from './oauth/authorization-opener.js';
import { ChatgptCoordinator, type AuthorizationOpener } from './oauth/chatgpt-coordinator.js';
import {
  chatgptBootstrap,
  resolveChatgptOAuthConfig,
  withChatgptGrants,
  type ChatgptOAuthSettings,
} from './oauth/chatgpt-oauth-config.js';

export interface BastionHostOptions {
  userData: string;
  workspaces?: string[];
  /** A custom launcher skips the sandbox posture: the caller states `capabilities` itself. */
  launcher?: SidecarLauncher;
  capabilities?: Capabilities;
  /** The platform the posture is decided for (injectable so every posture is testable). */
  platform?: NodeJS.Platform;
  /** `--unsandboxed-shell`: consent to run_command without the outer sandbox when it is unavailable. */
  unsandboxedShell?: boolean;
  /** The HOME whose secrets the outer sandbox denies (default: the real one; tests pass a temporary one). */
  home?: string;
  verbose?: boolean;
  /** `none`: write logs only to the log file (tests capture records through `logTap`). */
  stderr?: 'warnings' | 'none';
  /** Extra log sink; tests use it to scan every record. */
  logTap?: LogSink;
  /** `--allow-endpoint`: custom endpoint URLs consented to on the host's command line, granted before the sidecar starts. */
  allowEndpoints?: readonly string[];
  /** Who else may consent (a person at the host's terminal); default: nobody beyond allowEndpoints. */
  confirmer?: HostConfirmer;
  /**
   * The host's own terminal prompt for a call its policy says `ask` for (`bastion run` in a
   * terminal). Without it the desktop page is asked, when one is open; otherwise nobody, and the
   * call is refused.
   */
  askPrompt?: HostAskPrompt;
  /** Where the bridge bundle and web build are read from (default: the built workspace packages). */
  desktopFiles?: DesktopAssetFiles;
  /** SEC-008 host-owned overrides of the ChatGPT OAuth profile (tests, enterprise proxies); each is logged as a warning. */
  chatgpt?: ChatgptOAuthSettings;
  /** How a checked ChatGPT authorization URL reaches the user (default: system browser, else printed on stderr). */
  chatgptOpener?: AuthorizationOpener;
  /**
   * The host owns this process (the CLI: one host a process): it points the process's TMPDIR at its
   * journaled temp root, so what srt makes in the temp dir lands there too and is removed even after
   * a SIGKILL (host-temp-root.ts). Off for hosts sharing a process (tests, embedders), which make
   * only their own temp dirs (the sidecar's, commands', MCP servers') in a root of their own.
   */
  ownsProcess?: boolean;
  /** The CLI command this host serves (`start`, `run`, `secrets`), told to a second process that finds the home taken. */
  command?: string;
  /**
   * How the host confirmation page's URL reaches the user when no terminal can be asked (the CLI:
   * system browser, else printed). Without it, such a question has nobody to ask and is a no.
   */
  consentOpener?: ConsentOpener;
}

export interface BastionHost {
  readonly userData: string;
  readonly daemonUrl: string;
  readonly uiOrigin: string;
  readonly capabilities: Capabilities;
  /** How the sandbox posture was decided; undefined when a custom launcher was given. */
  readonly posture: SandboxPosture | undefined;
  readonly log: Logger;
  readonly client: DaemonClient;
  readonly supervisor: SidecarSupervisor;
  readonly socketHost: DaemonSocketHost;
  readonly ui: UiServer;
  /** Built-in and consented custom provider grants (SEC-004). */
  readonly network: NetworkAuthority;
  /** The host-owned confirmer: the only source of consent for endpoint grants and workspaces. */
  readonly confirmer: HostConfirmer;
  /** Ask the confirmer, then grant a custom endpoint's exact origin (memory-only). */
  grantEndpoint(url: string): Promise<CustomGrantResult>;
  /** The desktop pages, launch tickets and guarded host IPC served on the UI origin. */
  readonly desktop: DesktopApp;
  /** ChatGPT sign-in (SEC-008): connect, cancel, status, sign-out — the renderer's only operations. */
  readonly chatgpt: ChatgptCoordinator;
  /** The watchdog's rules (`<userData>/policy.json`), host-owned. */
  readonly policy: PolicyStore;
  /** Tool calls held while the host asks the person (its terminal or the desktop page). */
  readonly asks: HostAsks;
  /** The MCP servers of `<userData>/host/mcp.json`, run by this host in the command sandbox. */
  readonly mcp: McpHub;
  /** Grant a workspace root at run time: the sidecar respawns with the new policy (new password). */
  grantWorkspace(dir: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Start a host that owns `options.userData` for its life; throws HomeInUseError (HOME_IN_USE)
 * when another live host owns it, touching none of its state.
 */
export async function startBastionHost(options: BastionHostOptions): Promise<BastionHost> {
  const started = { host: performance.now(), at: new Date() };
  const platform = options.platform ?? process.platform;
  // The storage check, userData's modes, the temp root and srt's initialize: begun by the CLI's
  // entry before the host's modules loaded, or now (host-start-prelude.ts). srt's initialize is
  // awaited only when the posture is srt; it runs the same dependency check, so for any other
  // posture it has failed.
  const prelude = await takeHostStart({
    userData: options.userData,
    ownsProcess: options.ownsProcess ?? false,
    srt: !options.launcher && platform === 'linux',
  });
  const resources = new ReleaseStack();
  // Released after everything else, the home lock last of all.
  let lock: { release(): void } | undefined;
  resources.defer(() => lock?.release());
  resources.defer(() => prelude.release());
  try {
    lock = await acquireHomeLock(prelude.owned.path);
    return await composeHost(options, prelude, resources, started);
  } catch (error) {
    // A step failed: give back everything the earlier steps acquired, newest first (the home lock last).
    await resources.releaseAll().catch(() => undefined);
    throw error;
  }
}

/** Acquire the host's parts in order, each registered in `resources` as soon as it is held. */
async function composeHost(
  options: BastionHostOptions,
  prelude: HostStartPrelude,
  resources: ReleaseStack,
  started: { host: number; at: Date },
): Promise<BastionHost> {
  const { path: userData, repaired } = prelude.owned;
  const sink = createHostLogSink({ userData, verbose: options.verbose, stderr: options.stderr, tap: options.logTap });
  const log = createHostLogger(sink);
  for (const { entry, mode } of repaired) {
    log.warn('userdata.mode-repaired', { entry, reason: `was ${mode.toString(8)}, group/other bits removed` });
  }
  // Node's start-up and the entry's modules (srt's among them), then what came before the host's
  // first line: the prelude, when the CLI's entry began it, and loading the CLI and the host.
  const firstStep = Math.min(prelude.began, started.host);
  logStartupStage(log, 'process-start', Math.round(firstStep * 10) / 10);
  logStartupStage(log, 'host-load', Math.round((started.host - firstStep) * 10) / 10);
  if (prelude.temp.swept > 0) {
    log.warn('host.temp-removed', { count: prelude.temp.swept, reason: 'crashed-host' });
  }
  const platform = options.platform ?? process.platform;
  // A sessions.db that is not a database, or is damaged, fails the start now (named, untouched).
  const store = checkSessionsDatabase(userData);
  if (!store.ok) {
    log.error('store.unusable', { code: store.code });
    throw new HostError(store.code, store.message);
  }
  const workspaces = (options.workspaces ?? []).map((dir) => realpathSync(dir));
  const home = options.home ?? homedir();
  // Sweeps what a host that died without stopping left in workspaces, then guards this one's sandboxes.
  const warden = createPlaceholderWarden({ userData, log });
  resources.defer(() => warden.close());
  // The temp files a host killed inside a workspace write left (its journal is in userData's host/).
  const writeJournal = new TempFileJournal(hostOnlyDir(userData));
  const swept = writeJournal.sweep(workspaces);
  if (swept > 0) log.warn('workspace.temp-files-removed', { count: swept });
  const posture = options.launcher
    ? undefined
    : decideSandboxPosture({
        platform,
        availability: checkSandboxAvailability(platform),
        unsandboxedShell: options.unsandboxedShell ?? false,
      });
  const capabilities: Capabilities = posture?.capabilities ??
    options.capabilities ?? { sandbox: 'none', shell: false, platform, reason: 'no sandbox configured' };
  if (capabilities.sandbox === 'none') {
    log.warn('host.sandbox-unavailable', {
      platform,
      shell: capabilities.shell,
      reason: capabilities.reason ?? null,
      missing: posture?.availability.missing.join(',') ?? null,
    });
  }
  let srt: { session: SrtSession; temp: PrivateTempDir } | undefined;
  // srt's initialize, under way while the sidecar is wrapped and spawned; waited for before ready.
  let srtInitialized: Promise<void> = Promise.resolve();
  let launcher = options.launcher ?? plainLauncher;
  const daemonEntry = resolveDaemonEntry();
  // The watchdog's rules (host/policy.json): answered for the sidecar's checks, enforced again on
  // every command and on every workspace write the host performs for the sidecar.
  const audit = new HostAuditLog(userData);
  const policy = new PolicyStore(userData, { audit });
  // Issue 16 §4: the home's owner (its lock is held) removes the temps a killed write of a host
  // file left (writePrivateFile's callers: policy.json, and mcp.json, whose --env values may be secrets).
  for (const path of [policy.path, new McpConfigStore(userData).path]) removeStaleTempFiles(path);
  const sidecarPolicy = (roots: readonly string[]) =>
    buildSidecarSandboxPolicy({
      home,
      userData,
      workspaces: roots,
      privateTemp: srt?.temp.path ?? '',
      homeReads: homeReadPaths({ home, daemonEntry }),
      hostDenies: sidecarHostDenies(userData),
    });
  if (posture?.capabilities.sandbox === 'srt') {
    // The host writes in each workspace for the sidecar and commands write there: the same roots are refused.
    for (const root of workspaces) {
      const check = checkWorkspaceRoot(root, home);
      if (!check.ok) throw new HostError(check.code, check.message);
    }
    const temp = createPrivateTempDir(prelude.temp.path);
    resources.defer(() => temp.remove());
    const early = await (prelude.srt ?? beginSrtSession());
    if ('error' in early) throw early.error;
    const { session } = early;
    if (!prelude.srt) resources.defer(() => session.release());
    srt = { session, temp };
    srtInitialized = early.initialized;
    launcher = createSrtSidecarLauncher({
      session,
      policy: () => sidecarPolicy(workspaces),
      home,
      privateTemp: temp.path,
      warden,
    });
  }

  // The ChatGPT destinations and grants follow the effective profile (overrides are warned).
  const chatgptConfig = resolveChatgptOAuthConfig({ settings: options.chatgpt, log });
  const ui = new UiServer();
  await ui.listen();
  resources.defer(() => ui.close());
  const socketHost = new DaemonSocketHost(log);
  const port = await socketHost.listen();
  resources.defer(() => socketHost.close());

  const supervisor = new SidecarSupervisor({
    entry: daemonEntry,
    launcher,
    socketHost,
    log,
    sidecarLog: createHostLogger(sink, 'daemon'),
    // Each spawn gets a fresh host key for /auth/chatgpt/*.
    config: () => ({
      allowedOrigins: [ui.origin],
      userData,
      workspaces,
      capabilities,
      chatgpt: chatgptBootstrap(chatgptConfig),
    }),
  });
  resources.defer(() => supervisor.stop());
  // run_command children: re-validated and run under a per-command profile, for every sidecar spawn.
  // A command the policy says `ask` for is put to the person by the host: its terminal, or the desktop page.
  const asks = new HostAsks({ prompt: options.askPrompt, log, policy });
  resources.defer(() => asks.close());
  const links = new ProtectedLinkIndex();
  const commands = new CommandExecutor({
    userData,
    home,
    log,
    srt: srt?.session,
    policy,
    warden,
    asks,
    links,
    tempRoot: prelude.temp.path,
  });
  // Before the sidecar stops: a pre-started sandbox is killed and its temp dir removed, and no other starts.
  resources.defer(() => commands.close());
  supervisor.addChannelModule((sidecar) => commands.attach(sidecar));
  supervisor.addChannelModule((sidecar) => attachPolicyChecks(sidecar, policy, log));
  // MCP servers: run by the host in the command sandbox, called for the sidecar after the policy's say.
  const mcp = new McpHub({ userData, home, log, srt: srt?.session, tempRoot: prelude.temp.path });
  resources.defer(() => mcp.close());
  supervisor.addChannelModule((sidecar) => attachMcpCalls(sidecar, { hub: mcp, policy, asks, log }));
  // Every provider request is scanned for the credentials in auth.json (but its own) and secret
  // formats; the diff the host's question about a write shows is cut of them.
  const egress = new EgressGuard({ userData, log });
  resources.defer(() => egress.close());
  // Every workspace write is the host's: the sidecar's view of the workspace is read-only.
  supervisor.addChannelModule((sidecar) =>
    attachWorkspaceWrites(sidecar, {
      userData,
      policy,
      journal: writeJournal,
      asks,
      links,
      heldCredentials: () => egress.heldCredentials(),
      log,
    }),
  );
  // Provider HTTP leaves only through the host, on the system route, under the current grants.
  const network = new NetworkAuthority({ builtins: withChatgptGrants(BUILTIN_GRANTS, chatgptConfig) });
  const baseConfirmer = options.confirmer ?? createHostConfirmer({ allowedEndpoints: options.allowEndpoints ?? [] });
  // With no terminal to ask, a host-owned confirmation page on its own origin asks instead.
  const consentPage = options.consentOpener ? new ConsentPage({ opener: options.consentOpener, log }) : undefined;
  if (consentPage) resources.defer(() => consentPage.close());
  const confirmer = consentPage ? withConsentPage(baseConfirmer, consentPage) : baseConfirmer;
  const route = createSystemRoute();
  resources.defer(() => route.close());
  attachProviderTransport({ supervisor, authority: network, route, log, egress });
  for (const url of options.allowEndpoints ?? []) {
    const granted = await network.requestCustomGrant(url, confirmer);
    if (!granted.ok) throw new HostError(granted.code, granted.message);
    log.info('grant.created', {
      grant_id: granted.grant.grant_id,
      origin: granted.grant.origin,
      route: granted.posture.route,
    });
  }
  const client = new DaemonClient({
    uiOrigin: ui.origin,
    target: async () => {
      await supervisor.whenReady();
      const current = supervisor.current;
      if (!current) throw new Error('sidecar is not ready');
      return { port, password: current.password };
    },
  });

  const chatgpt = new ChatgptCoordinator({
    config: chatgptConfig,
    daemon: async (method, path, body) => {
      const hostKey = supervisor.current?.config.chatgpt?.host_key ?? '';
      return client.request(method, path, body, { [CHATGPT_HOST_KEY_HEADER]: hostKey });
    },
    open: options.chatgptOpener ?? systemBrowserOpener({ print: (line) => process.stderr.write(line) }),
    log,
  });
  resources.defer(() => chatgpt.close());

  const desktop = new DesktopApp({
    uiOrigin: ui.origin,
    uiPort: ui.port,
    daemonOrigin: `http://127.0.0.1:${port}`,
    files: () => options.desktopFiles ?? defaultDesktopAssetFiles(),
    log,
  });
  ui.setHandler(desktop.handler);

  const sidecarStarted = performance.now();
  let sidecarReady = sidecarStarted;
  // Both settle before either outcome is acted on, so a failed initialize never leaves a start pending.
  const [sidecarStart, initialize] = await Promise.allSettled([
    supervisor.start().then(() => {
      sidecarReady = performance.now();
      logStartupStage(log, 'sidecar', elapsedMs(sidecarStarted));
    }),
    srtInitialized,
  ]);
  // What was left of srt's initialize to wait once the sidecar was ready (the two ran alongside).
  logStartupStage(log, 'srt-initialize', elapsedMs(sidecarReady));
  if (initialize.status === 'rejected') throw initialize.reason;
  if (sidecarStart.status === 'rejected') throw sidecarStart.reason;
  const control = await ControlServer.listen(
    userData,
    controlHandler({
      command: options.command ?? 'host',
      startedAt: started.at,
      workspaces,
      uiOrigin: ui.origin,
      desktop,
      client,
    }),
    log,
    { mcp, grantedWorkspaces: () => [...workspaces] },
  );
  resources.defer(() => control?.close());
  log.info('host.ready', {
    port,
    sandbox: capabilities.sandbox,
    shell: capabilities.shell,
    duration_ms: elapsedMs(started.host),
  });

  let stopped: Promise<void> | undefined;
  const host: BastionHost = {
    userData,
    daemonUrl: `http://127.0.0.1:${port}`,
    uiOrigin: ui.origin,
    capabilities,
    posture,
    log,
    client,
    supervisor,
    socketHost,
    ui,
    desktop,
    chatgpt,
    policy,
    asks,
    mcp,
    network,
    confirmer,
    async grantEndpoint(url) {
      const granted = await network.requestCustomGrant(url, confirmer);
      if (granted.ok && granted.created) {
        log.info('grant.created', {
          grant_id: granted.grant.grant_id,
          origin: granted.grant.origin,
          route: granted.posture.route,
        });
      }
      return granted;
    },
    async grantWorkspace(dir) {
      const root = realpathSync(dir);
      if (workspaces.includes(root)) return;
      if (srt) {
        // Refuse a root that would hollow the sandbox out (HOME, /tmp, a secret) before respawning.
        const check = checkWorkspaceRoot(root, home);
        if (!check.ok) throw new HostError(check.code, check.message);
      }
      workspaces.push(root);
      await supervisor.restart('workspace-granted');
    },
    stop() {
      stopped ??= resources.releaseAll().then(() => log.info('host.stopped'));
      return stopped;
    },
  };
  registerHostIpcChannels(desktop.ipc, {
    supervisor,
    socketHost,
    confirmer,
    grantEndpoint: (url) => host.grantEndpoint(url),
    grantWorkspace: (dir) => host.grantWorkspace(dir),
    chatgpt,
    policy,
    audit,
    asks,
    mcp,
    grantedWorkspaces: () => [...workspaces],
  });
  return host;
}

/** What a `session.export` answer line holds besides the markdown's JSON string. */
const EXPORT_ANSWER_ENVELOPE_BYTES = Buffer.byteLength('{"ok":true,"markdown":}\n');

/**
 * The host's side of the control socket (SEC-004): who holds the home (pid, command, when and in
 * which folder it started, its UI's address), a fresh launch link, a key stored through this host,
 * and the sessions, a session's markdown and changes, the models (and their default) and an undo
 * asked of this host's daemon.
 */
function controlHandler(parts: {
  command: string;
  startedAt: Date;
  /** The granted workspaces, the one the host was started in first. */
  workspaces: readonly string[];
  uiOrigin: string;
  desktop: DesktopApp;
  client: DaemonClient;
}): ControlHandler {
  return async (request) => {
    switch (request.op) {
      case 'status':
        return {
          ok: true,
          pid: process.pid,
          command: parts.command,
          // The page's address only: a launch link's ticket signs in, and is given only by `open`.
          ui: `${parts.uiOrigin}/desktop/`,
          started_at: parts.startedAt.toISOString(),
          ...(parts.workspaces[0] === undefined ? {} : { workspace: parts.workspaces[0] }),
        };
      case 'open':
        return { ok: true, launch: parts.desktop.issueLaunchUrl() };
      case 'sessions': {
        const found = await sessionsIn(parts.client, request.workspace, request.limit, request.search);
        return found.ok
          ? { ok: true, sessions: found.sessions }
          : { ok: true, refused: { code: found.error.code, message: found.error.message } };
      }
      case 'session.export': {
        const room = CONTROL_MAX_EXPORT_ANSWER_BYTES - EXPORT_ANSWER_ENVELOPE_BYTES;
        const read = await sessionMarkdownIn(parts.client, request.session_id, room);
        return read.ok
          ? { ok: true, markdown: read.markdown }
          : { ok: true, refused: { code: read.error.code, message: read.error.message } };
      }
      case 'session.changes': {
        const read = await sessionChangesIn(parts.client, request);
        return read.ok
          ? { ok: true, session_id: read.session_id, changes: read.changes }
          : refused(read.code, read.message);
      }
      case 'models': {
        const answer = await parts.client.call('GET', '/models', undefined, modelListResponseSchema);
        return answer.ok
          ? { ok: true, models: answer.body }
          : { ok: true, refused: { code: answer.error.code, message: answer.error.message } };
      }
      case 'models.default': {
        const ref = { provider: request.provider, model: request.model };
        const answer = await parts.client.call('POST', '/models/default', ref, defaultModelResponseSchema);
        return answer.ok
          ? { ok: true, default: answer.body.default }
          : { ok: true, refused: { code: answer.error.code, message: answer.error.message } };
      }
      case 'undo':
      case 'rewind': {
        const answer =
          request.op === 'undo' ? await undoRun(parts.client, request) : await rewindRun(parts.client, request);
        return answer.ok
          ? { ok: true, session_id: answer.session_id, result: answer.result }
          : { ok: true, refused: { code: answer.code, message: answer.message } };
      }
      case 'secrets.set': {
        const answer = await parts.client.call(
          'POST',
          '/secrets/set',
          { provider: request.provider, key: request.key },
          secretSetResponseSchema,
        );
        return answer.ok
          ? { ok: true, status: answer.status }
          : { ok: true, status: answer.status, code: answer.error.code, message: answer.error.message };
      }
      case 'secrets.delete': {
        const answer = await parts.client.call(
          'POST',
          '/secrets/delete',
          { provider: request.provider },
          secretDeleteResponseSchema,
        );
        return answer.ok
          ? { ok: true, status: answer.status, deleted: answer.body.deleted }
          : { ok: true, status: answer.status, code: answer.error.code, message: answer.error.message };
      }
    }
  };
}
