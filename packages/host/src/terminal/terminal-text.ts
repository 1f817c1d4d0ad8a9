/**
 * SEC-004: text that came out of the sidecar (model output, tool input and output, error messages,
 * paths the renderer asked for) is made inert before it reaches the user's terminal. A terminal
 * obeys control and escape sequences wherever they appear in what it is given, so unfiltered
 * model text could clear the screen, move the cursor over the real approval prompt and draw a
 * fake one, set the clipboard (OSC 52), plant a link whose target differs from its text (OSC 8),
 * or talk to the terminal itself (DCS/APC/PM). Here every ESC- and C1-introduced sequence is
 * removed with its body, every other C0/C1 control except newline and tab is removed, a carriage
 * return becomes a newline (so "real\rfake" shows both, not just the overwrite), and the Unicode
 * bidirectional embedding/override/isolate controls are removed (they reorder what a line shows).
 * `quoteArgv` (from protocol's shell-word.ts, which the desktop app's approval prompts use too)
 * shows a command's argv with every argument a shell word, non-printable and non-ASCII characters
 * spelled out, so the approved command is exactly what is displayed.
 *
 * What it does not catch: printable text that imitates Bastion's own lines (a model can still
 * write the words "Allow? [y/N]"); the real prompt is told apart by where it appears, not by its
 * looks. Homoglyphs in free text (argv shows them as escapes). A terminal that interprets
 * printable characters specially.
 */
/* eslint-disable no-control-regex -- matching control characters is what this module is for */

/** ESC- or 8-bit-introduced strings (OSC, DCS, SOS, PM, APC): to BEL or ST, or to the end of the text. */
const CONTROL_STRING = /(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[\s\S]*?(?:\x07|\x1b\\|\x9c|$)/g;
/** CSI, 7-bit or 8-bit: parameters, intermediates, final byte (absent when the text was cut). */
const CONTROL_SEQUENCE = /(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?/g;
/** Other escape sequences (charset selection, save/restore cursor, reset…), then any lone ESC. */
const ESCAPE_SEQUENCE = /\x1b[\x20-\x2f]*[\x30-\x7e]?/g;
/** C0 (but newline and tab), DEL and C1 controls. */
const CONTROL_CHARACTER = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
/** Bidirectional embeddings, overrides and isolates (LRE…RLO, LRI…PDI). */
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/g;

/** Untrusted text as it may be shown on a terminal: newlines and tabs kept, everything that steers the terminal gone. */
export function terminalText(text: string): string {
  return text
    .replace(CONTROL_STRING, '')
    .replace(CONTROL_SEQUENCE, '')
    .replace(ESCAPE_SEQUENCE, '')
    .replace(/\r\n?/g, '\n')
    .replace(CONTROL_CHARACTER, '')
    .replace(BIDI_CONTROL, '');
}

/** Untrusted text for inside one line of Bastion's own output (a prompt, an error): line breaks and tabs become spaces. */
export function terminalLine(text: string): string {
  return terminalText(text).replace(/[\n\t]/g, ' ');
}

/** Characters JSON.stringify leaves raw that a terminal could act on (C1, bidi controls, line separators). */
const JSON_UNSAFE = /[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON for a stream that may end up on a terminal (`--json`): the same value once parsed, with
 * the characters JSON leaves raw written as `\u` escapes. They can occur only inside JSON
 * strings, so escaping them keeps the document valid.
 */
export function terminalJson(value: unknown): string {
  return JSON.stringify(value).replace(JSON_UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// The argv display is shared with the desktop app, so both escape the same characters.
export { quoteArgv, shellWord } from '@bastion/protocol';
