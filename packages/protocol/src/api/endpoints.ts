/**
 * Daemon HTTP DTOs of `/providers/endpoints/*`: custom OpenAI-compatible
 * endpoint definitions as the daemon stores and lists them, checked by the daemon on the way in
 * and by the host's client on the way out.
 */
import { z } from 'zod';
import {
  CONTEXT_WINDOW_MAX_TOKENS,
  CONTEXT_WINDOW_MIN_TOKENS,
  ENDPOINT_ID_MAX_CHARS,
  ENDPOINTS_MAX_MODELS,
  ENDPOINTS_MAX_URL_CHARS,
  MODEL_ID_MAX_CHARS,
} from '../limits.js';
import { BYOK_PROVIDER_IDS } from '../providers.js';

/** Provider ids a custom endpoint may not take. */
export const RESERVED_PROVIDER_IDS: ReadonlySet<string> = new Set([...BYOK_PROVIDER_IDS, 'chatgpt', 'demo']);

export const endpointIdSchema = z
  .string()
  .min(1)
  .max(ENDPOINT_ID_MAX_CHARS)
  .regex(/^[a-z][a-z0-9-]*$/)
  .refine((id) => !RESERVED_PROVIDER_IDS.has(id), 'reserved provider id');

export const contextWindowSchema = z.number().int().min(CONTEXT_WINDOW_MIN_TOKENS).max(CONTEXT_WINDOW_MAX_TOKENS);

/** The refusal of a `context_window` outside the schema, in words a user can act on. */
export const CONTEXT_WINDOW_ERROR = `context_window must be a whole number of tokens from ${CONTEXT_WINDOW_MIN_TOKENS} to ${CONTEXT_WINDOW_MAX_TOKENS}`;

export const endpointSchema = z.strictObject({
  id: endpointIdSchema,
  base_url: z.string().min(1).max(ENDPOINTS_MAX_URL_CHARS),
  models: z.array(z.string().min(1).max(MODEL_ID_MAX_CHARS)).max(ENDPOINTS_MAX_MODELS).optional(),
  /** The models' context window in tokens, which compaction works against (DEFAULT_CONTEXT_WINDOW_TOKENS when absent). */
  context_window: contextWindowSchema.optional(),
  /** Its models take images (a vision model): a prompt to them may carry some. Absent: they do not. */
  images: z.boolean().optional(),
});
export type Endpoint = z.infer<typeof endpointSchema>;

/** `/providers/endpoints/delete` and `/probe` name one endpoint. */
export const endpointIdRequestSchema = z.strictObject({ id: endpointIdSchema });
export type EndpointIdRequest = z.infer<typeof endpointIdRequestSchema>;

/** A definition as `/providers/endpoints/list` answers it, with what this host run adds. */
export const endpointListEntrySchema = endpointSchema.extend({
  /** Whether the host holds a grant for its origin in this host run. */
  granted: z.boolean(),
  /** Whether an API key is stored for it (the key itself never comes back). */
  has_key: z.boolean(),
});
export type EndpointListEntry = z.infer<typeof endpointListEntrySchema>;
export const endpointListResponseSchema = z.strictObject({ endpoints: z.array(endpointListEntrySchema) });
export type EndpointListResponse = z.infer<typeof endpointListResponseSchema>;
export const endpointSetResponseSchema = z.strictObject({ endpoint: endpointSchema, granted: z.boolean() });
export type EndpointSetResponse = z.infer<typeof endpointSetResponseSchema>;
export const endpointDeleteResponseSchema = z.strictObject({ id: endpointIdSchema, deleted: z.boolean() });
export type EndpointDeleteResponse = z.infer<typeof endpointDeleteResponseSchema>;
/** `/providers/endpoints/probe`: the model ids the endpoint's `/models` lists. */
export const endpointProbeResponseSchema = z.strictObject({ id: endpointIdSchema, models: z.array(z.string()) });
export type EndpointProbeResponse = z.infer<typeof endpointProbeResponseSchema>;
