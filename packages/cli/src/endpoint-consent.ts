/**
 * `--allow-endpoint URL` (start) and `--endpoint URL` (run): consent given on the host's own command
 * line for one custom endpoint's exact origin. An ineligible URL is a usage error (exit 2) that says
 * which hosts are eligible and why, before anything starts. After the host is up, the endpoint is
 * defined in endpoints.json, under an id read from its URL, unless a definition with the same base
 * URL exists. The consent (the grant) is for that run only; a definition is only a name, a URL and
 * what its key is stored under.
 */
import { createHash } from 'node:crypto';
import {
  checkEndpointUrl,
  CONTEXT_WINDOW_ERROR,
  contextWindowSchema,
  ENDPOINT_ID_MAX_CHARS,
  endpointListResponseSchema,
  endpointSetResponseSchema,
  type WireError,
} from '@bastion/protocol';
import { terminalLine, type BastionHost } from '@bastion/host';
import { UsageError } from './usage.js';

/** What the command line says of its endpoints' models: their context window, and that they take images. */
export interface EndpointSettings {
  contextWindow: number | undefined;
  images: boolean;
}

/**
 * The endpoint flags of one command line: every URL given with `flag` must be eligible;
 * `--context-window TOKENS`, the window of those endpoints' models, must be a whole number in range,
 * and it and `--endpoint-images` (their models take images) must come with at least one of them;
 * anything else is a usage error.
 */
export function parseEndpointFlags(
  flag: string,
  urls: readonly string[],
  contextWindow: string | undefined,
  images: boolean,
): EndpointSettings {
  for (const url of urls) {
    const checked = checkEndpointUrl(url);
    if (!checked.ok) throw new UsageError(`${flag} ${url}: ${checked.message}`);
  }
  if (images && urls.length === 0) throw new UsageError(`--endpoint-images needs ${flag}`);
  if (contextWindow === undefined) return { contextWindow: undefined, images };
  if (urls.length === 0) throw new UsageError(`--context-window needs ${flag}`);
  const checked = contextWindowSchema.safeParse(/^\d+$/.test(contextWindow) ? Number(contextWindow) : Number.NaN);
  if (!checked.success) throw new UsageError(`--context-window ${contextWindow}: ${CONTEXT_WINDOW_ERROR}`);
  return { contextWindow: checked.data, images };
}

/**
 * The endpoint id a command-line URL gets: `endpoint-` and the base URL's host, port and path in
 * words (`http://127.0.0.1:8080/v1` → `endpoint-127-0-0-1-8080-v1`), so the same URL always gets
 * the same id and `bastion secrets set ID` can name it. One longer than an id may be, or one that
 * `taken` holds (another URL's definition has it: taking it over would send that endpoint's key
 * to this URL), keeps what fits of its words and ends in a short hash of the URL instead.
 */
export function endpointIdFor(baseUrl: string, taken: ReadonlySet<string> = new Set()): string {
  const url = new URL(baseUrl);
  const words = `${url.hostname}-${url.port}${url.pathname}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const readable = `endpoint-${words}`;
  if (readable.length <= ENDPOINT_ID_MAX_CHARS && !taken.has(readable)) return readable;
  const hash = createHash('sha256').update(baseUrl).digest('hex').slice(0, 8);
  const hashed = `${readable.slice(0, ENDPOINT_ID_MAX_CHARS - hash.length - 1).replace(/-+$/, '')}-${hash}`;
  // Never another URL's definition (and so its key), however unlikely the hash's collision.
  if (taken.has(hashed)) throw new Error(`no endpoint id is free for ${baseUrl}: ${hashed} is another endpoint's`);
  return hashed;
}

/**
 * Make sure `url` is defined (with the window, when given, and that its models take images, when
 * said, also on an existing definition, which keeps its other settings);
 * resolves with its provider id, its base URL as stored, and whether this call created the
 * definition (so the command can release it at its end: releaseEndpoint).
 */
export async function ensureEndpointDefined(
  host: BastionHost,
  url: string,
  models: readonly string[],
  settings: EndpointSettings,
): Promise<{ id: string; baseUrl: string; created: boolean }> {
  const { contextWindow } = settings;
  const checked = checkEndpointUrl(url);
  if (!checked.ok) throw new UsageError(checked.message);
  const listed = await host.client.call('POST', '/providers/endpoints/list', {}, endpointListResponseSchema);
  if (!listed.ok) throw new Error(`could not list endpoints: ${describe(listed.error)}`);
  const existing = listed.body.endpoints.find((endpoint) => endpoint.base_url === checked.baseUrl);
  if (
    existing &&
    (contextWindow === undefined || existing.context_window === contextWindow) &&
    (!settings.images || existing.images === true)
  )
    return { id: existing.id, baseUrl: checked.baseUrl, created: false };
  const id =
    existing?.id ?? endpointIdFor(checked.baseUrl, new Set(listed.body.endpoints.map((endpoint) => endpoint.id)));
  const kept = existing?.models ?? models;
  const set = await host.client.call(
    'POST',
    '/providers/endpoints/set',
    {
      id,
      base_url: checked.baseUrl,
      ...(kept.length > 0 ? { models: [...kept] } : {}),
      ...((contextWindow ?? existing?.context_window) === undefined
        ? {}
        : { context_window: contextWindow ?? existing?.context_window }),
      ...(settings.images || existing?.images === true ? { images: true } : {}),
    },
    endpointSetResponseSchema,
  );
  if (!set.ok) throw new Error(`could not define the endpoint ${url}: ${describe(set.error)}`);
  return { id, baseUrl: checked.baseUrl, created: existing === undefined };
}

/** A daemon refusal as `CODE: message` (the message is the daemon's fixed text, made inert for the terminal). */
function describe(error: WireError): string {
  return `${error.code}: ${terminalLine(error.message)}`;
}

async function removeEndpoint(host: BastionHost, id: string): Promise<void> {
  await host.client.request('POST', '/providers/endpoints/delete', { id });
}

/**
 * At the end of a command, the definition it made for an `--endpoint` (`id`): removed, so URLs given
 * once do not pile up, unless a key is stored for it (removing it would delete the key) or
 * `keepForKey` (the endpoint refused the run for want of one: kept so `bastion secrets set ID` can
 * store it). Resolves true when it is kept.
 */
export async function releaseEndpoint(host: BastionHost, id: string, keepForKey: boolean): Promise<boolean> {
  const listed = await host.client.call('POST', '/providers/endpoints/list', {}, endpointListResponseSchema);
  // Not listed (the agent gone): kept, rather than risk deleting a key with it.
  if (!listed.ok || keepForKey || listed.body.endpoints.some((endpoint) => endpoint.id === id && endpoint.has_key))
    return true;
  await removeEndpoint(host, id);
  return false;
}
