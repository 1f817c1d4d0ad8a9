/**
 * `bastion policy list|add|remove|audit`: the watchdog's rules in `<home>/host/policy.json`, edited by the
 * host's own store (the same file, checks and atomic writes the running host uses; a running
 * Bastion applies the change to the next tool call). Project rules are keyed by the workspace's
 * real path; `--global` rules apply to every project. `audit` prints the host's decision log, with
 * how each question the host asked you itself ended (`--session`: only the decisions the sidecar
 * reported for that session — its word, said so).
 */
import {
  channelIdSchema,
  HOST_ASK_CHANNEL_WORDS,
  HOST_ASK_RESULT_WORDS,
  policyDecisionSchema,
  policyRuleDraftSchema,
  type PolicyListing,
  type PolicyRule,
  type PolicyRuleDraft,
} from '@bastion/protocol';
import {
  ensureUserData,
  HostAuditLog,
  PolicyStore,
  type HostAuditEntry,
  projectKey,
  resolveUserDataPath,
  type PolicyScope,
  quoteArgv,
  terminalJson,
  terminalLine,
} from '@bastion/host';
import { parseCommandLine, unknownNameError, UsageError, WORKSPACE_OPTIONS } from '../usage.js';
import { workspaceFolder } from '../workspace.js';

/** What a rule matches: its tools, program and arguments, paths. */
function ruleMatch(rule: PolicyRule | PolicyRuleDraft): string {
  const parts: string[] = [];
  if (rule.tools) parts.push(`tools=${rule.tools.join(',')}`);
  if (rule.command !== undefined) {
    parts.push(`argv="${quoteArgv([rule.command, ...(rule.argv_prefix ?? [])])}${rule.argv_prefix ? ' …' : ''}"`);
  } else if (rule.argv_prefix) parts.push(`args="${quoteArgv(rule.argv_prefix)} …"`);
  if (rule.args_include) parts.push(`with=${rule.args_include.map((set) => `{${set.join('|')}}`).join('+')}`);
  if (rule.paths) parts.push(`paths=${rule.paths.join(',')}`);
  if (rule.targets_workspace_root) parts.push('targets=workspace-root');
  return parts.join(' ');
}

/** One line a rule: its decision, what it matches and why. */
export function describeRule(rule: PolicyRule | PolicyRuleDraft): string {
  // A rule's words can come from an approved call (always allow): shown inert, never as terminal controls.
  return terminalLine(`${rule.decision.padEnd(9)} ${ruleMatch(rule)}${rule.reason ? `  — ${rule.reason}` : ''}`);
}

/**
 * One decision: when, the tool, the verdict and rule, the program, and the session the sidecar
 * named; a line that ends the host's own question says how (`asked you: approved once at the terminal`).
 */
function auditLine(entry: HostAuditEntry): string {
  const command = entry.command === null ? '' : `  (${entry.command})`;
  const stage = entry.stage === undefined ? '' : `  ${entry.stage}`;
  const session = entry.session_id === undefined ? '' : `  session=${entry.session_id} (sidecar's word)`;
  const { answer } = entry;
  const asked =
    answer === undefined
      ? ''
      : [
          `  asked you: ${HOST_ASK_RESULT_WORDS[answer.result]}`,
          answer.channel === undefined ? '' : ` ${HOST_ASK_CHANNEL_WORDS[answer.channel]}`,
          answer.saved_rule_id === undefined ? '' : ` (saved ${answer.saved_rule_id})`,
        ].join('');
  // The program's name is the sidecar's (a file the model named, refused or not): shown inert.
  return terminalLine(
    `${entry.at} ${entry.tool.padEnd(12)} ${entry.verdict.padEnd(9)} ${entry.rule_id ?? '-'}${command}${stage}${asked}${session}`,
  );
}

function printListing(listing: PolicyListing): void {
  const rows: [string, PolicyRule][] = [
    ...(listing.project?.rules.map((rule) => ['project', rule] as [string, PolicyRule]) ?? []),
    ...listing.global.map((rule) => ['global', rule] as [string, PolicyRule]),
    ...listing.builtin.map((rule) => ['builtin', rule] as [string, PolicyRule]),
  ];
  if (listing.project) process.stdout.write(`project: ${terminalLine(listing.project.root)}\n`);
  process.stdout.write('order: hard-deny anywhere wins, then project, then global, then built-in\n');
  // Two lines a rule, so why it is there reads at a glance: where it lives, its id, decision and
  // reason; then, indented, what it matches (a built-in's can run past any width).
  for (const [layer, rule] of rows) {
    const why = rule.reason ? ` ${terminalLine(rule.reason)}` : '';
    process.stdout.write(`${layer.padEnd(8)} ${terminalLine(rule.id).padEnd(40)} ${rule.decision.padEnd(9)}${why}\n`);
    process.stdout.write(`         matches ${terminalLine(ruleMatch(rule))}\n`);
  }
}

/** Synchronous underneath: the store's reads and writes are; main.ts awaits every command. */
export function policyCommand(argv: string[]): Promise<number> {
  return Promise.resolve(runPolicyCommand(argv));
}

