import type { Server } from 'node:net';
import { HostError } from './errors.js';

/** Bind exactly 127.0.0.1 on an ephemeral port (never a wildcard address); resolves with the port. */
export function listenOnLoopback(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        reject(new HostError('LISTEN_FAILED', 'listener has no TCP address'));
        return;
      }
      resolve(address.port);
    });
  });
}
