/**
 * The watchdog hook before every tool call: each tool of a run is wrapped so that, before it can
 * ask for approval and again before it executes, the host's policy is asked about the call as it
 * will run (a file tool's resolved path, `run_command`'s command, arguments and real working
 * directory). The verdict can only narrow the mode: `deny`/`hard-deny` refuse without running,
 * `ask` turns into the AI SDK's approval prompt (denied where nobody can answer) — for a tool
 * marked `withHostAsks` (run_command, write_file, edit_file) the host asks the person itself instead — `allow`
 * answers the mode's own prompt in advance, `none` leaves the mode to decide. Tools added later
 * are wrapped the same way, by name, with their `path` input if they have one.
 *
 * What it does not catch: this code runs in the sidecar. A compromised sidecar can skip it for
 * the reads it executes itself; for `run_command` and every workspace write the host evaluates
 * the policy again on the request it performs (host/src/commands/command-executor.ts,
 * host/src/workspaces/workspace-writes.ts).
 */
import type { Tool, ToolSet } from 'ai';
import type { PolicyAnswer, PolicyCall } from '@bastion/protocol';
import type { ToolContext } from '../tools/tool-context.js';
import type { PolicyChecker } from './policy-client.js';
import { redactHeld, type HeldSecrets } from './redact-held.js';

/** What a tool tells the policy about one call: its command or the paths it touches. */
export type PolicySubject = Pick<PolicyCall, 'command' | 'paths'>;

/** Set on a tool that describes its own calls (run_command); others are described by their `path` input. */
export const POLICY_SUBJECT = Symbol('bastion.policy-subject');

type Describe = (input: unknown) => PolicySubject;

/**
 * Set on a tool whose `ask` verdicts the host puts to the person itself as it runs the call
 * (run_command: host/src/policy/host-asks.ts). The guard then shows no prompt of its own for
 * them, so the person is asked once, by the host, on a channel this process cannot reach.
 */
export const HOST_ASKS = Symbol('bastion.host-asks');

/** Mark a tool whose policy asks the host makes itself. */
export function withHostAsks<T extends object>(tool: T): T {
  return Object.assign(tool, { [HOST_ASKS]: true });
}

/** Attach `describe` to a tool so the guard asks the policy about the call as the tool will run it. */
export function withPolicySubject<T extends object>(tool: T, describe: Describe): T {
  return Object.assign(tool, { [POLICY_SUBJECT]: describe });
}

/** What the guard decided for one call, for the audit log. */
export interface ToolDecision {
  toolCallId: string;
  toolName: string;
  /** The program, for `run_command`; nothing else of a call's arguments is recorded. */
  commandName: string | null;
  answer: PolicyAnswer;
  approval: 'approved' | 'not-asked' | 'host-asked';
  outcome: 'ran' | 'refused' | 'policy-denied' | 'policy-unapproved' | 'failed';
  code: string | null;
}

export interface ToolGuardOptions {
  policy: PolicyChecker;
  /** Bastion's own credentials, redacted from every tool result. */
  heldSecrets: HeldSecrets;
  context: ToolContext;
  onDecision: (decision: ToolDecision) => void;
  /**
   * Calls nobody is asked about (an explorer's, explore-tool.ts): no approval is ever looked up
   * for them, so an approval recorded under a call id that happens to equal theirs counts for
   * nothing, and a rule that says `ask` refuses them.
   */
  asksNobody?: boolean;
  /** Called before a call the host will put to the person itself runs (a policy `ask` on a write). */
  onHostAsk?: (call: PendingCall) => Promise<void>;
}

/** A tool call that waits for a person's answer before it runs. */
export interface PendingCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

function isRefusal(output: unknown): output is { ok: false; code?: unknown } {
  return typeof output === 'object' && output !== null && (output as { ok?: unknown }).ok === false;
}

