/**
 * Wires the provider transport into every sidecar the supervisor starts: an executor for its
 * requests and a grant sync for its snapshot, both torn down when that sidecar exits. An
 * unacknowledged grant update restarts the sidecar (new password, fresh snapshot).
 */
import { EnvHttpProxyAgent, type Dispatcher } from 'undici';
import {
  TRANSPORT_CONNECT_TIMEOUT_MS,
  TRANSPORT_HEADERS_TIMEOUT_MS,
  TRANSPORT_BODY_IDLE_TIMEOUT_MS,
  type Logger,
} from '@bastion/protocol';
import type { SidecarSupervisor } from '../supervisor/sidecar-supervisor.js';
import { GrantSync } from './grant-sync.js';
import type { NetworkAuthority } from './network-authority.js';
import { ProviderExecutor } from './provider-executor.js';
import type { EgressGuard } from './egress-guard.js';

/** The system route: HTTP_PROXY / HTTPS_PROXY / NO_PROXY as undici reads them. `ca` adds trust (enterprise TLS inspection, tests). */
export function createSystemRouteDispatcher(options: { ca?: string | string[] } = {}): Dispatcher {
  return new EnvHttpProxyAgent({
    connect: { timeout: TRANSPORT_CONNECT_TIMEOUT_MS, ...(options.ca ? { ca: options.ca } : {}) },
    headersTimeout: TRANSPORT_HEADERS_TIMEOUT_MS,
    bodyTimeout: TRANSPORT_BODY_IDLE_TIMEOUT_MS,
  });
}

export function attachProviderTransport(options: {
  supervisor: SidecarSupervisor;
  authority: NetworkAuthority;
  dispatcher: Dispatcher;
  log: Logger;
  egress: EgressGuard;
}): void {
  const { supervisor, authority, dispatcher, log, egress } = options;
  supervisor.addChannelModule((sidecar) => {
    const executor = new ProviderExecutor({ channel: sidecar.channel, authority, dispatcher, log, egress });
    const sync = new GrantSync({
      channel: sidecar.channel,
      authority,
      log,
      onAckTimeout: () => {
        if (supervisor.current?.generation !== sidecar.generation) return;
        supervisor
          .restart('grant-ack-timeout')
          .catch(() => log.error('sidecar.restart-failed', { reason: 'grant-ack-timeout' }));
      },
    });
    // The sidecar registers its transport handlers before it attests readiness; frames sent earlier would close the channel.
    supervisor
      .whenReady()
      .then(() => {
        if (supervisor.current?.generation === sidecar.generation) sync.start();
      })
      .catch(() => undefined);
    return () => {
      sync.close();
      executor.close();
    };
  });
}
