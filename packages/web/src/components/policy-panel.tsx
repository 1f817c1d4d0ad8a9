import { useEffect, useState } from 'react';
import type { BastionApi, PolicyListing, PolicyRule, PolicyRuleDraft } from '@bastion/bridge';
import { quoteArgv } from '@bastion/protocol';
import { describeError, formText } from '../bastion.js';

type Layer = 'project' | 'global' | 'builtin';

/**
 * What a rule matches, in one line (the CLI's `bastion policy list` says the same); its command
 * and first arguments as shell words, as a prompt shows a command, so "Always allow" confirms
 * exactly the argv it saves.
 */
export function ruleMatchers(rule: PolicyRule | PolicyRuleDraft): string {
  const parts: string[] = [];
  if (rule.tools) parts.push(rule.tools.join(', '));
  if (rule.command !== undefined) parts.push(`${quoteArgv([rule.command, ...(rule.argv_prefix ?? [])])} …`);
  if (rule.args_include) parts.push(`with ${rule.args_include.map((set) => set.join(' | ')).join(' and ')}`);
  if (rule.paths) parts.push(`paths ${rule.paths.join(', ')}`);
  if (rule.targets_workspace_root) parts.push('on the workspace root');
  return parts.join(' · ');
}

/**
 * The watchdog's rules in Settings: the first workspace's project rules, the global ones and the
 * built-in ones, in the order they apply; add and remove go to the host (guarded host IPC), never
 * the daemon. Built-in rules are shown, not removable.
 */
export function PolicyPanel({ bastion }: { bastion: BastionApi }) {
  const [workspace, setWorkspace] = useState<string | null>(null);
  const [listing, setListing] = useState<PolicyListing>();
  const [error, setError] = useState<string>();

  const load = async (root: string | null) => {
    setListing(await bastion.policy.list(root));
    setError(undefined);
  };
  useEffect(() => {
    bastion.workspaces
      .list()
      .then(async ({ workspaces }) => {
        const root = workspaces[0]?.root ?? null;
        setWorkspace(root);
        await load(root);
      })
      .catch((failure: unknown) => setError(describeError(failure)));
  }, [bastion]);

  const act = (action: () => Promise<unknown>) =>
    action()
      .then(() => load(workspace))
      .catch((failure: unknown) => setError(describeError(failure)));

  const rows: [Layer, PolicyRule][] = listing
    ? [
        ...(listing.project?.rules.map((rule): [Layer, PolicyRule] => ['project', rule]) ?? []),
        ...listing.global.map((rule): [Layer, PolicyRule] => ['global', rule]),
        ...listing.builtin.map((rule): [Layer, PolicyRule] => ['builtin', rule]),
      ]
    : [];

  return (
    <section className="card" aria-labelledby="policy-title">
      <h2 id="policy-title">Policy rules</h2>
      <p className="muted">
        Checked by the host before every tool call. A rule can only narrow the mode: deny holds even in auto, ask
        prompts even in auto, hard-deny cannot be overridden. Project rules apply first, then global, then built-in.
        {workspace && (
          <>
            {' '}
            Project: <code>{workspace}</code>
          </>
        )}
      </p>
      {error && <p className="inline-error">{error}</p>}
      {listing && (
        <table className="policy-table">
          <thead>
            <tr>
              <th scope="col">Applies to</th>
              <th scope="col">Decision</th>
              <th scope="col">Matches</th>
              <th scope="col">Reason</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([layer, rule]) => (
              <tr key={`${layer}:${rule.id}`}>
                <td data-label="Applies to">{layer === 'project' ? 'this project' : layer}</td>
                <td data-label="Decision">
                  <span className={`badge decision-${rule.decision}`}>{rule.decision}</span>
                </td>
                <td data-label="Matches">
                  <code>{ruleMatchers(rule)}</code>
                </td>
                <td className="muted" data-label="Reason">
                  {rule.reason ?? ''}
                </td>
                <td>
                  {layer !== 'builtin' && (
                    <button
                      type="button"
                      aria-label={`Remove rule ${rule.id}`}
                      onClick={() =>
                        void act(() => bastion.policy.remove(layer === 'project' ? workspace : null, rule.id))
                      }
                    >
                      Remove
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form
        // Remounted once the workspace is known, so the scope select starts on "this project".
        key={workspace ?? 'no-workspace'}
        className="policy-form"
        aria-label="Add a rule"
        onSubmit={(event) => {
          event.preventDefault();
          const form = event.currentTarget;
          const words = formText(form, 'command').split(/\s+/).filter(Boolean);
          const [command, ...prefix] = words;
          const path = formText(form, 'path');
          const reason = formText(form, 'reason');
          const rule: PolicyRuleDraft = {
            decision: formText(form, 'decision') as PolicyRuleDraft['decision'],
            ...(command === undefined ? {} : { tools: ['run_command'], command }),
            ...(prefix.length > 0 ? { argv_prefix: prefix } : {}),
            ...(path === '' ? {} : { paths: [path] }),
            ...(reason === '' ? {} : { reason }),
          };
          const scope = formText(form, 'scope') === 'global' ? null : workspace;
          void act(() => bastion.policy.add(scope, rule)).then(() => form.reset());
        }}
      >
        <label>
          Decision
          <select name="decision" defaultValue="deny">
            <option value="deny">deny</option>
            <option value="ask">ask</option>
            <option value="allow">allow</option>
            <option value="hard-deny">hard-deny</option>
          </select>
        </label>
        <label>
          For
          <select name="scope" defaultValue={workspace ? 'project' : 'global'}>
            {workspace && <option value="project">this project</option>}
            <option value="global">every project</option>
          </select>
        </label>
        <label>
          Command and first arguments (exact words)
          <input name="command" placeholder="git push" />
        </label>
        <label>
          or a path glob (file tools and command arguments)
          <input name="path" placeholder="migrations/**" />
        </label>
        <label>
          Reason
          <input name="reason" maxLength={256} />
        </label>
        <button type="submit">Add rule</button>
      </form>
    </section>
  );
}
