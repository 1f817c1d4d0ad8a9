/**
 * fd 3 (Node IPC) between host and sidecar carries only two kinds of message: sockets the host
 * accepted (host → sidecar) and the sidecar's single readiness attestation (sidecar → host).
 * Anything else, in either direction, is a protocol violation and ends that sidecar.
 */
export const IPC_SOCKET_MESSAGE = 'bastion.socket';
export const IPC_READY_MESSAGE = 'bastion.ready';

export interface IpcSocketMessage {
  type: typeof IPC_SOCKET_MESSAGE;
}

export interface IpcReadyMessage {
  type: typeof IPC_READY_MESSAGE;
  port: number;
}

/** True only for exactly `{ type: 'bastion.ready', port: <expected> }`, with no other keys. */
export function isReadyAttestation(message: unknown, expectedPort: number): boolean {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const keys = Object.keys(message);
  const record = message as Record<string, unknown>;
  return keys.length === 2 && record.type === IPC_READY_MESSAGE && record.port === expectedPort;
}

/** True only for exactly `{ type: 'bastion.socket' }`. */
export function isSocketMessage(message: unknown): message is IpcSocketMessage {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  return Object.keys(message).length === 1 && (message as Record<string, unknown>).type === IPC_SOCKET_MESSAGE;
}
