/** Token usage DTO, shared by run events (`run-finished.usage`) and sessions (`GET /sessions/:id`). */
import { z } from 'zod';

/** Tokens one run (or a whole session) used, as the provider reported them. */
export const tokenUsageSchema = z.strictObject({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cached_input_tokens: z.number().int().nonnegative(),
  /** Estimated US dollars from list prices; absent when the model's price is unknown. */
  cost_usd: z.number().nonnegative().optional(),
});
export type TokenUsage = z.infer<typeof tokenUsageSchema>;
