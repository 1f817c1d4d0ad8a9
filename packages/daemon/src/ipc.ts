/** The sidecar's side of fd 3: attest readiness once, then accept only transferred sockets. */
import { Socket } from 'node:net';
import { IPC_READY_MESSAGE, isSocketMessage, type IpcReadyMessage } from '@bastion/protocol';

export function attestReady(port: number): void {
  if (!process.send) throw new Error('the sidecar was not started with an IPC channel');
  const message: IpcReadyMessage = { type: IPC_READY_MESSAGE, port };
  process.send(message);
}

export function receiveSockets(onSocket: (socket: Socket) => void, onViolation: () => void): void {
  process.on('message', (message: unknown, handle: unknown) => {
    if (isSocketMessage(message) && handle instanceof Socket) {
      onSocket(handle);
      return;
    }
    if (handle instanceof Socket) handle.destroy();
    onViolation();
  });
}
