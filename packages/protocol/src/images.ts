/** Images a user attaches to a message: how one travels in `POST /agent/run` and comes back. */
import { z } from 'zod';
import { IMAGE_MEDIA_TYPES } from './image-format.js';
import { IMAGE_NAME_MAX_CHARS } from './limits.js';

export const imageMediaTypeSchema = z.enum(IMAGE_MEDIA_TYPES);

/**
 * One attached image: its bytes in standard base64 and, for the transcript, the file name it had.
 * The route checks the size (IMAGE_TOO_LARGE), the encoding (IMAGE_INVALID) and the format
 * (IMAGE_TYPE_UNSUPPORTED), so each is refused in words rather than as a schema error.
 */
export const imageInputSchema = z.strictObject({
  data: z.string(),
  name: z.string().min(1).max(IMAGE_NAME_MAX_CHARS).optional(),
});
export type ImageInput = z.infer<typeof imageInputSchema>;

/** `GET /sessions/:id/images/:image_id`: a stored image, as it was attached. */
export const sessionImageResponseSchema = z.strictObject({
  media_type: imageMediaTypeSchema,
  data: z.string(),
});
export type SessionImageResponse = z.infer<typeof sessionImageResponseSchema>;
