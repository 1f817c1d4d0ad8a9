/**
 * The images attached to a session's unsent message and to its queued one, kept in memory for as
 * long as the tab lives: opening another session and coming back finds them in the box. Unlike
 * the text (drafts.ts) they are not written to sessionStorage — a few screenshots would fill its
 * quota — so a reload forgets them.
 */
import { plural, type Attachment } from './image-attachment.js';
import { readDraft, saveDraft, type DraftSlot } from './drafts.js';

const kept = new Map<string, readonly Attachment[]>();
const keyOf = (sessionId: string, slot: DraftSlot) => `${slot}\0${sessionId}`;

export function readDraftImages(
  sessionId: string,
  slot: Exclude<DraftSlot, 'queued-images'> = 'draft',
): readonly Attachment[] {
  return kept.get(keyOf(sessionId, slot)) ?? [];
}

export function saveDraftImages(
  sessionId: string,
  images: readonly Attachment[],
  slot: Exclude<DraftSlot, 'queued-images'> = 'draft',
): void {
  if (images.length === 0) kept.delete(keyOf(sessionId, slot));
  else kept.set(keyOf(sessionId, slot), images);
  // The queued text outlives a reload (sessionStorage) and its images do not: how many it had is
  // kept beside the text, so a reload never sends the text without them (recoverQueuedMessage).
  if (slot === 'queued') saveDraft(sessionId, images.length === 0 ? '' : String(images.length), 'queued-images');
}

/**
 * A message queued with images before the page reloaded has lost them: rather than send its text
 * alone when the run finishes, it goes back into the box (before what is there) with a note
 * saying to attach the images again. Call before reading the session's draft and queued slots.
 */
export function recoverQueuedMessage(sessionId: string): void {
  const lost = Number(readDraft(sessionId, 'queued-images'));
  if (!(lost > 0) || readDraftImages(sessionId, 'queued').length > 0) return;
  const queued = readDraft(sessionId, 'queued');
  const draft = readDraft(sessionId);
  saveDraft(sessionId, queued === '' ? draft : draft === '' ? queued : `${queued}\n\n${draft}`);
  saveDraft(sessionId, '', 'queued');
  saveDraft(sessionId, '', 'queued-images');
  saveDraft(sessionId, '', 'queued-mcp');
  if (queued !== '') {
    keepImageRefusal(
      sessionId,
      `This message was queued with ${plural(lost, 'image')}, which a reload does not keep: attach ${lost === 1 ? 'it' : 'them'} again, then send.`,
    );
  }
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
