/**
 * An id a client chooses at random for something of its own: a send (`POST /agent/run`'s
 * `client_id`), or the page that shows a session (`viewer`). Base64url, at least 96 bits, so no
 * two clients' ids meet by chance; the daemon only ever compares it within one session.
 */
import { z } from 'zod';
import { CLIENT_ID_MAX_CHARS, CLIENT_ID_MIN_CHARS } from '../limits.js';

export const clientIdSchema = z
  .string()
  .regex(new RegExp(`^[A-Za-z0-9_-]{${CLIENT_ID_MIN_CHARS},${CLIENT_ID_MAX_CHARS}}$`));
