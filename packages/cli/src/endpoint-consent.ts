/**
 * `--allow-endpoint URL` (start) and `--endpoint URL` (run): consent given on the host's own command
 * line for one custom endpoint's exact origin. An ineligible URL is a usage error (exit 2) that says
 * which hosts are eligible and why, before anything starts. After the host is up, the endpoint is
 * defined in endpoints.json unless a definition with the same base URL exists.
 */
import { createHash } from 'node:crypto';
import {
  checkEndpointUrl,
  endpointListResponseSchema,
  endpointSetResponseSchema,
  type WireError,
} from '@bastion/protocol';
import { terminalLine, type BastionHost } from '@bastion/host';
import { UsageError } from './usage.js';

export function checkEndpointFlags(flag: string, urls: readonly string[]): void {
  for (const url of urls) {
    const checked = checkEndpointUrl(url);
    if (!checked.ok) throw new UsageError(`${flag} ${url}: ${checked.message}`);
  }
}

/** The endpoint id a command-line URL gets: short, stable for the same base URL. */
function endpointIdFor(baseUrl: string): string {
  return `endpoint-${createHash('sha256').update(baseUrl).digest('hex').slice(0, 10)}`;
}

/**
 * Make sure `url` is defined; resolves with its provider id and whether this call created the
 * definition (so a transient one can be removed afterwards).
 */
export async function ensureEndpointDefined(
  host: BastionHost,
  url: string,
  models: readonly string[] = [],
): Promise<{ id: string; created: boolean }> {
  const checked = checkEndpointUrl(url);
  if (!checked.ok) throw new UsageError(checked.message);
  const listed = await host.client.call('POST', '/providers/endpoints/list', {}, endpointListResponseSchema);
  if (!listed.ok) throw new Error(`could not list endpoints: ${describe(listed.error)}`);
  const existing = listed.body.endpoints.find((endpoint) => endpoint.base_url === checked.baseUrl);
  if (existing) return { id: existing.id, created: false };
  const id = endpointIdFor(checked.baseUrl);
  const set = await host.client.call(
    'POST',
    '/providers/endpoints/set',
    { id, base_url: checked.baseUrl, ...(models.length > 0 ? { models: [...models] } : {}) },
    endpointSetResponseSchema,
  );
  if (!set.ok) throw new Error(`could not define the endpoint ${url}: ${describe(set.error)}`);
  return { id, created: true };
}

/** A daemon refusal as `CODE: message` (the message is the daemon's fixed text, made inert for the terminal). */
function describe(error: WireError): string {
  return `${error.code}: ${terminalLine(error.message)}`;
}

export async function removeEndpoint(host: BastionHost, id: string): Promise<void> {
  await host.client.request('POST', '/providers/endpoints/delete', { id });
}
