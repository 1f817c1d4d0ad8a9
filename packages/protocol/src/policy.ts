/**
 * The watchdog's policy rules as data (host-owned `<userData>/host/policy.json`, never read from a
 * workspace). A rule matches a tool call by tool name, by command name and exact argument tokens
 * (no shell parsing), and by path globs relative to the workspace root; its decision can only
 * narrow what the session's mode allows: `deny` and `hard-deny` refuse, `ask` needs a person,
 * `allow` answers the mode's own approval prompt in advance (it never passes a structural gate,
 * a protected path or the sandbox). `hard-deny` holds against every other rule, approval and mode.
 */
import { z } from 'zod';
import { alwaysAllowRule } from './always-allow-rule.js';
import { HOST_ASK_CHANNELS, HOST_ASK_RESULTS } from './host-ask-words.js';
import { channelIdSchema } from './channel/channel-id.js';
import {
  COMMAND_MAX_ARG_BYTES,
  COMMAND_MAX_ARGS,
  COMMAND_MAX_PATH_CHARS,
  HOST_ASK_MAX_PENDING,
  HOST_AUDIT_MAX_PAGE,
  POLICY_MAX_ARG_SET_TOKENS,
  POLICY_MAX_ARG_SETS,
  POLICY_MAX_CHECK_PATHS,
  POLICY_MAX_GLOB_CHARS,
  POLICY_MAX_GLOBS,
  POLICY_MAX_PREFIX_TOKENS,
  POLICY_MAX_PROJECTS,
  POLICY_MAX_REASON_CHARS,
  POLICY_MAX_RULE_ID_CHARS,
  POLICY_MAX_RULES_PER_LAYER,
  POLICY_MAX_TOKEN_CHARS,
  POLICY_MAX_TOOL_NAME_CHARS,
  POLICY_MAX_TOOLS,
  TOOL_DIFF_MAX_CHARS,
} from './limits.js';

export const policyDecisionSchema = z.enum(['allow', 'ask', 'deny', 'hard-deny']);
export type PolicyDecision = z.infer<typeof policyDecisionSchema>;

/** What the host answers for one call: `none` when no rule matched (the mode alone decides). */
export const policyVerdictSchema = z.enum(['none', 'allow', 'ask', 'deny', 'hard-deny']);
export type PolicyVerdict = z.infer<typeof policyVerdictSchema>;

/** Where a rule lives; evaluation order is project, then global, then built-in. */
export const policyLayerSchema = z.enum(['project', 'global', 'builtin']);
export type PolicyLayer = z.infer<typeof policyLayerSchema>;

export const policyRuleIdSchema = z
  .string()
  .min(1)
  .max(POLICY_MAX_RULE_ID_CHARS)
  .regex(/^[a-z0-9][a-z0-9._-]*$/, 'a rule id is lower-case letters, digits, ".", "_" and "-"');
export const policyToolNameSchema = z
  .string()
  .min(1)
  .max(POLICY_MAX_TOOL_NAME_CHARS)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/, 'a tool name is letters, digits, "_", ".", ":" and "-"');
const token = z
  .string()
  .min(1)
  .max(POLICY_MAX_TOKEN_CHARS)
  .regex(/^[^\0]*$/, 'a token holds no NUL byte');
const glob = z
  .string()
  .min(1)
  .max(POLICY_MAX_GLOB_CHARS)
  .regex(/^[^\0]*$/);

const policyRuleShape = {
  decision: policyDecisionSchema,
  /** Tool names the rule applies to; absent: every tool (narrowed by the other matchers). */
  tools: z.array(policyToolNameSchema).min(1).max(POLICY_MAX_TOOLS).optional(),
  /** `run_command` only: the program, compared with the call's command and with its last path segment. */
  command: token.optional(),
  /** `run_command` only: the call's first arguments are exactly these tokens. */
  argv_prefix: z.array(token).min(1).max(POLICY_MAX_PREFIX_TOKENS).optional(),
  /**
   * `run_command` only: for every set, some argument is one of its tokens. A `*` in a token
   * stands for any run of characters (`/` included); every other character matches exactly.
   */
  args_include: z
    .array(z.array(token).min(1).max(POLICY_MAX_ARG_SET_TOKENS))
    .min(1)
    .max(POLICY_MAX_ARG_SETS)
    .optional(),
  /**
   * Globs (picomatch, relative to the workspace root, `.` for the root itself): a file tool's path,
   * or for `run_command` any argument that resolves against the working directory inside the root.
   */
  paths: z.array(glob).min(1).max(POLICY_MAX_GLOBS).optional(),
  /** `run_command` only: some argument resolves to the workspace root itself or a directory above it. */
  targets_workspace_root: z.literal(true).optional(),
  /** Shown to the model and the user when the rule denies or asks. */
  reason: z.string().min(1).max(POLICY_MAX_REASON_CHARS).optional(),
};

