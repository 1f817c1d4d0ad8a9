/**
 * Daemon HTTP DTOs of `/secrets/has|set|delete`. A key goes in and never comes back: every answer
 * says only whether one is stored.
 */
import { z } from 'zod';
import { SECRETS_MAX_KEY_CHARS } from '../limits.js';
import { providerIdSchema } from './sessions.js';

/** Printable ASCII without spaces: every provider's key format, and nothing a header could split on. */
export const secretKeySchema = z
  .string()
  .min(1)
  .max(SECRETS_MAX_KEY_CHARS)
  .regex(/^[\x21-\x7e]+$/);

export const secretProviderRequestSchema = z.strictObject({ provider: providerIdSchema });
export type SecretProviderRequest = z.infer<typeof secretProviderRequestSchema>;
export const secretSetRequestSchema = z.strictObject({ provider: providerIdSchema, key: secretKeySchema });
export type SecretSetRequest = z.infer<typeof secretSetRequestSchema>;

/** `/secrets/has` and `/secrets/set`: whether a key is now stored for the provider. */
export const secretPresenceResponseSchema = z.strictObject({ provider: z.string(), present: z.boolean() });
export type SecretPresenceResponse = z.infer<typeof secretPresenceResponseSchema>;
export const secretSetResponseSchema = secretPresenceResponseSchema;
export const secretDeleteResponseSchema = z.strictObject({
  provider: z.string(),
  present: z.literal(false),
  deleted: z.boolean(),
});
export type SecretDeleteResponse = z.infer<typeof secretDeleteResponseSchema>;
