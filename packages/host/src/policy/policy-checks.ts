/**
 * The watchdog hook's host end: answers every `policy.check` a sidecar sends before a tool call
 * with the host's own verdict, from policy.json and the built-in rules. The sidecar asks before
 * each file tool (which it executes itself) and before each `run_command` (to know whether to
 * prompt); for `run_command` the command executor evaluates the policy again on the request it
 * will run, so a sidecar that skips or ignores this answer still gets nothing a rule denies.
 *
 * What it does not catch: a compromised sidecar running a file tool without asking, or against
 * the answer — it executes file tools in its own process (SECURITY.md, the watchdog).
 */
import type { Logger } from '@bastion/protocol';
import type { SidecarHandle } from '../supervisor/sidecar-supervisor.js';
import type { PolicyStore } from './policy-store.js';

export function attachPolicyChecks(sidecar: Pick<SidecarHandle, 'channel'>, policy: PolicyStore, log: Logger): void {
  sidecar.channel.on('policy.check', (frame) => {
    const { id, tool, workspace_root, command, paths, session_id, run_id } = frame;
    const answer = policy.evaluate(
      {
        tool,
        workspace_root,
        ...(command === undefined ? {} : { command }),
        ...(paths === undefined ? {} : { paths }),
      },
      { stage: 'check', session_id, run_id },
    );
    if (answer.verdict !== 'none') {
      log.info('policy.decided', { tool, verdict: answer.verdict, rule_id: answer.rule_id ?? null });
    }
    if (!sidecar.channel.closed) sidecar.channel.send({ v: 1, type: 'policy.decision', id, ...answer });
  });
}
