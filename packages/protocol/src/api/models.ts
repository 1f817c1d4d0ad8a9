/**
 * Daemon HTTP DTOs of `/models`: every model a session can use right now, grouped by provider,
 * and the default new sessions start with. A provider with a key is listed, the key never is.
 */
import { z } from 'zod';
import { ENDPOINTS_MAX_URL_CHARS, MODEL_LABEL_MAX_CHARS } from '../limits.js';
import { wireErrorCodeSchema } from '../wire-error-schema.js';
import { modelIdSchema, providerIdSchema } from './sessions.js';

export const modelRefSchema = z.strictObject({ provider: providerIdSchema, model: modelIdSchema });
export type ModelRef = z.infer<typeof modelRefSchema>;

export const modelOptionSchema = z.strictObject({
  id: modelIdSchema,
  label: z.string().max(MODEL_LABEL_MAX_CHARS),
  /** Tokens; absent when the provider does not say (custom endpoints). */
  context_window: z.number().int().positive().optional(),
  /** A session on it can choose its reasoning effort (`reasoning_effort`). */
  reasoning: z.literal(true).optional(),
  /** A message to it can carry images (`POST /agent/run`'s `images`). */
  images: z.literal(true).optional(),
});
export type ModelOption = z.infer<typeof modelOptionSchema>;

export const modelGroupSchema = z.strictObject({
  provider: providerIdSchema,
  label: z.string().max(MODEL_LABEL_MAX_CHARS),
  kind: z.enum(['demo', 'api-key', 'subscription', 'endpoint']),
  /** False while the provider cannot run (an endpoint not approved in this run, its listing failing). */
  available: z.boolean(),
  /** Why it is not available, as a stable code. */
  code: wireErrorCodeSchema.optional(),
  /** An endpoint's base URL (kind `endpoint`): what `run --endpoint` takes to use it. */
  base_url: z.string().min(1).max(ENDPOINTS_MAX_URL_CHARS).optional(),
  models: z.array(modelOptionSchema),
});
export type ModelGroup = z.infer<typeof modelGroupSchema>;

export const modelListResponseSchema = z.strictObject({
  groups: z.array(modelGroupSchema),
  /** What a new session uses unless it asks for another. */
  default: modelRefSchema,
});
export type ModelListResponse = z.infer<typeof modelListResponseSchema>;

/** `POST /models/default`: the default new sessions start with, as stored. */
export const defaultModelResponseSchema = z.strictObject({ default: modelRefSchema });
