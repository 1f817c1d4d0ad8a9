/**
 * SEC-004 (the watchdog): what the host's own question about a workspace write shows of it — the
 * host's diff of the bytes it holds against the file as it is when it asks, worked out the
 * daemon's way (boundedDiff) so that both questions read alike, with the credentials Bastion holds
 * cut from both sides first (redactHeld), as the daemon cuts them from its previews. It comes from
 * the bytes the host will write, never from the sidecar's preview: a sidecar that sent other bytes
 * than it showed is shown what it sent.
 *
 * What it does not catch: the file changing between the question and the write (the write's
 * `shown_sha256` covers a write the daemon showed), credentials Bastion does not hold, and a
 * held value split across lines or transformed past redactHeld's forms.
 */
import { lstatSync } from 'node:fs';
import { WORKSPACE_MAX_READ_BYTES } from '@bastion/protocol';
import { boundedDiff, redactHeld } from '@bastion/daemon/write-diff';
import { readRegularFile } from '../regular-file.js';
import type { WritablePath } from './workspace-files.js';

/** The credentials Bastion holds now; throws when they cannot be read. */
export type HeldCredentials = () => { kind: string; value: string }[];

/** `bytes` as text when they are UTF-8 without a NUL, as the daemon's file tools take text; else undefined. */
function asText(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** The file's text now: null when there is none, undefined when it is not a regular text file within the read bound. */
function textNow(target: WritablePath): string | null | undefined {
  try {
    lstatSync(target.real);
  } catch {
    return null;
  }
  const bytes = readRegularFile(target.real, WORKSPACE_MAX_READ_BYTES);
  return bytes === undefined ? undefined : asText(bytes);
}

/**
 * The diff of writing `bytes` at `target`, held credentials cut; undefined when the new bytes are
 * not text, or the credentials cannot be read (no diff rather than one that might show one).
 */
export function writeQuestionDiff(target: WritablePath, bytes: Uint8Array, held: HeldCredentials): string | undefined {
  const after = asText(bytes);
  if (after === undefined) return undefined;
  let secrets: { kind: string; value: string }[];
  try {
    secrets = held();
  } catch {
    return undefined;
  }
  const before = textNow(target);
  const cut = (text: string) => redactHeld(text, secrets);
  return boundedDiff(target.requested, typeof before === 'string' ? cut(before) : before, cut(after));
}
