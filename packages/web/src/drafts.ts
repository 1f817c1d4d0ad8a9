/**
 * What the reader has typed and not sent, per session: kept in the tab's sessionStorage, so a
 * half-written prompt survives opening another session and a reload. Two slots a session: the
 * message box's draft, and the message queued while a run goes (sent when it ends), with what MCP
 * servers gave it; the draft keeps which of its characters an MCP server's prompt wrote
 * (saveDraftMcp) and the MCP resource templates the person filled in for it (saveDraftTemplates). Sending clears a slot, as does deleting the session; a browser that refuses
 * storage (quota, privacy settings) keeps them for as long as the view lives, as before.
 */
import type { AgentRunMcp } from '@bastion/bridge';
import type { McpPromptOrigin, TextSpan } from '@bastion/protocol';
import { AGENT_MAX_MCP_RESOURCES } from '@bastion/protocol';
import { holdsMention, type ChosenTemplate } from './mcp-offers.js';
import { spansAfterEdit } from './server-text-spans.js';

/**
 * `queued-images`: how many images the queued message carries (they are kept in memory only);
 * `queued-mcp`: what MCP servers gave the queued message (saveQueued); `draft-mcp`: the prompt of an
 * MCP server the draft's text came from, and the characters it wrote (saveDraftMcp);
 * `draft-templates`: the resource templates filled in for the draft (saveDraftTemplates).
 */
export type DraftSlot = 'draft' | 'queued' | 'queued-images' | 'queued-mcp' | 'draft-mcp' | 'draft-templates';

const keyOf = (sessionId: string, slot: DraftSlot): string => `bastion.${slot}.${sessionId}`;

export function readDraft(sessionId: string, slot: DraftSlot = 'draft'): string {
  try {
    return window.sessionStorage.getItem(keyOf(sessionId, slot)) ?? '';
  } catch {
    return '';
  }
}

/** Whether storage took it. */
export function saveDraft(sessionId: string, text: string, slot: DraftSlot = 'draft'): boolean {
  try {
    if (text === '') window.sessionStorage.removeItem(keyOf(sessionId, slot));
    else window.sessionStorage.setItem(keyOf(sessionId, slot), text);
    return true;
  } catch {
    // Storage refused: the text lives in the view's state only.
    return false;
  }
}

/**
 * What MCP servers gave the queued message (`mcp`, what it is sent with), and which characters of
 * its text an MCP server's prompt wrote (`serverText`, for when it goes back in the box).
 */
export interface QueuedMcp {
  mcp: AgentRunMcp;
  serverText: DraftMcp | undefined;
}

/**
 * The queued message and what MCP servers gave it as the box read it (a prompt's origin, the
 * resources' text, the characters the prompt wrote): stored together or not at all, so that after
 * a reload the message goes with that context and its `@SERVER:URI` words are never read afresh —
 * a word of a server's prompt text would then attach a resource the person never named — and,
 * given back to the box, its server's words stay the server's. A text whose context storage
 * refuses (quota: resources are up to AGENT_MAX_MCP_RESOURCES × MCP_RESOURCE_TEXT_MAX_BYTES) lives
 * in the view only, as a draft does when storage refuses it.
 */
export function saveQueued(sessionId: string, text: string, queued: QueuedMcp): void {
  const record = { ...queued.mcp, ...(queued.serverText === undefined ? {} : { serverText: queued.serverText }) };
  const stored = text !== '' && saveDraft(sessionId, JSON.stringify(record), 'queued-mcp');
  if (!stored) saveDraft(sessionId, '', 'queued-mcp');
  saveDraft(sessionId, stored ? text : '', 'queued');
}

/** What MCP servers gave the stored queued message (nothing, for none stored). */
export function readQueuedMcp(sessionId: string): QueuedMcp {
  // Written by saveQueued only, in this tab's own storage.
  const stored = readDraft(sessionId, 'queued-mcp');
  if (stored === '') return { mcp: {}, serverText: undefined };
  const { serverText, ...mcp } = JSON.parse(stored) as AgentRunMcp & { serverText?: DraftMcp };
  return { mcp, serverText };
}

/** The MCP server's prompt a draft's text came from, and the ranges of the draft its text still holds. */
export interface DraftMcp {
  origin: McpPromptOrigin;
  spans: TextSpan[];
}

/**
 * Keep `mcp` for the draft `text` (nothing, for undefined), stored with the text it is of. When
 * storage refuses it, the draft's text is taken out of storage too (it lives in the view only), so
 * that a reload never shows the server's words without their origin; false then.
 */
export function saveDraftMcp(key: string, text: string, mcp: DraftMcp | undefined): boolean {
  const stored = saveDraft(key, mcp === undefined ? '' : JSON.stringify({ text, ...mcp }), 'draft-mcp');
  if (!stored) saveDraft(key, '');
  return stored;
}

/**
 * The MCP origin of the stored draft `text`. One stored for another text (the draft changed and
 * its origin was not saved after it) holds the whole text to be the server's: no word of it
 * attaches a resource, whatever the person typed.
 */
export function readDraftMcp(key: string, text: string): DraftMcp | undefined {
  const stored = readDraft(key, 'draft-mcp');
  if (stored === '') return undefined;
  // Written by saveDraftMcp only, in this tab's own storage.
  const record = JSON.parse(stored) as DraftMcp & { text: string };
  const spans: TextSpan[] = record.text === text ? record.spans : [[0, text.length]];
  return { origin: record.origin, spans };
}

/**
 * A draft's MCP origin and filled-in resource templates carried to the box of `to` (a session the home page's message started), for
 * `text`, the draft as it goes there (trimmed): false when storage refused it (then nothing of
 * `text` may be stored there).
 */
export function carryDraftMcp(from: string, draft: string, to: string, text: string): boolean {
  const mcp = readDraftMcp(from, draft);
  saveDraftTemplates(to, text, readDraftTemplates(from, draft));
  return saveDraftMcp(to, text, mcp && { origin: mcp.origin, spans: spansAfterEdit(mcp.spans, draft, text) });
}

/**
 * Keep the resource templates the person filled in for the draft `text`: those whose word it still
 * holds, the newest AGENT_MAX_MCP_RESOURCES (a message carries no more). Storage refusing them
 * leaves them in the view only; the word then names nothing after a reload, and sending says so.
 */
export function saveDraftTemplates(key: string, text: string, templates: readonly ChosenTemplate[]): void {
  const kept = templatesIn(text, templates);
  saveDraft(key, kept.length === 0 ? '' : JSON.stringify(kept), 'draft-templates');
}

/** The resource templates filled in for the stored draft `text` (those whose word it holds). */
export function readDraftTemplates(key: string, text: string): ChosenTemplate[] {
  const stored = readDraft(key, 'draft-templates');
  // Written by saveDraftTemplates only, in this tab's own storage.
  return stored === '' ? [] : templatesIn(text, JSON.parse(stored) as ChosenTemplate[]);
}

const templatesIn = (text: string, templates: readonly ChosenTemplate[]): ChosenTemplate[] =>
  templates.filter(({ server, uri }) => holdsMention(text, server, uri)).slice(-AGENT_MAX_MCP_RESOURCES);

/** A deleted session's draft and queued message (their images: forgetDraftImages). */
export function forgetDrafts(sessionId: string): void {
  saveDraft(sessionId, '', 'draft');
  saveDraft(sessionId, '', 'queued');
  saveDraft(sessionId, '', 'queued-images');
  saveDraft(sessionId, '', 'queued-mcp');
  saveDraft(sessionId, '', 'draft-mcp');
  saveDraft(sessionId, '', 'draft-templates');
}
