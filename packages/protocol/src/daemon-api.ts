/** Daemon HTTP DTOs shared by the daemon, the host's DaemonClient and the bridge. */
import { z } from 'zod';
import { capabilitiesSchema } from './channel/frames.js';

export const PROTOCOL_VERSION = 1;
/** The Basic-auth user name; the password is per spawn. */
export const DAEMON_AUTH_USER = 'bastion';
/** The route root every Referer must sit under (the spec's desktop route root). */
export const DESKTOP_ROUTE_ROOT = '/desktop';

export const handshakeResponseSchema = z.strictObject({
  name: z.literal('bastion'),
  version: z.string(),
  protocol: z.literal(PROTOCOL_VERSION),
  capabilities: capabilitiesSchema,
});
export type HandshakeResponse = z.infer<typeof handshakeResponseSchema>;