type RuleMatchers = { [K in keyof typeof policyRuleShape]?: unknown };
const hasMatcher = (rule: RuleMatchers): boolean =>
  rule.tools !== undefined ||
  rule.command !== undefined ||
  rule.argv_prefix !== undefined ||
  rule.args_include !== undefined ||
  rule.paths !== undefined ||
  rule.targets_workspace_root !== undefined;
const TOO_BROAD =
  'a rule needs at least one matcher (tools, command, argv_prefix, args_include, paths or targets_workspace_root); one that matches every call is too broad';

/** A rule as a user writes it: the id is the host's to choose when absent. */
export const policyRuleDraftSchema = z
  .strictObject({ id: policyRuleIdSchema.optional(), ...policyRuleShape })
  .refine(hasMatcher, TOO_BROAD);
export type PolicyRuleDraft = z.infer<typeof policyRuleDraftSchema>;

export const policyRuleSchema = z
  .strictObject({ id: policyRuleIdSchema, ...policyRuleShape })
  .refine(hasMatcher, TOO_BROAD);
export type PolicyRule = z.infer<typeof policyRuleSchema>;

const ruleLayer = z
  .array(policyRuleSchema)
  .max(POLICY_MAX_RULES_PER_LAYER)
  .refine((rules) => new Set(rules.map((rule) => rule.id)).size === rules.length, 'rule ids repeat in one layer');

const projectRoot = z.string().min(1).max(COMMAND_MAX_PATH_CHARS).startsWith('/');

/** `<userData>/host/policy.json`: global rules and per-project rules keyed by the workspace's real path. */
export const policyFileSchema = z.strictObject({
  version: z.literal(1),
  global: ruleLayer,
  projects: z
    .record(projectRoot, ruleLayer)
    .refine((projects) => Object.keys(projects).length <= POLICY_MAX_PROJECTS, 'too many projects'),
});
export type PolicyFile = z.infer<typeof policyFileSchema>;

/** The rules that apply to one project, for `bastion policy list` and the settings panel. */
export const policyListingSchema = z.strictObject({
  builtin: z.array(policyRuleSchema),
  global: z.array(policyRuleSchema),
  project: z.strictObject({ root: projectRoot, rules: z.array(policyRuleSchema) }).nullable(),
});
export type PolicyListing = z.infer<typeof policyListingSchema>;

/** `run_command` as the host will run it: the program, its arguments and the real working directory. */
const policyCommandSchema = z.strictObject({
  name: z.string().min(1).max(COMMAND_MAX_PATH_CHARS),
  args: z.array(z.string().max(COMMAND_MAX_ARG_BYTES)).max(COMMAND_MAX_ARGS),
  cwd: projectRoot,
});
/** File tools: the resolved absolute paths the call touches. */
const policyPathsSchema = z.array(projectRoot).max(POLICY_MAX_CHECK_PATHS);

/** One tool call as the policy sees it (the `policy.check` frame carries the same fields). */
export const policyCallSchema = z.strictObject({
  tool: policyToolNameSchema,
  /** The session's workspace root (real path); null when the session has none. */
  workspace_root: projectRoot.nullable(),
  command: policyCommandSchema.optional(),
  paths: policyPathsSchema.optional(),
});
export type PolicyCall = z.infer<typeof policyCallSchema>;

/** The host's answer for one call: the verdict and the rule that decided it. */
export const policyAnswerSchema = z.strictObject({
  verdict: policyVerdictSchema,
  rule_id: policyRuleIdSchema.optional(),
  layer: policyLayerSchema.optional(),
  reason: z.string().max(POLICY_MAX_REASON_CHARS).optional(),
});
export type PolicyAnswer = z.infer<typeof policyAnswerSchema>;

/**
 * Where the host gave an answer: to a sidecar's `policy.check` before a tool call (`check`), to
 * its own command executor on a `run_command` it was about to run (`command`, the one it
 * enforces), to its own workspace writes on a file write or removal it was about to perform
 * (`write`, enforced the same way), or to its own MCP client on a server's tool it was about to
 * call (`mcp`, enforced the same way).
 */
export const hostAuditStageSchema = z.enum(['check', 'command', 'write', 'mcp']);
export type HostAuditStage = z.infer<typeof hostAuditStageSchema>;

/** How a host question ended (host-ask-words.ts says each end). */
export const hostAskResultSchema = z.enum(HOST_ASK_RESULTS);

/**
 * A host question's end, as the host saw it (the answer reaches the host from its own terminal or
 * the desktop page through host IPC, never through the sidecar): where the person answered, and
 * the rule "always allow" saved.
 */
export const hostAuditAnswerSchema = z.strictObject({
  result: hostAskResultSchema,
  channel: z.enum(HOST_ASK_CHANNELS).optional(),
  saved_rule_id: policyRuleIdSchema.optional(),
});
export type HostAuditAnswer = z.infer<typeof hostAuditAnswerSchema>;

