import { useEffect, useState } from 'react';
import type { BastionApi, PolicyListing, PolicyRule, PolicyRuleDraft } from '@bastion/bridge';
import { quoteArgv } from '@bastion/protocol';
import { describeError, formText } from '../bastion.js';

type Layer = 'project' | 'global';

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

/** An argument pattern set of one plain word (no `*`): a word the command must have, shown in the headline. */
const plainWord = (set: readonly string[]): string | undefined =>
  set.length === 1 && set[0] !== undefined && !set[0].includes('*') ? set[0] : undefined;

/**
 * A rule in one readable line: the tools it is for, then what it looks for — a command with its
 * first words and the words it must have (`run_command: git … push …`), or path globs
 * (`write_file, edit_file: .github/workflows/**`). Argument sets of several patterns are left to
 * ruleConditions, which the row offers on expand.
 */
export function ruleHeadline(rule: PolicyRule): string {
  const target: string[] = [];
  if (rule.command !== undefined) {
    const words = (rule.args_include ?? []).flatMap((set) => plainWord(set) ?? []);
    target.push(
      [
        quoteArgv([rule.command, ...(rule.argv_prefix ?? [])]),
        ...words.map((word) => `… ${quoteArgv([word])}`),
        '…',
      ].join(' '),
    );
  }
  if (rule.paths) target.push(rule.paths.join(', '));
  if (rule.targets_workspace_root) target.push('on the workspace root');
  const tools = rule.tools?.join(', ') ?? 'any tool';
  return target.length === 0 ? tools : `${tools}: ${target.join(' ')}`;
}

/** Argument sets of several patterns, which the headline does not spell out. */
const patternSets = (rule: PolicyRule): string[][] =>
  (rule.args_include ?? []).filter((set) => plainWord(set) === undefined);

/** Every condition of a rule, one a line, as the host checks them (all must hold). */
export function ruleConditions(rule: PolicyRule): string[] {
  const lines = [rule.tools ? `the tool is ${rule.tools.join(' or ')}` : 'any tool'];
  if (rule.command !== undefined) lines.push(`the program is ${rule.command} (by name or path)`);
  if (rule.argv_prefix) lines.push(`its first arguments are exactly ${quoteArgv(rule.argv_prefix)}`);
  for (const set of rule.args_include ?? []) {
    lines.push(set.length === 1 ? `some argument is ${set.join('')}` : `some argument is one of ${set.join('  ')}`);
  }
  if (rule.paths) lines.push(`a path it touches matches ${rule.paths.join(' or ')}`);
  if (rule.targets_workspace_root) lines.push('some argument is the workspace root or a folder above it');
  return lines;
}

/** A rule in one readable line, saying how many argument conditions it leaves to the exact matcher. */
function RuleHeadline({ rule }: { rule: PolicyRule }) {
  const more = patternSets(rule).length;
  return (
    <>
      <code>{ruleHeadline(rule)}</code>
      {more > 0 && (
        <span className="muted">
          {' '}
          and {more} more argument {more === 1 ? 'condition' : 'conditions'}
        </span>
      )}
    </>
  );
}

/** A rule's id and every condition (the raw matcher), folded. */
function RuleMatcher({ rule }: { rule: PolicyRule }) {
  return (
    <details className="rule-matcher">
      <summary>Exact matcher</summary>
      <p className="muted">
        Rule <code>{rule.id}</code>; all of these must hold (<code>*</code> stands for any characters):
      </p>
      <ul>
        {ruleConditions(rule).map((line) => (
          <li key={line}>
            <code>{line}</code>
          </li>
        ))}
      </ul>
    </details>
  );
}

/**
 * The watchdog's rules in Settings: the first workspace's project rules and the global ones in a
 * table, in the order they apply, then the built-in ones folded below (shown, not removable), each
 * readable in one line with its exact matcher on expand; add and remove go to the host (guarded
 * host IPC), never the daemon.
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
      {listing && rows.length === 0 && (
        <p className="muted">No rules of your own yet: add one below, or choose “Always allow…” on an approval.</p>
      )}
      {listing && rows.length > 0 && (
        <table className="policy-table" aria-label="Your rules, in the order they apply">
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
                <td data-label="Applies to">{layer === 'project' ? 'this project' : 'every project'}</td>
                <td data-label="Decision">
                  <span className={`badge decision-${rule.decision}`}>{rule.decision}</span>
                </td>
                <td data-label="Matches">
                  <RuleHeadline rule={rule} />
                  <RuleMatcher rule={rule} />
                </td>
                <td className="muted" data-label="Reason">
                  {rule.reason ?? ''}
                </td>
                <td>
                  <button
                    type="button"
                    aria-label={`Remove rule ${rule.id}`}
                    onClick={() =>
                      void act(() => bastion.policy.remove(layer === 'project' ? workspace : null, rule.id))
                    }
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {listing && listing.builtin.length > 0 && (
        <details className="builtin-rules">
          <summary>Built-in rules ({listing.builtin.length}): shipped with Bastion, checked after yours</summary>
          <ul aria-label="Built-in rules">
            {listing.builtin.map((rule) => (
              <li key={rule.id}>
                <span className={`badge decision-${rule.decision}`}>{rule.decision}</span> <RuleHeadline rule={rule} />
                {rule.reason && <p className="muted">{rule.reason}</p>}
                <RuleMatcher rule={rule} />
              </li>
            ))}
          </ul>
        </details>
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
