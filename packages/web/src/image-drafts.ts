/**
 * The images attached to a session's unsent message and to its queued one, kept in memory for as
 * long as the tab lives: opening another session and coming back finds them in the box. Unlike
 * the text (drafts.ts) they are not written to sessionStorage — a few screenshots would fill its
 * quota — so a reload forgets them.
 */
import type { Attachment } from './image-attachment.js';
import type { DraftSlot } from './drafts.js';

const kept = new Map<string, readonly Attachment[]>();
const keyOf = (sessionId: string, slot: DraftSlot) => `${slot}\0${sessionId}`;

export function readDraftImages(sessionId: string, slot: DraftSlot = 'draft'): readonly Attachment[] {
  return kept.get(keyOf(sessionId, slot)) ?? [];
}

export function saveDraftImages(sessionId: string, images: readonly Attachment[], slot: DraftSlot = 'draft'): void {
  if (images.length === 0) kept.delete(keyOf(sessionId, slot));
  else kept.set(keyOf(sessionId, slot), images);
}

/** A deleted session's attached and queued images. */
export function forgetDraftImages(sessionId: string): void {
  saveDraftImages(sessionId, [], 'draft');
  saveDraftImages(sessionId, [], 'queued');
}

const refusals = new Map<string, string>();

/** Why a session's message and images did not go when the home page started it, for its box to say. */
export function keepImageRefusal(sessionId: string, refusal: string): void {
  refusals.set(sessionId, refusal);
}

/** The refusal kept for the session, if any. */
export function readImageRefusal(sessionId: string): string | undefined {
  return refusals.get(sessionId);
}

/** The refusal was shown (it is said once). */
export function forgetImageRefusal(sessionId: string): void {
  refusals.delete(sessionId);
}
