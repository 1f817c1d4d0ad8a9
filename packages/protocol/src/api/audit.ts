/**
 * The watchdog's audit log, per session (`GET /sessions/:id/audit`): one row a tool call's
 * decision — tool, the command's name for `run_command` (no other argument), the policy verdict
 * and its rule, the mode, the approval, the outcome. Nothing of a call's arguments or output.
 */
import { z } from 'zod';
import { AUDIT_MAX_PAGE } from '../limits.js';
import { policyLayerSchema, policyVerdictSchema } from '../policy.js';

/** `host-asked`: the host's policy said `ask` for a command and the host put it to the person itself. */
export const auditApprovalSchema = z.enum(['not-asked', 'approved', 'denied', 'host-asked']);
export const auditOutcomeSchema = z.enum([
  'ran',
  'refused',
  'policy-denied',
  'policy-unapproved',
  'denied-by-user',
  'failed',
]);

export const auditEntrySchema = z.strictObject({
  id: z.number().int().positive(),
  run_id: z.string().nullable(),
  tool_call_id: z.string(),
  tool_name: z.string(),
  command_name: z.string().nullable(),
  mode: z.string().nullable(),
  verdict: policyVerdictSchema.nullable(),
  rule_id: z.string().nullable(),
  rule_layer: policyLayerSchema.nullable(),
  approval: auditApprovalSchema,
  outcome: auditOutcomeSchema,
  /** The refusal's code when written; a string because the audit row outlives the code list. */
  code: z.string().nullable(),
  created_at: z.string(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

/**
 * `GET /sessions/:id/audit?limit&cursor`: at most `limit` rows (AUDIT_MAX_PAGE when absent),
 * newest first; `cursor` is the previous page's `next` (the page holds older rows).
 */
export const auditPageQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(AUDIT_MAX_PAGE).optional(),
  cursor: z
    .string()
    .regex(/^[1-9]\d{0,14}$/)
    .optional(),
});
export type AuditPageQuery = z.infer<typeof auditPageQuerySchema>;

export const auditPageSchema = z.strictObject({
  /** Newest first. */
  entries: z.array(auditEntrySchema).max(AUDIT_MAX_PAGE),
  /** Pass as `cursor` for the older rows; null when this page reaches the session's first row. */
  next: z.string().nullable(),
});
export type AuditPage = z.infer<typeof auditPageSchema>;
