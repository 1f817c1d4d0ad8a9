import {
  createHostConfirmer,
  openSystemBrowser,
  resolveUserDataPath,
  terminalLine,
  type BastionHost,
} from '@bastion/host';
import {
  ensureEndpointDefined,
  parseEndpointFlags,
  releaseEndpoint,
  type EndpointSettings,
} from '../endpoint-consent.js';
import { homeFlag, startOwningHost } from '../home-in-use.js';
import { createOutput, type Output } from '../output.js';
import { listenForStop } from '../stop-signals.js';
import { parseCommandLine, WORKSPACE_OPTIONS } from '../usage.js';
import { enterWorkspace } from '../workspace.js';

export async function startCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandLine({
    args: argv,
    options: {
      ...WORKSPACE_OPTIONS,
      'no-open': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      'allow-endpoint': { type: 'string', multiple: true, default: [] },
      'context-window': { type: 'string' },
      'endpoint-images': { type: 'boolean', default: false },
      'unsandboxed-shell': { type: 'boolean', default: false },
    },
  });
  const allowEndpoints = values['allow-endpoint'];
  const endpointSettings = parseEndpointFlags(
    '--allow-endpoint',
    allowEndpoints,
    values['context-window'],
    values['endpoint-images'],
  );
  const out = createOutput(values.json);
  const userData = resolveUserDataPath(values.home);
  const workspace = enterWorkspace(values.workspace);
  const stop = listenForStop();
  try {
    const host = await startOwningHost(
      {
        command: 'start',
        userData,
        workspaces: [workspace],
        verbose: values.verbose,
        allowEndpoints,
        // Consent beyond --allow-endpoint (an endpoint or workspace the UI asks for) is asked on this terminal, if there is one.
        confirmer: createHostConfirmer({
          allowedEndpoints: allowEndpoints,
          terminal: { input: process.stdin, output: process.stderr },
        }),
        unsandboxedShell: values['unsandboxed-shell'],
        // Without a terminal to ask, the host opens its own confirmation page (and prints its address).
        consentOpener: async (url) => {
          const opened = await openSystemBrowser(url);
          process.stderr.write(
            `Bastion needs your approval${opened ? ' in the browser tab it opened' : ''}: ${opened ? '' : 'open '}${url}\n`,
          );
          return opened;
        },
      },
      `open its UI with: bastion open${homeFlag(values.home)}`,
      // reportSandboxPosture says it, with what to install.
      ['host.sandbox-unavailable'],
    );
    if (!host) return 2;
    // Endpoints this start defined for --allow-endpoint are released at stop, so they never pile up:
    // removed, but for one whose key was stored meanwhile (removing it would delete the key).
    const defined: string[] = [];
    try {
      if (stop.received === undefined)
        await announce(host, { ...values, allowEndpoints, endpointSettings, workspace, out, defined });
      await stop.requested;
      out.say('Stopping…');
    } finally {
      for (const id of defined) await releaseEndpoint(host, id, false).catch(() => undefined);
      await host.stop();
    }
    out.event({ event: 'stopped' });
    return 0;
  } finally {
    stop.dispose();
  }
}

/** Define the --allow-endpoint endpoints, then print the ready line and where the UI is. */
async function announce(
  host: BastionHost,
  options: {
    allowEndpoints: string[];
    endpointSettings: EndpointSettings;
    workspace: string;
    out: Output;
    defined: string[];
    'no-open': boolean;
    'unsandboxed-shell': boolean;
  },
): Promise<void> {
  const { out } = options;
  reportSandboxPosture(host, options['unsandboxed-shell']);
  for (const url of options.allowEndpoints) {
    const { id, created } = await ensureEndpointDefined(host, url, [], options.endpointSettings);
    if (created) options.defined.push(id);
    const grant = host.network.snapshot.grants.find((candidate) => candidate.origin === new URL(url).origin);
    out.say(
      `  endpoint:  ${terminalLine(id)} → ${grant?.origin ?? url} (granted until Bastion stops; ${host.network.posture(new URL(url).origin).summary})`,
    );
  }
  const sidecar = host.supervisor.current;
  // One-time, 60 s: it becomes the browser's host-session cookie.
  const launch = host.desktop.issueLaunchUrl();
  out.event({
    event: 'ready',
    daemon: host.daemonUrl,
    ui: `${host.uiOrigin}/desktop/`,
    launch,
    sandbox: host.capabilities.sandbox,
    shell: host.capabilities.shell,
    reason: host.capabilities.reason ?? null,
    pid: { host: process.pid, sidecar: sidecar?.pid ?? null },
  });
  out.say(`Bastion is running.`);
  out.say(`  workspace: ${options.workspace}`);
  out.say(`  data:      ${host.userData}`);
  out.say(`  daemon:    ${host.daemonUrl} (reachable only through the host's perimeter)`);
  out.say(
    `  sandbox:   ${host.capabilities.sandbox}${host.capabilities.reason ? ` (${host.capabilities.reason})` : ''}`,
  );
  const opened = !options['no-open'] && (await openSystemBrowser(launch));
  out.say(
    opened
      ? `  ui:        opened in your browser`
      : `  ui:        open ${launch}\n             (this link works once, within 60 seconds)`,
  );
  out.say(`Press Ctrl-C to stop.`);
}

/** Posture notices go to stderr in both output modes: --json keeps stdout for the JSON lines. */
function reportSandboxPosture(host: BastionHost, unsandboxedShell: boolean): void {
  const posture = host.posture;
  if (!posture) return;
  if (posture.warning) process.stderr.write(`\n${'!'.repeat(72)}\n${posture.warning}\n${'!'.repeat(72)}\n\n`);
  else if (posture.capabilities.sandbox === 'none') {
    process.stderr.write(`bastion: ${posture.capabilities.reason ?? 'no outer sandbox'}\n`);
    if (posture.availability.install) {
      process.stderr.write(`bastion: to run commands sandboxed, install: ${posture.availability.install}\n`);
      process.stderr.write('bastion: or accept the risk with --unsandboxed-shell\n');
    }
  } else if (unsandboxedShell) {
    process.stderr.write('bastion: the outer sandbox is available, so --unsandboxed-shell has no effect\n');
  }
}
