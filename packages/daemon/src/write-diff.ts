/**
 * A file write's diff as the daemon shows it (`@bastion/daemon/write-diff`): boundedDiff, and the
 * held-credential redaction its previews go through, for the host's own question about a write it
 * holds (host workspace-writes.ts), so that both questions show a write's change the same way.
 */
export { boundedDiff } from './tools/edit-diff.js';
export { redactHeld } from './policy/redact-held.js';
