import type { Capabilities, HandshakeResponse } from '@bastion/protocol';
import { PROTOCOL_VERSION } from '@bastion/protocol';
import type { RouteModule } from '../app.js';
import { DAEMON_VERSION } from '../../version.js';

export function handshakeRoutes(capabilities: Capabilities): RouteModule {
  return (app) => {
    app.post('/handshake', (c) => {
      const body: HandshakeResponse = {
        name: 'bastion',
        version: DAEMON_VERSION,
        protocol: PROTOCOL_VERSION,
        capabilities,
      };
      return c.json(body);
    });
  };
}
