import { z } from 'zod';
import { CHANNEL_MAX_ID_CHARS } from '../limits.js';

/** An id on the channel (a frame's, a request's, a session or run a sidecar names): short and URL-safe. */
export const channelIdSchema = z
  .string()
  .min(1)
  .max(CHANNEL_MAX_ID_CHARS)
  .regex(/^[A-Za-z0-9_-]+$/);
