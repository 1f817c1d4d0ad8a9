/**
 * Wires the provider transport into every sidecar the supervisor starts: an executor for its
 * requests and a grant sync for its snapshot, both torn down when that sidecar exits. An
 * unacknowledged grant update restarts the sidecar (new password, fresh snapshot).
 */
import type { Logger } from '@bastion/protocol';
import type { SidecarSupervisor } from '../supervisor/sidecar-supervisor.js';
import { GrantSync } from './grant-sync.js';
import type { NetworkAuthority } from './network-authority.js';
import { ProviderExecutor } from './provider-executor.js';
import type { EgressGuard } from './egress-guard.js';
import type { SystemRoute } from './system-route.js';

export function attachProviderTransport(options: {
  supervisor: SidecarSupervisor;
  authority: NetworkAuthority;
  route: SystemRoute;
  log: Logger;
  egress: EgressGuard;
}): void {
  const { supervisor, authority, route, log, egress } = options;
  supervisor.addChannelModule((sidecar) => {
    const executor = new ProviderExecutor({ channel: sidecar.channel, authority, route, log, egress });
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
