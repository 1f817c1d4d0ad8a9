/**
 * `--allow-endpoint URL` (start) and `--endpoint URL` (run): consent given on the host's own command
 * line for one custom endpoint's exact origin. An ineligible URL is a usage error (exit 2) that says
 * which hosts are eligible and why, before anything starts. After the host is up, the endpoint is
 * defined in endpoints.json unless a definition with the same base URL exists.
 */
import { createHash } from 'node:crypto';
import {
  checkEndpointUrl,
  CONTEXT_WINDOW_ERROR,
  contextWindowSchema,
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

/** The endpoint id a command-line URL gets: short, stable for the same base URL. */
function endpointIdFor(baseUrl: string): string {
  return `endpoint-${createHash('sha256').update(baseUrl).digest('hex').slice(0, 10)}`;
}

/**
 * Make sure `url` is defined (with the window, when given, and that its models take images, when
 * said, also on an existing definition, which keeps its other settings);
 * resolves with its provider id and whether this call created the definition (so a transient one
 * can be removed afterwards).
 */
export async function ensureEndpointDefined(
  host: BastionHost,
  url: string,
  models: readonly string[],
  settings: EndpointSettings,
): Promise<{ id: string; created: boolean }> {
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
    return { id: existing.id, created: false };
  const id = existing?.id ?? endpointIdFor(checked.baseUrl);
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
  return { id, created: existing === undefined };
}

/** A daemon refusal as `CODE: message` (the message is the daemon's fixed text, made inert for the terminal). */
function describe(error: WireError): string {
  return `${error.code}: ${terminalLine(error.message)}`;
}

export async function removeEndpoint(host: BastionHost, id: string): Promise<void> {
  await host.client.request('POST', '/providers/endpoints/delete', { id });
}
