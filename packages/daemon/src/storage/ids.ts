import { randomBytes } from 'node:crypto';

/** Opaque random ids with a kind prefix (`ses_…`, `run_…`, `msg_…`, `call_…`); 96 bits, base64url. */
export function newId(prefix: 'ses' | 'run' | 'msg' | 'img' | 'call'): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}
