/**
 * SEC (agent shell execution): the `run_command` tool. The supervised gate is the AI SDK's native
 * `needsApproval`, decided from the session's mode at call time: `auto` runs everything (informed
 * consent, recorded on the session), `accept-edits` runs read-only inspection commands
 * (isReadOnlyCommand) and asks for anything else, `read-only` runs those and refuses the rest. The answer to an approval is validated by the
 * store, not here; this tool only runs an already-cleared call. In every mode the structural gates
 * of validate.ts run first, and the host re-validates and applies the per-command kernel profile.
 *
 * What it does not catch: intent. `auto` runs whatever the model asks within the sandbox's bounds.
 */
import { tool } from '../tools/tool.js';
import {
  COMMAND_DEFAULT_TIMEOUT_MS,
  COMMAND_MAX_TIMEOUT_MS,
  runCommandInputSchema,
  type Logger,
} from '@bastion/protocol';
import type { ToolFactory } from '../agent/run-manager.js';
import type { ToolContext } from '../tools/tool-context.js';
import type { CommandClient } from './command-client.js';
import { isReadOnlyCommand } from './read-only-command.js';
import { shellRefusal } from './shell-error.js';
import { validateShellRequest, type ShellRequestInput } from './validate.js';
import { withHostAsks, withPolicySubject, type PolicySubject } from '../policy/tool-guard.js';

export const RUN_COMMAND_TOOL_NAME = 'run_command';

export interface ShellBinding {
  client: CommandClient;
  /** The host's userData, from the bootstrap frame. */
  userData: string;
  log: Logger;
}

function validationContext(context: ToolContext, shell: ShellBinding) {
  return {
    userData: shell.userData,
    grantedRoots: context.roots.list().map((workspace) => workspace.root),
    workspaceRoot: context.workspace,
    sessionId: context.sessionId,
  };
}

/** Whether this call must wait for a human, from the session's mode as it is now. Unknown mode: ask. */
export function runCommandNeedsApproval(context: ToolContext, shell: ShellBinding, input: ShellRequestInput): boolean {
  const mode = context.store.sessions.currentMode(context.sessionId);
  // A call the structural gates refuse never runs, so there is nothing to approve: let it fail.
  if (!validateShellRequest(input, validationContext(context, shell)).ok) return false;
  if (mode === 'auto') return false;
  if (mode === 'accept-edits') return !isReadOnlyCommand(input.command, input.args);
  // read-only runs the read-only set and refuses the rest in execute: nothing to ask
  if (mode === 'read-only') return false;
  return true;
}

/** The call as the host will run it, for the policy: program, arguments and the real working directory. */
function describeForPolicy(context: ToolContext, shell: ShellBinding, input: unknown): PolicySubject {
  const parsed = runCommandInputSchema.safeParse(input);
  if (!parsed.success) return {};
  const checked = validateShellRequest(parsed.data, validationContext(context, shell));
  return checked.ok ? { command: { name: checked.command, args: checked.args, cwd: checked.cwd } } : {};
}

export function createRunCommandTool(context: ToolContext, shell: ShellBinding) {
  const runCommand = tool({
    description:
      'Run one program in the workspace, without a shell, inside a sandbox with no network. ' +
      'In accept-edits mode anything but read-only inspection (ls, cat, grep, git status …) asks the user first.',
    inputSchema: runCommandInputSchema,
    needsApproval: (input) => runCommandNeedsApproval(context, shell, input),
    execute: async (input, { abortSignal, toolCallId }) => {
      const checked = validateShellRequest(input, validationContext(context, shell));
      if (!checked.ok) {
        shell.log.info('command.refused', { session_id: context.sessionId, code: checked.code });
        return checked;
      }
      const mode = context.store.sessions.currentMode(context.sessionId);
      if (mode === undefined) return shellRefusal('SHELL_UNAVAILABLE', 'the session no longer exists');
      if (mode === 'read-only' && !isReadOnlyCommand(checked.command, checked.args)) {
        shell.log.info('command.refused', { session_id: context.sessionId, code: 'MODE_READ_ONLY' });
        return shellRefusal('MODE_READ_ONLY', 'the session is read-only: only inspection commands run');
      }
      const output = await context.commandOutput?.(toolCallId);
      try {
        return await shell.client.run(
          {
            command: checked.command,
            args: checked.args,
            cwd: checked.cwd,
            workspaceRoot: checked.workspaceRoot,
            scratchDir: checked.scratchDir,
            timeoutMs: Math.min(input.timeout_ms ?? COMMAND_DEFAULT_TIMEOUT_MS, COMMAND_MAX_TIMEOUT_MS),
            sessionId: context.sessionId,
            runId: context.runId,
          },
          abortSignal,
          output && ((stream, bytes) => output.push(stream, bytes)),
        );
      } finally {
        // What is still held goes out before the result does.
        output?.end();
      }
    },
  });
  return withHostAsks(withPolicySubject(runCommand, (input) => describeForPolicy(context, shell, input)));
}

/** The session tools of a shell-capable posture; main.ts registers this only when the host's capabilities say `shell: true`. */
export function runCommandTools(shell: ShellBinding): ToolFactory {
  return (context) => ({ [RUN_COMMAND_TOOL_NAME]: createRunCommandTool(context, shell) });
}
