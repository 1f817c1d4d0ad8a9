#!/usr/bin/env node
/**
 * The sidecar's entry. Started by the host only, with stdio [pipe, pipe, pipe, ipc]:
 * stdin/stdout are channel v1, stderr is redacted logs, fd 3 carries sockets in and one
 * readiness attestation out. It never listens, binds or connects.
 */
import { createDaemonApp, registeredRoutes } from './http/app.js';
import { handshakeRoutes } from './http/routes/handshake.js';
import { createSocketlessServer } from './http/socketless-server.js';
import { openHostChannel } from './channel/host-channel.js';
import { attestReady, receiveSockets } from './ipc.js';
import { createDaemonLogger } from './logger.js';
import { openAgentRuntime } from './agent/agent-runtime.js';
import { CommandClient } from './shell/command-client.js';
import { PolicyClient } from './policy/policy-client.js';
import { HostWorkspaceWriter } from './workspaces/workspace-writer.js';
import { hostSearchTools } from './tools/file-tools.js';
import { runCommandTools } from './shell/run-command-tool.js';
import { McpClient } from './mcp/mcp-client.js';
import { mcpTools } from './mcp/mcp-tools.js';
import { disableAmbientFetch } from './no-ambient-fetch.js';
import { endpointsRoutes } from './endpoints/endpoints-routes.js';
import { EndpointStore } from './endpoints/endpoint-store.js';
import { AuthStore } from './secrets/auth-store.js';
import { removeStaleTemps } from './secrets/private-json-file.js';
import { secretsRoutes, secretsStoreCall } from './secrets/secrets-routes.js';
import { ProviderTransport } from './transport/transport-fetch.js';
import { byokProviders, followEndpoints } from './providers/byok-providers.js';
import { ChatgptCredentials } from './oauth/chatgpt-credentials.js';
import { chatgptProvider } from './oauth/chatgpt-provider.js';
import { chatgptRoutes } from './oauth/chatgpt-routes.js';
import { ModelPreferences } from './providers/model-preferences.js';
import { modelsRoutes } from './providers/models-routes.js';
import { elapsedMs, logStartupStage } from '@bastion/protocol';

// stdout is the channel: nothing else may write to it.
console.log = console.info = console.debug = console.warn;
disableAmbientFetch();

const log = createDaemonLogger();
// Everything before this line ran first: Node's start-up and loading the modules.
const processStart = elapsedMs();

async function main(): Promise<void> {
  logStartupStage(log, 'process-start', processStart);
  const bootstrapWait = performance.now();
  const { channel, bootstrap } = await openHostChannel({
    onClose: (error) => {
      if (error) log.error('channel.closed', { code: error.code });
      process.exit(error ? 3 : 0);
    },
  });
  logStartupStage(log, 'bootstrap', elapsedMs(bootstrapWait));
  // Registers the grant.* / request.credit / response.* handlers before readiness is attested.
  const transport = new ProviderTransport(channel);
  const auth = new AuthStore(bootstrap.user_data);
  const endpoints = new EndpointStore(bootstrap.user_data);
  const preferences = new ModelPreferences(bootstrap.user_data);
  // Issue 16 §4: temps a killed writer left beside these files (they may hold keys) go before any write.
  const swept = await Promise.all([auth.path, endpoints.path, preferences.path].map(removeStaleTemps));
  if (swept.some((count) => count > 0)) log.info('private-temps.swept', { count: swept.reduce((a, b) => a + b, 0) });
  // A refused endpoints.json (loose permissions, corrupt) leaves no custom endpoints, not a dead sidecar.
  await endpoints
    .load()
    .catch((error: unknown) =>
      log.error('endpoints.load-failed', { code: (error as { code?: string }).code ?? 'UNKNOWN' }),
    );
  // Registers the command.* handlers; run_command exists only when the host's posture allows a shell (fail closed).
  const commands = new CommandClient(channel);
  // Registers policy.decision: the watchdog hook asks the host before every tool call.
  const policy = new PolicyClient(channel);
  // Registers workspace.*: the host performs every workspace write (the sidecar's view is read-only).
  const writer = new HostWorkspaceWriter(channel);
  // Registers mcp.*: the host runs the MCP servers and is their client.
  const mcp = new McpClient(channel);
  // SEC-008: the ChatGPT credential owner exists only when the host configured the profile.
  const chatgpt = bootstrap.chatgpt
    ? new ChatgptCredentials({ config: bootstrap.chatgpt, store: auth, fetch: transport.fetch, log })
    : undefined;
  const runtimeStarted = performance.now();
  const agent = openAgentRuntime({
    userData: bootstrap.user_data,
    workspaces: bootstrap.workspaces,
    writer,
    log,
    extraTools: [
      ...(bootstrap.capabilities.shell
        ? [
            runCommandTools({ client: commands, userData: bootstrap.user_data, log }),
            hostSearchTools(commands, bootstrap.user_data),
          ]
        : []),
      // The host runs MCP servers only in the sandbox; elsewhere it lists none.
      mcpTools(mcp),
    ],
    fetch: transport.fetch,
    policy,
    sandboxed: bootstrap.capabilities.sandbox === 'srt',
    heldSecrets: () => auth.heldSecrets(),
    providers: [...byokProviders(auth), ...(chatgpt ? [chatgptProvider(chatgpt)] : [])],
    defaultModel: () => secretsStoreCall(log, () => preferences.defaultModel()),
  });
  // The first SQLite open and the pending migrations, most of this stage.
  logStartupStage(log, 'agent-runtime', elapsedMs(runtimeStarted));
  // Custom endpoints are providers under their own ids, following endpoints.json as it changes.
  followEndpoints(agent.registry, endpoints, auth);
  const app = createDaemonApp(
    { port: bootstrap.daemon_port, allowedOrigins: bootstrap.allowed_origins, password: bootstrap.password },
    [
      handshakeRoutes(bootstrap.capabilities),
      ...agent.routes,
      secretsRoutes({ auth, endpoints, log }),
      endpointsRoutes({ endpoints, auth, transport, log }),
      chatgptRoutes({ credentials: chatgpt, hostKey: bootstrap.chatgpt?.host_key, log }),
      modelsRoutes({
        auth,
        endpoints,
        transport,
        chatgpt,
        preferences,
        registry: agent.registry,
        log,
      }),
    ],
  );
  for (const route of registeredRoutes(app)) log.debug('route.registered', { method: route.method, route: route.path });
  const server = createSocketlessServer(app);
  channel.on('shutdown', () => {
    log.info('sidecar.shutdown');
    void agent
      .close()
      .then(() => server.close())
      .then(() => process.exit(0));
  });
  receiveSockets(
    (socket) => server.accept(socket),
    () => {
      log.error('ipc.violation');
      process.exit(4);
    },
  );
  attestReady(bootstrap.daemon_port);
  log.info('sidecar.ready', {
    duration_ms: elapsedMs(),
    pid: process.pid,
    port: bootstrap.daemon_port,
    sandbox: bootstrap.capabilities.sandbox,
    shell: bootstrap.capabilities.shell,
  });
}

main().catch((error: unknown) => {
  log.error('sidecar.start-failed', { code: (error as { code?: string }).code ?? 'UNKNOWN' });
  process.exit(2);
});
