/**
 * The forms a held secret is looked for in wherever Bastion looks for one (the daemon's redaction
 * of tool results, the host's of what an MCP server says, the egress guard's scan of provider
 * requests): as written; as a JSON string carries it (a quote or a backslash escaped); and
 * encoded, since any base64 text holding the value holds one of three runs of characters, one per
 * alignment of its first byte within a 3-byte group (the characters that encode only its own
 * bytes), in base64 or base64url. The one or two bytes at either end of a base64 form, encoded
 * together with their neighbours, are not in any run.
 */
import { EGRESS_MIN_SECRET_CHARS } from './limits.js';

/** Standard base64 of `bytes` (btoa takes one character a byte). */
function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * The runs of base64 and base64url characters any encoding of a text holding `value` contains;
 * those too short to find without false hits are left out.
 */
function base64FormsOf(value: string): string[] {
  const bytes = new TextEncoder().encode(value);
  const forms = new Set<string>();
  for (let shift = 0; shift < 3; shift += 1) {
    const shifted = new Uint8Array(shift + bytes.length);
    shifted.set(bytes, shift);
    const own = base64(shifted).slice(shift === 0 ? 0 : 4, Math.floor((shift + bytes.length) / 3) * 4);
    if (own.length < EGRESS_MIN_SECRET_CHARS) continue;
    forms.add(own);
    forms.add(own.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return [...forms];
}

/** Every form of `value` to look for: as written, JSON-escaped and in base64 (each once). */
export function heldValueForms(value: string): string[] {
  return [...new Set([value, JSON.stringify(value).slice(1, -1), ...base64FormsOf(value)])];
}
