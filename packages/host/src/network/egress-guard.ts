/**
 * SEC-004 watchdog, the secret-egress guard: before a provider request leaves, its URL (as sent
 * and with its %-escapes decoded), its headers' names and values and every body chunk are scanned
 * for each credential Bastion holds — except the one that request is authorized to carry — and
 * for high-confidence secret formats (secret-scanner.ts). The host learns the credentials by
 * reading `<userData>/auth.json` itself, read-only, with the private-file checks, first before the
 * sidecar starts and then as it changes. The sidecar writes that file (it owns the credentials), so
 * the host remembers, in memory, the entry it first saw each value under for as long as the value
 * stays in the file: a value the sidecar moves under another entry is still held as what it was.
 * The variables the user gave MCP servers (`<userData>/host/mcp.json`, the host's own) are held
 * credentials too: no request carries one. What a request may carry follows from its grant: a
 * built-in provider's own entry, the ChatGPT refresh token to its token endpoint and the access
 * token to its Responses endpoint, and to a custom endpoint the entries of the endpoints in
 * `endpoints.json` with that exact origin — the sidecar's file too, so never a built-in
 * provider's entry. An auth.json or mcp.json the host cannot read safely blocks every request
 * (EGRESS_GUARD_UNAVAILABLE): the guard does not guess. Each held value is looked for in the forms
 * held-value-forms.ts names (as written, JSON-escaped, and the runs any base64 or base64url text
 * holding it contains), so a credential encoded into an attachment or a Basic authorization header
 * is found too; the request's own credential is allowed in those forms as well.
 *
 * What it does not catch: see secret-scanner.ts (other encodings: hex, `\u` escapes, a value
 * split by other text); a credential Bastion does not hold, in a format not listed — the
 * transport still cannot judge what ordinary text in a request means; a sidecar that removes a
 * key from auth.json, lets the host read the file, then writes the key back under another entry
 * (or put it there before the host first read the file); one custom endpoint's key sent to another
 * granted custom endpoint's origin that the sidecar names it for in endpoints.json.
 */
import { watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import {
  EGRESS_MAX_CACHED_PATTERNS,
  heldValueForms,
  SECRETS_MAX_FILE_BYTES,
  TRANSPORT_MAX_ERROR_KIND_CHARS,
  type Grant,
  type Logger,
} from '@bastion/protocol';
import { HostError } from '../errors.js';
import { MCP_FILE_NAME } from '../mcp/mcp-config-store.js';
import { hostOnlyDir } from '../user-data.js';
import { readPrivateFile, type FileStamp } from '../private-file.js';
import { SecretPattern, type HeldSecret } from './secret-scanner.js';

/** What a request may carry: an auth.json entry's values, or only those of some of its fields. */
interface Carried {
  entry: string;
  fields?: readonly AuthValue['field'][];
}

/** The built-in grants and what each may carry. */
const BUILTIN_CREDENTIAL_OF: Readonly<Record<string, Carried>> = {
  openai: { entry: 'openai' },
  anthropic: { entry: 'anthropic' },
  openrouter: { entry: 'openrouter' },
  // The refresh token goes to the token endpoint only, the access token to the Responses endpoint only.
  'chatgpt-auth': { entry: 'chatgpt', fields: ['refresh'] },
  'chatgpt-responses': { entry: 'chatgpt', fields: ['access'] },
};

/** The auth.json entries only the built-in grants carry. */
const BUILTIN_ENTRIES = new Set(Object.values(BUILTIN_CREDENTIAL_OF).map(({ entry }) => entry));

const carries = (carried: readonly Carried[], { entry, field }: Omit<AuthValue, 'value'>): boolean =>
  carried.some((allowed) => allowed.entry === entry && (allowed.fields?.includes(field) ?? true));

/** Only the secret fields are read; the daemon's own schema stays the authority on the rest. */
const authFileSchema = z.object({
  entries: z.record(
    z.string(),
    z.object({ key: z.string().optional(), access: z.string().optional(), refresh: z.string().optional() }),
  ),
});
/** Only the MCP servers' variables are read; the host's McpConfigStore is the authority on the rest. */
const mcpFileSchema = z.object({
  servers: z.array(z.object({ name: z.string(), env: z.record(z.string(), z.string()).optional() })),
});
const endpointsFileSchema = z.object({
  endpoints: z.array(z.object({ id: z.string(), base_url: z.string() })),
});

/** A credential value in auth.json, and the entry and field it is under (`key`, `access`, `refresh`). */
interface AuthValue {
  entry: string;
  field: 'key' | 'access' | 'refresh';
  value: string;
}

/** What the guard needs to know of a file; re-read only when its stamp changes. */
class StampedFile<T> {
  readonly #path: string;
  readonly #parse: (text: string | undefined) => T;
  #cached: { stamp: FileStamp | undefined; value: T } | undefined;

  constructor(path: string, parse: (text: string | undefined) => T) {
    this.#path = path;
    this.#parse = parse;
  }

  read(): { stamp: FileStamp | undefined; value: T } {
    const read = readPrivateFile(this.#path, SECRETS_MAX_FILE_BYTES);
    if (this.#cached?.stamp !== read?.stamp || this.#cached === undefined) {
      this.#cached = { stamp: read?.stamp, value: this.#parse(read?.text) };
    }
    return this.#cached;
  }
}

function parseAuth(text: string | undefined): AuthValue[] {
  if (text === undefined) return [];
  const parsed = authFileSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new HostError('EGRESS_GUARD_UNAVAILABLE', 'auth.json does not match its schema');
  return Object.entries(parsed.data.entries).flatMap(([entry, fields]) =>
    (['key', 'access', 'refresh'] as const).flatMap((field) => {
      const value = fields[field];
      return value === undefined ? [] : [{ entry, field, value }];
    }),
  );
}

/**
 * Each variable the user gave an MCP server (a token, often): held by Bastion, never the provider's,
 * in each of its forms (a password with a quote or a backslash is escaped in a JSON body).
 */
function parseMcpEnv(text: string | undefined): HeldSecret[] {
  if (text === undefined) return [];
  const parsed = mcpFileSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new HostError('EGRESS_GUARD_UNAVAILABLE', 'mcp.json does not match its schema');
  return parsed.data.servers.flatMap((server) =>
    Object.entries(server.env ?? {}).flatMap(([name, value]) =>
      heldValueForms(value).map((form) => ({
        kind: mcpEnvKind(server.name, name),
        value: form,
      })),
    ),
  );
}

/**
 * How a blocked request names an MCP server's variable, in the letters a kind may hold
 * (`mcp-env:docs:docs-token` for DOCS_TOKEN of `docs`); the server alone when that is too long.
 */
function mcpEnvKind(server: string, name: string): string {
  const kind = `mcp-env:${server}:${name.toLowerCase().replace(/_/g, '-')}`;
  return kind.length <= TRANSPORT_MAX_ERROR_KIND_CHARS ? kind : `mcp-env:${server}`;
}

function parseEndpoints(text: string | undefined): Map<string, string[]> {
  const byOrigin = new Map<string, string[]>();
  if (text === undefined) return byOrigin;
  const parsed = endpointsFileSchema.safeParse(JSON.parse(text));
  if (!parsed.success) return byOrigin;
  for (const endpoint of parsed.data.endpoints) {
    let origin: string;
    try {
      origin = new URL(endpoint.base_url).origin;
    } catch {
      continue;
    }
    byOrigin.set(origin, [...(byOrigin.get(origin) ?? []), endpoint.id]);
  }
  return byOrigin;
}

export type EgressScan = { ok: true; pattern: SecretPattern } | { ok: false; code: 'EGRESS_GUARD_UNAVAILABLE' };

/**
 * The kind of the first secret in what a request sends before its body, or undefined: its URL as
 * sent and with its %-escapes decoded (a URL can carry any byte so, and the server reads it
 * decoded), then each header's name and value on their own (a secret cannot span two of them).
 */
export function secretInHead(
  pattern: SecretPattern,
  url: URL,
  headers: readonly (readonly [string, string])[],
): string | undefined {
  // A canonical URL's serialisation is ASCII: each escape decodes to the one byte it names.
  const decoded = url.href.replace(/%([0-9a-f]{2})/gi, (_escape, hex: string) =>
    String.fromCharCode(parseInt(hex, 16)),
  );
  for (const text of [url.href, decoded]) {
    const kind = pattern.findIn(Buffer.from(text, 'latin1'));
    if (kind !== undefined) return kind;
  }
  for (const text of headers.flat()) {
    const kind = pattern.findIn(Buffer.from(text, 'utf8'));
    if (kind !== undefined) return kind;
  }
  return undefined;
}

export class EgressGuard {
  readonly #auth: StampedFile<AuthValue[]>;
  readonly #endpoints: StampedFile<Map<string, string[]>>;
  readonly #mcp: StampedFile<HeldSecret[]>;
  /**
   * Every credential value in auth.json, by the entry and field it was first seen under while it
   * has stayed in the file (memory only): the sidecar writes auth.json, so a value it moves under
   * another entry is still held as what it was. A value gone from the file is forgotten (a token
   * refreshed, a key replaced), so the record is no larger than the file.
   */
  readonly #held = new Map<string, Omit<AuthValue, 'value'>>();
  /** Counts the changes to `#held`, which name the compiled scans' set. */
  #heldVersion = 0;
  readonly #patterns = new Map<string, SecretPattern>();
  #patternsStamp: string | undefined;

  readonly #log: Logger | undefined;
  readonly #watcher: FSWatcher | undefined;

  /**
   * Reads auth.json at once, before the sidecar starts, so its values are held as the user left
   * them, and again each time it changes: a key the user moves from one provider to another is
   * seen gone before it is seen under the other, and so is held as the other's from then on.
   */
  constructor(options: { userData: string; log?: Logger }) {
    this.#auth = new StampedFile(join(options.userData, 'auth.json'), parseAuth);
    this.#endpoints = new StampedFile(join(options.userData, 'endpoints.json'), parseEndpoints);
    this.#mcp = new StampedFile(join(hostOnlyDir(options.userData), MCP_FILE_NAME), parseMcpEnv);
    this.#log = options.log;
    this.#refresh();
    try {
      this.#watcher = watch(options.userData, (_event, name) => {
        if (name === 'auth.json') this.#refresh();
      });
      // A watch that fails later leaves the reads each request makes.
      this.#watcher.on('error', () => undefined).unref();
    } catch {
      // Without a watch, auth.json is read at each request only.
    }
  }

  close(): void {
    this.#watcher?.close();
  }

  /**
   * Every credential Bastion holds now, auth.json's by its entry's name and each MCP server's
   * variable, for text shown to the person to be cut of them; throws when a file cannot be read.
   */
  heldCredentials(): HeldSecret[] {
    this.#learn(this.#auth.read().value);
    const auth = Array.from(this.#held, ([value, owner]) => ({ kind: owner.entry, value }));
    return [...auth, ...this.#mcp.read().value];
  }

  /** The scan for one request under `grant`: every held credential but the grant's own, and every format. */
  scanFor(grant: Grant): EgressScan {
    let mcp: { stamp: FileStamp | undefined; value: HeldSecret[] };
    try {
      this.#learn(this.#auth.read().value);
      mcp = this.#mcp.read();
    } catch {
      return { ok: false, code: 'EGRESS_GUARD_UNAVAILABLE' };
    }
    const carried = this.#carriedUnder(grant);
    const stamp = `${this.#heldVersion}|${mcp.stamp ?? ''}`;
    if (stamp !== this.#patternsStamp) {
      this.#patterns.clear();
      this.#patternsStamp = stamp;
    }
    const key = JSON.stringify(carried);
    let pattern = this.#patterns.get(key);
    if (!pattern) {
      const secrets: HeldSecret[] = [];
      const allowed: string[] = [];
      for (const [value, owner] of this.#held) {
        const forms = heldValueForms(value);
        const kind = owner.field === 'key' ? `credential:${owner.entry}` : `credential:${owner.entry}-${owner.field}`;
        for (const form of forms) secrets.push({ kind, value: form });
        if (carries(carried, owner)) allowed.push(...forms);
      }
      pattern = new SecretPattern([...secrets, ...mcp.value], allowed);
      if (this.#patterns.size >= EGRESS_MAX_CACHED_PATTERNS) this.#patterns.clear();
      this.#patterns.set(key, pattern);
    }
    return { ok: true, pattern };
  }

  /** The held values as auth.json now has them: those gone forgotten, new ones under their entry, the rest as first seen. */
  #learn(values: readonly AuthValue[]): void {
    const version = this.#heldVersion;
    const present = new Set(values.map(({ value }) => value));
    for (const value of this.#held.keys()) {
      if (present.has(value)) continue;
      this.#held.delete(value);
      this.#heldVersion += 1;
    }
    for (const { entry, field, value } of values) {
      if (this.#held.has(value)) continue;
      this.#held.set(value, { entry, field });
      this.#heldVersion += 1;
    }
    if (this.#heldVersion !== version) this.#log?.info('egress.held', { count: this.#held.size });
  }

  /** #learn from auth.json as it is now; one that cannot be read safely fails each request instead (scanFor). */
  #refresh(): void {
    try {
      this.#learn(this.#auth.read().value);
    } catch {
      // scanFor reads it again and refuses the request.
    }
  }

  #carriedUnder(grant: Grant): Carried[] {
    if (grant.op !== 'provider') return [];
    if (grant.kind === 'builtin') {
      const carried = BUILTIN_CREDENTIAL_OF[grant.grant_id];
      return carried === undefined ? [] : [carried];
    }
    try {
      // endpoints.json is the sidecar's: it may name a custom origin's entries, never a built-in provider's.
      const named = this.#endpoints.read().value.get(grant.origin) ?? [];
      return named.filter((entry) => !BUILTIN_ENTRIES.has(entry)).map((entry) => ({ entry }));
    } catch {
      // An unreadable endpoints.json authorizes no credential: every held one is scanned for.
      return [];
    }
  }
}
