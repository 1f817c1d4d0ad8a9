/**
 * The models a custom endpoint lists (`GET <base_url>/models`, the OpenAI format), fetched through
 * the host-routed provider transport with the endpoint's stored key. Used by the probe route and
 * by `GET /models`. Answers a stable code instead of throwing, and never carries the key or the
 * endpoint's own error text.
 */
import { z } from 'zod';
import { ENDPOINTS_MAX_MODELS, ENDPOINTS_MAX_PROBE_BYTES, MODEL_ID_MAX_CHARS, type Logger } from '@bastion/protocol';
import type { AuthStore } from '../secrets/auth-store.js';
import type { ProviderTransport } from '../transport/transport-fetch.js';
import type { Endpoint } from '@bastion/protocol';

const modelsAnswer = z.object({
  data: z.array(z.object({ id: z.string().min(1).max(MODEL_ID_MAX_CHARS) })).max(4 * ENDPOINTS_MAX_MODELS),
});

export type EndpointModels =
  | { ok: true; models: string[] }
  | {
      ok: false;
      code:
        | 'ENDPOINT_NOT_GRANTED'
        | 'ENDPOINT_PROBE_STATUS'
        | 'ENDPOINT_PROBE_FORMAT'
        | 'ENDPOINT_UNREACHABLE'
        | 'ENDPOINT_KEY_UNREADABLE';
      /** The endpoint's HTTP status, for ENDPOINT_PROBE_STATUS. */
      status?: number;
    };

export async function listEndpointModels(
  endpoint: Endpoint,
  options: { auth: AuthStore; transport: ProviderTransport; log: Logger },
): Promise<EndpointModels> {
  const { auth, transport, log } = options;
  const url = `${endpoint.base_url}/models`;
  if (!transport.grantFor(url, 'provider')) return { ok: false, code: 'ENDPOINT_NOT_GRANTED' };
  let key: string | undefined;
  try {
    key = await auth.apiKey(endpoint.id);
  } catch (error) {
    log.warn('endpoints.key-unreadable', {
      provider: endpoint.id,
      code: (error as { code?: string }).code ?? 'UNKNOWN',
    });
    return { ok: false, code: 'ENDPOINT_KEY_UNREADABLE' };
  }
  try {
    const response = await transport.fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    if (!response.ok) {
      await response.body?.cancel();
      log.warn('endpoints.probe-failed', { provider: endpoint.id, status: response.status });
      return { ok: false, code: 'ENDPOINT_PROBE_STATUS', status: response.status };
    }
    const text = await readBounded(response, ENDPOINTS_MAX_PROBE_BYTES);
    const parsed = text === undefined ? undefined : modelsAnswer.safeParse(safeJson(text));
    if (!parsed?.success) return { ok: false, code: 'ENDPOINT_PROBE_FORMAT' };
    const models = parsed.data.data.map((model) => model.id).slice(0, ENDPOINTS_MAX_MODELS);
    log.info('endpoints.probed', { provider: endpoint.id, count: models.length });
    return { ok: true, models };
  } catch (error) {
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    log.warn('endpoints.probe-failed', { provider: endpoint.id, code: typeof code === 'string' ? code : 'UNKNOWN' });
    return { ok: false, code: 'ENDPOINT_UNREACHABLE' };
  }
}

/** The body as text, or undefined when it is larger than `limit` bytes (reading stops there). */
async function readBounded(response: Response, limit: number): Promise<string | undefined> {
  if (!response.body) return '';
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
