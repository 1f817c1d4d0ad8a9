/**
 * SEC-004 watchdog: a tool result never shows or stores a credential Bastion holds. Before a tool's
 * output is stored, streamed to the UI or sent to the model, every occurrence of a held value
 * (each auth.json entry's key or tokens) in any string of it is replaced by a marker naming the
 * entry. So is a held value JSON-escaped or in base64 or base64url (a tool that encodes what it
 * read, a Basic authorization header a command prints): each form protocol held-value-forms.ts
 * names is looked for. The host's egress guard is the second line:
 * a request that still carried a held value as it is stored is blocked.
 *
 * What it does not catch: a credential transformed otherwise (hex, split across fields, another
 * encoding), the one or two bytes at either end of a base64 form (encoded with their neighbours),
 * one shorter than EGRESS_MIN_SECRET_CHARS, and secrets Bastion does not hold (the host's secret
 * formats block those at egress instead).
 */
import { EGRESS_MIN_SECRET_CHARS, heldValueForms } from '@bastion/protocol';

/** The credentials to redact, read fresh per tool result (auth.json can change during a run). */
export type HeldSecrets = () => Promise<{ kind: string; value: string }[]>;

/** The held values redaction looks for, each in its forms (held-value-forms.ts): those long enough to find without false hits. */
const redacted = (secrets: readonly { kind: string; value: string }[]) =>
  secrets
    .filter((secret) => secret.value.length >= EGRESS_MIN_SECRET_CHARS)
    .flatMap((secret) => heldValueForms(secret.value).map((form) => ({ kind: secret.kind, value: form })));

/**
 * How many characters at the end of `text` could be the start of a value redactHeld replaces (0
 * when none could): what a stream must hold back until the text that follows says.
 */
export function heldStartAtEnd(text: string, secrets: readonly { kind: string; value: string }[]): number {
  let longest = 0;
  for (const { value } of redacted(secrets)) {
    const first = value.charCodeAt(0);
    for (let at = Math.max(0, text.length - value.length + 1); at < text.length - longest; at += 1) {
      if (text.charCodeAt(at) === first && value.startsWith(text.slice(at))) {
        longest = text.length - at;
        break;
      }
    }
  }
  return longest;
}

/** `value` with every held secret in its strings replaced; the same object when nothing matched. */
export function redactHeld<T>(value: T, secrets: readonly { kind: string; value: string }[]): T {
  const wanted = redacted(secrets);
  if (wanted.length === 0) return value;
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') {
      let text = node;
      for (const secret of wanted) {
        if (text.includes(secret.value))
          text = text.replaceAll(secret.value, `[redacted: Bastion's ${secret.kind} credential]`);
      }
      return text;
    }
    if (Array.isArray(node)) {
      const mapped = node.map(walk);
      return mapped.some((item, index) => item !== node[index]) ? mapped : node;
    }
    if (typeof node === 'object' && node !== null) {
      const entries = Object.entries(node);
      const mapped = entries.map(([key, item]) => [key, walk(item)] as const);
      return mapped.some(([, item], index) => item !== entries[index]?.[1]) ? Object.fromEntries(mapped) : node;
    }
    return node;
  };
  return walk(value) as T;
}
