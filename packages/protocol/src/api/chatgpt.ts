/**
 * SEC-008 wire contracts of the ChatGPT subscription sign-in: the daemon's `/auth/chatgpt/*`
 * routes (called only by the host's own client, which proves itself with the per-spawn host key)
 * and the OAuth settings the host hands the sidecar in its bootstrap frame. The renderer never
 * sees any of these: it gets `ChatgptStatus` (host-ipc.ts) through host IPC.
 */
import { z } from 'zod';
import {
  CHANNEL_MAX_SECRET_CHARS,
  CHATGPT_MAX_AUTHORIZATION_URL_CHARS,
  CHATGPT_MAX_CLIENT_ID_CHARS,
  CHATGPT_MAX_CODE_CHARS,
  CHATGPT_MAX_ENDPOINT_URL_CHARS,
  CHATGPT_MAX_SCOPE_CHARS,
  CHATGPT_MAX_STATE_CHARS,
  SIDECAR_MIN_PASSWORD_CHARS,
} from '../limits.js';

/** The header carrying the per-spawn host key on `/auth/chatgpt/*`; the bridge never learns the key. */
export const CHATGPT_HOST_KEY_HEADER = 'x-bastion-host-key';

/** Exactly the two loopback callback addresses Bastion may register (`localhost`, port, fixed path). */
const redirectUri = z
  .string()
  .max(64)
  .regex(/^http:\/\/localhost:[1-9][0-9]{0,4}\/auth\/callback$/);
const attemptId = z
  .string()
  .min(32)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/);
const httpUrl = z
  .string()
  .min(1)
  .max(CHATGPT_MAX_ENDPOINT_URL_CHARS)
  .regex(/^https?:\/\//);

/** What the host tells the sidecar about the effective ChatGPT OAuth profile, per spawn. */
export const chatgptBootstrapSchema = z.strictObject({
  /** Per-spawn secret only the host's client knows; `/auth/chatgpt/*` refuse requests without it. */
  host_key: z.string().min(SIDECAR_MIN_PASSWORD_CHARS).max(CHANNEL_MAX_SECRET_CHARS),
  client_id: z
    .string()
    .min(1)
    .max(CHATGPT_MAX_CLIENT_ID_CHARS)
    .regex(/^[A-Za-z0-9_.-]+$/),
  issuer: httpUrl,
  authorization_endpoint: httpUrl,
  token_endpoint: httpUrl,
  responses_url: httpUrl,
  scope: z.string().min(1).max(CHATGPT_MAX_SCOPE_CHARS),
});
export type ChatgptBootstrap = z.infer<typeof chatgptBootstrapSchema>;

export const chatgptStartRequestSchema = z.strictObject({ redirect_uri: redirectUri });
export type ChatgptStartRequest = z.infer<typeof chatgptStartRequestSchema>;

export const chatgptStartResponseSchema = z.strictObject({
  attempt_id: attemptId,
  authorization_url: z.string().min(1).max(CHATGPT_MAX_AUTHORIZATION_URL_CHARS),
});
export type ChatgptStartResponse = z.infer<typeof chatgptStartResponseSchema>;

export const chatgptCompleteRequestSchema = z.strictObject({
  attempt_id: attemptId,
  code: z.string().min(1).max(CHATGPT_MAX_CODE_CHARS),
  state: z.string().min(1).max(CHATGPT_MAX_STATE_CHARS),
});
export type ChatgptCompleteRequest = z.infer<typeof chatgptCompleteRequestSchema>;

export const chatgptCancelRequestSchema = z.strictObject({ attempt_id: attemptId.optional() });
export type ChatgptCancelRequest = z.infer<typeof chatgptCancelRequestSchema>;
