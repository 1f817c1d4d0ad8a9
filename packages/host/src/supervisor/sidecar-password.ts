import { randomBytes } from 'node:crypto';
import { SIDECAR_PASSWORD_BYTES } from '@bastion/protocol';

/** A fresh per-spawn daemon password: 32 random bytes, base64url. Never persisted. */
export function generateSidecarPassword(): string {
  return randomBytes(SIDECAR_PASSWORD_BYTES).toString('base64url');
}