function describeByPath(context: ToolContext, input: unknown): PolicySubject {
  const path = (input as { path?: unknown } | null)?.path;
  if (typeof path !== 'string' || context.workspace === null) return {};
  try {
    return { paths: [context.roots.resolve(context.workspace, path).real] };
  } catch {
    // A path the containment check refuses: the tool refuses it too, with its own code.
    return { paths: [] };
  }
}

function guardTool(name: string, original: Tool, options: ToolGuardOptions): Tool {
  const { policy, context } = options;
  const describe: Describe =
    (original as { [POLICY_SUBJECT]?: Describe })[POLICY_SUBJECT] ?? ((input) => describeByPath(context, input));
  const ask = (input: unknown): Promise<PolicyAnswer> =>
    policy.check(
      { tool: name, workspace_root: context.workspace, ...describe(input) },
      { session_id: context.sessionId, run_id: context.runId },
    );
  const execute = original.execute;
  const hostAsks = HOST_ASKS in original;
  return {
    ...original,
    needsApproval: async (input, approvalOptions) => {
      const answer = await ask(input);
      // deny and hard-deny: no prompt; execute refuses (a call already approved is then denied by the SDK).
      if (answer.verdict === 'deny' || answer.verdict === 'hard-deny') return false;
      // The SDK asks again when it resumes with an answer, and drops the answer of a call that no
      // longer "needs" approval: a call that was asked (then "always allowed") keeps needing it.
      if (context.store.approvals.status(context.sessionId, approvalOptions.toolCallId) !== undefined) return true;
      if (answer.verdict === 'ask') return !hostAsks;
      if (answer.verdict === 'allow') return false;
      const own = original.needsApproval;
      return typeof own === 'function' ? own(input, approvalOptions) : (own ?? false);
    },
    ...(execute === undefined
      ? {}
      : {
          execute: async (input: unknown, executeOptions: Parameters<NonNullable<Tool['execute']>>[1]) => {
            const answer = await ask(input);
            const approved =
              options.asksNobody !== true &&
              context.store.approvals.status(context.sessionId, executeOptions.toolCallId) === 'approved';
            const record = (outcome: ToolDecision['outcome'], code: string | null) =>
              options.onDecision({
                toolCallId: executeOptions.toolCallId,
                toolName: name,
                commandName: describe(input).command?.name ?? null,
                answer,
                approval: approved ? 'approved' : hostAsks && answer.verdict === 'ask' ? 'host-asked' : 'not-asked',
                outcome,
                code,
              });
            if (answer.verdict === 'deny' || answer.verdict === 'hard-deny') {
              record('policy-denied', 'POLICY_DENIED');
              return {
                ok: false,
                code: 'POLICY_DENIED',
                message: `denied by the policy rule ${answer.rule_id ?? '(unnamed)'}${answer.reason ? `: ${answer.reason}` : ''}`,
              };
            }
            if (answer.verdict === 'ask' && !approved && !hostAsks) {
              record('policy-unapproved', 'POLICY_UNAPPROVED');
              return { ok: false, code: 'POLICY_UNAPPROVED', message: 'the policy asks for approval; none was given' };
            }
            if (hostAsks && answer.verdict === 'ask' && !approved)
              await options.onHostAsk?.({ toolCallId: executeOptions.toolCallId, toolName: name, input });
            try {
              const output = redactHeld<unknown>(await execute(input, executeOptions), await options.heldSecrets());
              if (isRefusal(output)) record('refused', typeof output.code === 'string' ? output.code : null);
              else record('ran', null);
              return output;
            } catch (error) {
              record('failed', 'TOOL_FAILED');
              throw error;
            }
          },
        }),
  };
}

/** Wrap every tool of a run with the policy hook. */
export function guardTools(tools: ToolSet, options: ToolGuardOptions): ToolSet {
  return Object.fromEntries(Object.entries(tools).map(([name, tool]) => [name, guardTool(name, tool, options)]));
}