function runPolicyCommand(argv: string[]): number {
  const { values, positionals } = parseCommandLine({
    args: argv,
    allowPositionals: true,
    options: {
      ...WORKSPACE_OPTIONS,
      global: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      tool: { type: 'string', multiple: true },
      path: { type: 'string', multiple: true },
      root: { type: 'boolean', default: false },
      reason: { type: 'string' },
      id: { type: 'string' },
      session: { type: 'string' },
    },
  });
  const [action, ...rest] = positionals;
  if (values.global && values.workspace !== undefined) throw new UsageError('give --workspace or --global, not both');
  // A folder that is not there is the same usage error as for every other command's --workspace.
  const root = values.global ? null : projectKey(workspaceFolder(values.workspace));
  const scope: PolicyScope = root === null ? { kind: 'global' } : { kind: 'project', root };
  // Opened only once the command line is known to be right, so a mistake touches nothing on disk.
  const open = () => new PolicyStore(ensureUserData(resolveUserDataPath(values.home)).path);

  if (action === 'audit' && rest.length === 0) {
    const session = values.session === undefined ? undefined : channelIdSchema.safeParse(values.session);
    if (session?.success === false) throw new UsageError('--session takes a session id (ses_…)');
    const audit = new HostAuditLog(ensureUserData(resolveUserDataPath(values.home)).path);
    const { entries, unreadable } = audit.records(session?.data);
    if (session !== undefined && !values.json) {
      process.stderr.write(
        `bastion: the decisions the sidecar reported for ${session.data} (the host cannot check which session a call was part of)\n`,
      );
    }
    for (const entry of entries) process.stdout.write(`${values.json ? terminalJson(entry) : auditLine(entry)}\n`);
    // Said on stderr, so stdout stays the records alone (one JSON object a line with --json).
    if (unreadable > 0) {
      process.stderr.write(`bastion: ${unreadable} unreadable line(s) of host/audit.jsonl skipped (torn or foreign)\n`);
    }
    if (entries.length === 0) process.stderr.write('bastion: no audit records\n');
    return 0;
  }
  if (action === 'list' && rest.length === 0) {
    const listing = open().listing(root);
    if (values.json) process.stdout.write(`${terminalJson(listing)}\n`);
    else printListing(listing);
    return 0;
  }
  if (action === 'add' && rest.length >= 1) {
    const [decisionText, command, ...prefix] = rest;
    const decision = policyDecisionSchema.safeParse(decisionText);
    if (!decision.success) throw new UsageError(`DECISION is one of ${policyDecisionSchema.options.join(', ')}`);
    const draft = policyRuleDraftSchema.safeParse({
      ...(values.id === undefined ? {} : { id: values.id }),
      decision: decision.data,
      ...(values.tool ? { tools: values.tool } : command !== undefined ? { tools: ['run_command'] } : {}),
      ...(command === undefined ? {} : { command }),
      ...(prefix.length > 0 ? { argv_prefix: prefix } : {}),
      ...(values.path ? { paths: values.path } : {}),
      ...(values.root ? { targets_workspace_root: true } : {}),
      ...(values.reason === undefined ? {} : { reason: values.reason }),
    });
    if (!draft.success) throw new UsageError(ruleIssueMessage(draft.error.issues[0]));
    const rule = open().add(scope, draft.data);
    process.stderr.write(
      `bastion: added ${rule.id} to ${root === null ? 'the global rules' : `the rules of ${terminalLine(root)}`}: ${describeRule(rule)}\n`,
    );
    return 0;
  }
  if (action === 'remove' && rest.length === 1 && rest[0] !== undefined) {
    if (!open().remove(scope, rest[0])) {
      const where = root === null ? 'the global rules' : `the rules of ${terminalLine(root)}`;
      process.stderr.write(
        `bastion: no rule ${terminalLine(rest[0])} in ${where}; nothing was removed (bastion policy list shows the rules' ids)\n`,
      );
      return 2;
    }
    process.stderr.write(`bastion: removed ${rest[0]}\n`);
    return 0;
  }
  throw misuseOf(action, rest);
}

type RuleIssue = NonNullable<ReturnType<typeof policyRuleDraftSchema.safeParse>['error']>['issues'][number];

/** Where on the command line each field of a rule draft comes from. */
const RULE_FIELD_WORDS: Readonly<Record<string, string>> = {
  id: '--id',
  tools: '--tool',
  paths: '--path',
  reason: '--reason',
  command: 'COMMAND',
  argv_prefix: 'ARG',
};

/**
 * Why `policy add` refuses its rule, naming the option or word it came from: the schema's own
 * message ("Too small: expected string to have >=1 characters") does not say which was wrong.
 */
function ruleIssueMessage(issue: RuleIssue | undefined): string {
  if (issue === undefined) return 'not a valid rule';
  const field = issue.path[0];
  const word = typeof field === 'string' ? RULE_FIELD_WORDS[field] : undefined;
  if (word === undefined) return issue.message;
  if (issue.code === 'too_small' && issue.origin === 'string')
    return `${word} needs a value (it was given an empty one)`;
  return `${word}: ${issue.message}`;
}

/** What is wrong with a policy command line no action above took: a known action's words, or the action. */
function misuseOf(action: string | undefined, rest: string[]): UsageError {
  if (action === undefined) return new UsageError('policy needs an action: list, add, remove or audit');
  if (action === 'add')
    return new UsageError(`policy add needs a DECISION: ${policyDecisionSchema.options.join(', ')}`);
  if (action === 'remove')
    return new UsageError(rest.length === 0 ? 'policy remove needs a rule ID' : 'policy remove takes one rule ID');
  if (action === 'list' || action === 'audit')
    return new UsageError(`policy ${action} takes options only, not ${rest.join(' ')}`);
  return unknownNameError('policy command', action, ['list', 'add', 'remove', 'audit'], { listKnown: true });
}