/**
 * One line of the host's own audit log (`<userData>/host/audit.jsonl`): no argument content
 * beyond the command's program name. `stage` is absent in lines written before it was recorded.
 * A line with `answer` is not a policy answer but the end of the host's question about the call
 * its stage's line just before asked about (verdict `ask`, the same rule).
 */
export const hostAuditEntrySchema = z.strictObject({
  at: z.iso.datetime(),
  tool: policyToolNameSchema,
  command: z.string().min(1).max(COMMAND_MAX_PATH_CHARS).nullable(),
  verdict: policyVerdictSchema,
  rule_id: policyRuleIdSchema.nullable(),
  stage: hostAuditStageSchema.optional(),
  /** The session and run the sidecar said the call was part of: its word, not the host's (absent: it named none). */
  session_id: channelIdSchema.optional(),
  run_id: channelIdSchema.optional(),
  answer: hostAuditAnswerSchema.optional(),
});
export type HostAuditEntry = z.infer<typeof hostAuditEntrySchema>;

/**
 * A page of the host's audit log, newest first. `next` is the cursor of the older page (`before`
 * in the next request; null at the start of the log); `unreadable` counts lines in the whole log
 * that did not pass the schema (skipped, never shown half-read).
 */
export const hostAuditPageSchema = z.strictObject({
  entries: z.array(hostAuditEntrySchema).max(HOST_AUDIT_MAX_PAGE),
  next: z.number().int().nonnegative().nullable(),
  unreadable: z.number().int().nonnegative(),
});
export type HostAuditPage = z.infer<typeof hostAuditPageSchema>;

/**
 * What the page asks of the host's log: `limit` decisions (newest first) older than `before`,
 * only those the sidecar reported for `session_id` when it is given.
 */
export const hostAuditQuerySchema = z.strictObject({
  session_id: channelIdSchema.optional(),
  before: z.number().int().nonnegative().optional(),
  limit: z.number().int().min(1).max(HOST_AUDIT_MAX_PAGE).optional(),
});
export type HostAuditQuery = z.infer<typeof hostAuditQuerySchema>;

/**
 * A tool call the host holds because its policy says `ask`: the host puts it to the person itself
 * (its terminal, or the desktop page through host IPC), never through the sidecar. What it acts
 * on is described as the policy saw it — `run_command`'s command, arguments and directory as the
 * host will run them, a file tool's resolved paths; `session_id` is the sidecar's word.
 * `always_allow` is the rule "Always allow" would save for `workspace_root`'s project, made by
 * the host from this call, and offered only when saving it would stop this call being asked
 * (absent when no rule can pin the call exactly, or a rule of the project itself asks: an `ask`
 * beats an `allow` in one layer). `diff`: for a file write, the host's own diff of the bytes it
 * holds against the file as it is when it asks (held credentials cut), never the sidecar's.
 */
export const hostAskSchema = z.strictObject({
  id: channelIdSchema,
  tool: policyToolNameSchema,
  workspace_root: projectRoot,
  command: policyCommandSchema.optional(),
  paths: policyPathsSchema.optional(),
  rule_id: policyRuleIdSchema.optional(),
  reason: z.string().max(POLICY_MAX_REASON_CHARS).optional(),
  session_id: channelIdSchema.optional(),
  asked_at: z.iso.datetime(),
  always_allow: policyRuleDraftSchema.optional(),
  diff: z.string().max(TOOL_DIFF_MAX_CHARS).optional(),
});
export type HostAsk = z.infer<typeof hostAskSchema>;

/** The calls held for an answer now; `revision` grows with every change (the page waits for a newer one). */
export const hostAskListSchema = z.strictObject({
  revision: z.number().int().nonnegative(),
  asks: z.array(hostAskSchema).max(HOST_ASK_MAX_PENDING),
});
export type HostAskList = z.infer<typeof hostAskListSchema>;

/** The person's answer to a held call: once, no, or once and from now on in this project (its `always_allow` rule saved first). */
export const hostAskAnswerSchema = z.enum(['allow', 'deny', 'always-allow']);
export type HostAskAnswer = z.infer<typeof hostAskAnswerSchema>;

/**
 * The rule "Always allow" saves for an approval (alwaysAllowRule), checked against the rule
 * schema: undefined for other tools, or an input no rule can express (an empty argument, more
 * arguments than a rule holds); the UI and the CLI show it before saving, for the project only.
 */
export function alwaysAllowDraft(toolName: string, input: unknown): PolicyRuleDraft | undefined {
  const rule = alwaysAllowRule(toolName, input);
  if (rule === undefined) return undefined;
  const draft = policyRuleDraftSchema.safeParse(rule);
  return draft.success ? draft.data : undefined;
}
