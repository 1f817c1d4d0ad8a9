/**
 * `bastion run [--workspace DIR] [--home DIR] [--continue | --session ID] [--mode
 * read-only|accept-edits|auto] [--ask-before-writes] [--provider ID] [--model ID] [--image FILE]…
 * [--json] PROMPT`:
 * start the host and sidecar, create a session (or continue the workspace's newest, or the one
 * named), run one prompt (`-`: from standard input) and stream the assistant's text and tool
 * activity readably (each tool call summed up, each command with its exit code and first lines of
 * output, each edit's diff, retries, a changed-files and usage summary). Exit 0 on run-finished,
 * 1 on run-error or on a run-finished after a refusal runRefusal counts (said on the last line), 2
 * on a provider or model that does not exist (listed) or no session to continue.
 * Approval requests are asked on the TTY; without one they are denied, and the message says how
 * to allow them (a terminal, a `bastion policy add` rule, `--mode auto` where it would run it). A command the host's policy asks about is asked by the host, on the same TTY.
 * `--compact` (with `--continue` or `--session`) sends a compaction instead of a prompt. `--image`
 * files go with the prompt: each read and checked, and the model checked to take images, before a
 * session is made (exit 2 otherwise, image-attachment.ts).
 *
 * `bastion chat` takes the same options without a PROMPT and sends each line typed (or piped in)
 * to one session in turn; Ctrl-C stops the run going, at the prompt drops what is typed, and at an
 * empty prompt ends it. `/image PATH` attaches an image to the next prompt.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { setTimeout as delay } from 'node:timers/promises';
import {
  AGENT_MAX_IMAGES,
  AGENT_MAX_MESSAGE_CHARS,
  BYOK_PROVIDER_IDS,
  agentRewindResponseSchema,
  agentRunResponseSchema,
  CLI_APPROVAL_TYPE_AHEAD_DISCARD_MS,
  CLI_CHAT_HISTORY_LINES,
  CLI_HOST_ASK_DIFF_LINES,
  CLI_LIVE_OUTPUT_LINES,
  CLI_LIVE_PARTIAL_LINE_CHARS,
  CLI_MAX_OPEN_CALLS,
  INIT_INSTRUCTIONS_PROMPT,
  isToolFailureCode,
  eventPageResponseSchema,
  expandPrompt,
  promptCommand,
  promptListResponseSchema,
  sessionChangesResponseSchema,
  IMAGE_MAX_BYTES,
  sessionImageResponseSchema,
  sniffImageType,
  permissionModeSchema,
  reasoningEffortSchema,
  runCommandInputSchema,
  mcpPromptCommandName,
  modelListResponseSchema,
  modelRunsNow,
  offersModel,
  sessionSchema,
  splitMcpPromptLine,
  alwaysAllowDraft,
  type AgentEvent,
  type ApprovalAnswer,
  type RunContext,
  type TokenUsage,
  type WireErrorCode,
  type PolicyRule,
  type PolicyRuleDraft,
  type PermissionMode,
  type ReasoningEffort,
  type Session,
  type UpdateSessionRequest,
  type MessagePart,
  type ModelListResponse,
  type McpServerStatus,
  type WireError,
} from '@bastion/protocol';
import {
  quoteArgv,
  readAgentEvents,
  resolveUserDataPath,
  shellWord,
  terminalJson,
  terminalLine,
  terminalText,
  projectKey,
  newestSessionIn,
  workspaceRootOf,
  HostError,
  type BastionHost,
  type HostAskPrompt,
} from '@bastion/host';
import { outputClosed } from '../closed-output.js';
import {
  describeImage,
  imageFacts,
  imageInputs,
  readImageAttachment,
  readImageAttachments,
  tooManyImages,
  type AttachedImage,
} from '../image-attachment.js';
import { readTerminalPrompts } from '../terminal-prompt.js';
import { describeRule } from './policy.js';
import { listing, missingProviderReason, notOfferedReason, parseModelRef } from './models.js';
import { KEEP_FILES_HINT, refusalLines, rewindReport } from './undo.js';
import {
  ensureEndpointDefined,
  parseEndpointFlags,
  releaseEndpoint,
  type EndpointSettings,
} from '../endpoint-consent.js';
import { homeFlag, startOwningHost } from '../home-in-use.js';
import { signalExitCode, STOP_SIGNALS } from '../stop-signals.js';
import {
  commandOutputPreview,
  exploreAnswerPreview,
  moreLines,
  outputLine,
  planLines,
  toolResultSummary,
  toolSubject,
} from './tool-summary.js';
import { pipedLines, readPipedStdin } from '../piped-stdin.js';
import { checkedId, parseCommandLine, UsageError, WORKSPACE_OPTIONS } from '../usage.js';
import { closestName } from '../closest-name.js';
import { enterWorkspace } from '../workspace.js';
import { changesStat } from './changes.js';
import { listingText } from './mcp.js';
import { mcpPromptNames, withMcp } from './chat-mcp.js';

interface RunOptions {
  /** `--workspace DIR`, entered by enterWorkspace() once the data folder is resolved. */
  workspace: string | undefined;
  home: string | undefined;
  /** `--mode`: a new session's mode (default accept-edits); a continued session keeps its own unless given. */
  mode: PermissionMode | undefined;
  /** `--session ID` (that session) or `--continue` (the newest in the workspace): the prompt goes there. */
  resume: { session: string } | 'newest' | undefined;
  askBeforeWrites: boolean;
  provider: string | undefined;
  model: string | undefined;
  /** `--reasoning low|medium|high`: the session's reasoning effort (a model that takes none refuses it). */
  reasoning: ReasoningEffort | undefined;
  /**
   * `--endpoint URL`: an OpenAI-compatible endpoint consented to on this command line, defined for
   * the command under an id read from the URL (the URL as stored, once defined).
   */
  endpoint: string | undefined;
  /** `--context-window TOKENS` and `--endpoint-images`: the window `--endpoint`'s models have, and that they take images. */
  endpointSettings: EndpointSettings;
  json: boolean;
  /** `--compact`: the run summarises the continued session's older turns instead of taking a prompt. */
  compact: boolean;
  /** `--image FILE`…: files to read and send with the prompt (run only), as given. */
  imageFiles: string[];
  prompt: string;
}

/**
 * What to do when a provider answers 401 (the key or sign-in Bastion sent was not accepted, or
 * none was sent): where its credential is set; undefined for the demo, which takes none.
 */
export function unauthorizedHint(provider: string): string | undefined {
  if (provider === 'chatgpt')
    return 'ChatGPT did not accept the sign-in: connect the account again in the UI (Settings)';
  if (BYOK_PROVIDER_IDS.has(provider))
    return `the provider did not accept the API key: replace it with bastion secrets set ${provider}`;
  if (provider === 'demo') return undefined;
  return `the endpoint did not accept its key, or needs one: store it with bastion secrets set ${provider} (or in the UI: Settings → Custom endpoints), then run again`;
}

/** An approval the agent asks for. */
type ApprovalRequest = Extract<AgentEvent, { type: 'tool-approval-request' }>;

/** Why an approval is denied without a terminal: what the agent is told. */
export const NO_TERMINAL_DENIAL = 'denied: no terminal to ask for approval';

/**
 * The ways to let a call denied for want of a terminal through, a line each: be asked at a
 * terminal; for a command or an MCP tool, the project rule "always allow" would save (as a
 * `bastion policy add` line, `flags` the command line's --workspace and --home) and, outside
 * auto, --mode auto; for a write, why it was asked (--ask-before-writes, or an instruction file,
 * asked about in every mode).
 */
export function noTerminalRemedies(
  event: Pick<ApprovalRequest, 'tool_name' | 'input'>,
  session: Pick<Session, 'mode' | 'ask_before_writes'>,
  flags: string,
): string[] {
  const remedies = ['rerun at a terminal and answer y when asked'];
  const draft = alwaysAllowDraft(event.tool_name, event.input);
  if (draft !== undefined) {
    const target =
      draft.command === undefined
        ? (draft.tools ?? []).map((tool) => ` --tool ${shellWord(tool)}`).join('')
        : ` -- ${quoteArgv([draft.command, ...(draft.argv_prefix ?? [])])}`;
    remedies.push(`or allow it in this project from now on: bastion policy add allow${flags}${target}`);
  }
  const isWrite = event.tool_name === 'write_file' || event.tool_name === 'edit_file';
  if (isWrite && session.ask_before_writes)
    remedies.push(
      'this session asks before every write (--ask-before-writes); a session started without it writes unasked, but for AGENTS.md and CLAUDE.md',
    );
  else if (isWrite) remedies.push('a write to AGENTS.md or CLAUDE.md is asked about in every mode');
  else if (session.mode !== 'auto')
    remedies.push('or rerun with --mode auto, where commands and MCP tools run without asking (inside the sandbox)');
  else remedies.push(`in auto only a policy rule still asks (bastion policy list${flags} shows them)`);
  return remedies;
}

function parseRunArgs(argv: string[], command: 'run' | 'chat'): RunOptions {
  const { values, positionals } = parseCommandLine({
    args: argv,
    allowPositionals: true,
    options: {
      ...WORKSPACE_OPTIONS,
      mode: { type: 'string' },
      continue: { type: 'boolean', default: false },
      session: { type: 'string' },
      'ask-before-writes': { type: 'boolean', default: false },
      provider: { type: 'string' },
      model: { type: 'string' },
      reasoning: { type: 'string' },
      endpoint: { type: 'string' },
      'context-window': { type: 'string' },
      'endpoint-images': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      compact: { type: 'boolean', default: false },
      image: { type: 'string', multiple: true },
    },
  });
  const mode = permissionModeSchema.optional().safeParse(values.mode);
  if (!mode.success) throw new UsageError(`--mode must be one of ${permissionModeSchema.options.join(', ')}`);
  const reasoning = reasoningEffortSchema.optional().safeParse(values.reasoning);
  if (!reasoning.success)
    throw new UsageError(`--reasoning must be one of ${reasoningEffortSchema.options.join(', ')}`);
  if (values.continue && values.session !== undefined)
    throw new UsageError('--continue and --session cannot be combined');
  if (values.session !== undefined) checkedId('--session', values.session, 'session');
  const prompt = positionals.join(' ').trim();
  const imageFiles = values.image ?? [];
  // An empty path would name the current folder, refused as "a folder" rather than as missing.
  if (imageFiles.includes('')) throw new UsageError('--image needs a FILE (it was given an empty path)');
  if (command === 'chat') {
    if (prompt.length > 0) throw new UsageError('chat takes no PROMPT: type each prompt once it starts');
    if (values.compact) throw new UsageError('--compact is for bastion run');
    if (imageFiles.length > 0)
      throw new UsageError('--image is for bastion run; in chat, a line /image PATH attaches one to the next prompt');
  } else if (values.compact) {
    if (prompt.length > 0) throw new UsageError('--compact takes no PROMPT');
    if (imageFiles.length > 0) throw new UsageError('--image goes with a PROMPT, not --compact');
    if (!values.continue && values.session === undefined)
      throw new UsageError('--compact needs the session to compact: --continue or --session ID');
  } else if (prompt.length === 0 && process.stdin.isTTY)
    throw new UsageError('run needs a PROMPT (or - to read it from standard input)');
  if (imageFiles.length > AGENT_MAX_IMAGES) throw new UsageError(`--image: ${tooManyImages(imageFiles.length)}`);
  const endpoints = values.endpoint === undefined ? [] : [values.endpoint];
  const endpointSettings = parseEndpointFlags(
    '--endpoint',
    endpoints,
    values['context-window'],
    values['endpoint-images'] === true,
  );
  if (values.endpoint !== undefined) {
    if (values.model === undefined) throw new UsageError('--endpoint needs --model');
    if (values.provider !== undefined) throw new UsageError('--endpoint and --provider cannot be combined');
  }
  return {
    workspace: values.workspace,
    home: values.home,
    mode: mode.data,
    resume: values.session !== undefined ? { session: values.session } : values.continue ? 'newest' : undefined,
    askBeforeWrites: values['ask-before-writes'],
    provider: values.provider,
    model: values.model,
    reasoning: reasoning.data,
    endpoint: values.endpoint,
    endpointSettings,
    json: values.json,
    compact: values.compact,
    imageFiles,
    prompt,
  };
}

function failure(error: WireError): string {
  return terminalLine(`${error.code}: ${error.message}`);
}

/** A unified diff's lines, each made inert for the terminal (without the empty one after its last newline). */
function inertDiffLines(diff: string): string[] {
  return diff
    .split('\n')
    .filter((line, index, all) => line !== '' || index < all.length - 1)
    .map(terminalLine);
}

/**
 * What is being approved, every untrusted part made inert: for run_command the exact argv as shell
 * words (and the workdir and the agent's own description, labelled as such); for any other tool
 * its name and input as one line of JSON (a file tool's diff is printed before, as `[preview]`).
 */
export function describeApproval(event: ApprovalRequest): string[] {
  const command = event.tool_name === 'run_command' ? runCommandInputSchema.safeParse(event.input) : undefined;
  if (!command?.success) return [`${terminalLine(event.tool_name)} ${terminalLine(JSON.stringify(event.input) ?? '')}`];
  const { command: program, args, workdir, description } = command.data;
  return [
    `command: ${quoteArgv([program, ...args])}`,
    ...(workdir === undefined ? [] : [`in:      ${shellWord(workdir)}`]),
    ...(description === undefined ? [] : [`agent's note: ${terminalLine(description)}`]),
  ];
}

/**
 * Throw away keys typed before the prompt: an answer typed at a look-alike prompt in the model's
 * text waits in the terminal's input queue and would otherwise answer the real one. Throws an
 * AbortError when `signal` aborts first, the terminal given back as it was.
 */
async function discardTypeAhead(input: NodeJS.ReadStream, signal: AbortSignal | undefined): Promise<void> {
  const discard = () => undefined;
  input.setRawMode(true);
  input.on('data', discard);
  try {
    await delay(CLI_APPROVAL_TYPE_AHEAD_DISCARD_MS, undefined, { signal });
  } finally {
    input.off('data', discard);
    input.pause();
    input.setRawMode(false);
  }
}

/**
 * What a rule "always allow" would save lets through beyond the call asked about, in words the
 * person reads before the second yes (the page's confirmation says the same): a command rule
 * matches on its first arguments, so any arguments after them pass too — `touch a` allows
 * `touch a b`, and a rule for a bare program would allow it with any arguments at all.
 */
export function alwaysAllowScope(draft: PolicyRuleDraft): string {
  if (draft.command !== undefined) {
    return draft.argv_prefix === undefined
      ? 'any arguments at all are allowed: the rule names only the program'
      : 'any further arguments after these exact first ones are allowed too';
  }
  return draft.tools?.length === 1 ? 'every call of this tool is allowed, whatever its arguments' : '';
}

/** What "always allow" offers at a prompt: the rule, the project it is saved for, and how it is saved. */
interface AlwaysAllow {
  draft: PolicyRuleDraft;
  project: string;
  /** Saves the rule to the project's layer of the host's policy.json; throws a HostError when it cannot. */
  save: () => PolicyRule;
}

/**
 * Ask on the TTY (the caller checked there is one): yes, no, or `a` — show the project rule
 * "always allow" would save, then save it on a second yes (an answer of yes). A rule that cannot
 * be saved is said, and the answer is no. When `signal` aborts first (another client answered),
 * the question is taken off with what was typed of its answer, and this throws an AbortError.
 */
async function askOnTerminal(
  question: string,
  always: AlwaysAllow | undefined,
  json: boolean,
  signal?: AbortSignal,
): Promise<boolean> {
  await discardTypeAhead(process.stdin, signal);
  const output = json ? process.stderr : process.stdout;
  const prompt = createInterface({ input: process.stdin, output });
  try {
    const choices = always ? '[y/N] (or a: always allow this in this project) ' : '[y/N] ';
    const answer = (await prompt.question(`${question}Allow? ${choices}`, { signal })).trim();
    if (always && /^a(lways)?$/i.test(answer)) {
      const scope = alwaysAllowScope(always.draft);
      const shown =
        `  ${terminalLine(describeRule(always.draft))}\n  in ${terminalLine(always.project)}\n` +
        (scope === '' ? '' : `  (${scope})\n`);
      const save = await prompt.question(
        `\nThis rule would be saved to policy.json:\n${shown}Save it and allow? [y/N] `,
        { signal },
      );
      if (!/^y(es)?$/i.test(save.trim())) return false;
      let rule: PolicyRule;
      try {
        rule = always.save();
      } catch (error) {
        const why = error instanceof HostError ? `: ${terminalLine(`${error.code}: ${error.message}`)}` : '';
        process.stderr.write(`bastion: the rule was not saved${why}; not allowed\n`);
        return false;
      }
      process.stderr.write(`bastion: saved ${rule.id}; remove it with bastion policy remove ${rule.id}\n`);
      return true;
    }
    return /^y(es)?$/i.test(answer);
  } catch (error) {
    // Ctrl-C (readline's AbortError, the signal not aborted): what follows starts on a line of its own.
    if ((error as Error).name === 'AbortError' && signal?.aborted !== true) output.write('\n');
    throw error;
  } finally {
    prompt.close();
  }
}

/**
 * Ask on the TTY; without one, deny and say how it could be allowed (`flags`: the command line's
 * --workspace and --home). `signal`: the approval was answered elsewhere, the question is taken
 * off (an AbortError).
 */
async function askApproval(
  event: ApprovalRequest,
  { json, session, flags }: { json: boolean; session: Session; flags: string },
  host: BastionHost,
  signal: AbortSignal,
): Promise<ApprovalAnswer> {
  const base = { approval_id: event.approval_id, tool_call_id: event.tool_call_id };
  const description = describeApproval(event)
    .map((line) => `  ${line}\n`)
    .join('');
  if (!process.stdin.isTTY) {
    const remedies = noTerminalRemedies(event, session, flags)
      .map((line) => `bastion:   ${line}\n`)
      .join('');
    process.stderr.write(
      `bastion: approval needed:\n${description}bastion: ${NO_TERMINAL_DENIAL}. To allow it:\n${remedies}`,
    );
    return { ...base, approved: false, reason: NO_TERMINAL_DENIAL };
  }
  const draft = alwaysAllowDraft(event.tool_name, event.input);
  // runCommand entered the workspace, so the working directory is this run's project.
  const project = projectKey(process.cwd());
  const always = draft && {
    draft,
    project,
    save: () => host.policy.add({ kind: 'project', root: project }, draft),
  };
  const approved = await askOnTerminal(`\nThe agent asks to run:\n${description}`, always, json, signal);
  return approved ? { ...base, approved } : { ...base, approved, reason: 'denied by the user' };
}

/**
 * The host's diff of a write it asks about, inert as an edit's diff is printed: its first
 * CLI_HOST_ASK_DIFF_LINES lines, then how many more were left out.
 */
export function hostAskDiffLines(diff: string): string[] {
  const lines = inertDiffLines(diff);
  const shown = lines.slice(0, CLI_HOST_ASK_DIFF_LINES);
  const more = lines.length - shown.length;
  return more > 0 ? [...shown, `${moreLines(more)} of the diff left out`] : shown;
}

/**
 * The host's own terminal prompt for a call its policy says `ask` for (host host-asks.ts): what
 * the host will run exactly (a command as shell words and its directory, a file tool's paths),
 * the rule that asks, a write's diff (the host's own, of the bytes it holds, its credentials cut;
 * folded by hostAskDiffLines), and the same answers as an approval — "always allow" only when the
 * host offers a rule (made by the host from the call it holds, saved by the host). Given to the
 * host only when there is a terminal; the daemon never sees the answer.
 */
export function hostAskPrompt(json: boolean): HostAskPrompt {
  return (ask, _signal, saveAlwaysAllow) => {
    const subject = ask.command
      ? [`command: ${quoteArgv([ask.command.name, ...ask.command.args])}`, `in:      ${shellWord(ask.command.cwd)}`]
      : [`tool:    ${terminalLine(ask.tool)}`, ...(ask.paths ?? []).map((path) => `path:    ${shellWord(path)}`)];
    const diff =
      ask.diff === undefined
        ? []
        : [
            "diff:    the host's, of the bytes it will write (Bastion's credentials cut):",
            ...hostAskDiffLines(ask.diff).map((line) => `  ${line}`),
          ];
    const lines = [
      ...subject,
      `rule:    ${terminalLine(ask.rule_id ?? '(unnamed)')}${ask.reason === undefined ? '' : ` — ${terminalLine(ask.reason)}`}`,
      ...diff,
    ];
    const question = `\nBastion's policy asks before this runs:\n${lines.map((line) => `  ${line}\n`).join('')}`;
    const always = ask.always_allow && { draft: ask.always_allow, project: ask.workspace_root, save: saveAlwaysAllow };
    return askOnTerminal(question, always, json);
  };
}

/**
 * The codes of a call refused because nobody approved it: the agent's approval denied, or the
 * host's own question (a policy `ask`) not answered yes.
 */
const UNAPPROVED_CODES: ReadonlySet<string> = new Set<WireErrorCode>([
  'TOOL_DENIED',
  'COMMAND_POLICY_UNAPPROVED',
  'POLICY_UNAPPROVED',
  'MCP_POLICY_UNAPPROVED',
]);

/** Why a tool call was refused in a way that makes a finished `run` exit 1 (runRefusal). */
export type RunRefusal = 'unapproved' | 'read-only';

/**
 * Whether a call's result makes a `run` that finishes exit 1, and why: without a terminal to ask
 * (`asksHere` false), a call refused for want of an approval; in any run, a file write refused by
 * read-only mode, which no other call of that mode could have made instead. Not: a call the person
 * denied at this terminal (their answer), a command or MCP tool read-only mode refused (inspection
 * often gets there another way, and the agent's answer says whether it did), a rule's deny, or an
 * explorer's own call (a policy `ask` refuses those by design; the agent may make the call itself).
 */
export function runRefusal(
  event: Pick<
    Extract<AgentEvent, { type: 'tool-result' }>,
    'tool_name' | 'output' | 'is_error' | 'parent_tool_call_id'
  >,
  asksHere: boolean,
): RunRefusal | undefined {
  if (!event.is_error || event.parent_tool_call_id !== undefined) return undefined;
  const code = (event.output as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return undefined;
  if (!asksHere && UNAPPROVED_CODES.has(code)) return 'unapproved';
  const write = event.tool_name === 'write_file' || event.tool_name === 'edit_file';
  const readOnly: WireErrorCode = 'MODE_READ_ONLY';
  return write && code === readOnly ? 'read-only' : undefined;
}

/** `run`'s last line when it finished with calls refused (runRefusal), which is why it exits 1. */
export function refusedRunLine(refused: Readonly<Record<RunRefusal, number>>): string {
  const calls = (count: number, noun: string) => `${count} ${noun}${count === 1 ? ' was' : 's were'}`;
  const parts = [
    ...(refused.unapproved > 0
      ? [`${calls(refused.unapproved, 'tool call')} refused for want of an approval (no terminal to ask)`]
      : []),
    ...(refused['read-only'] > 0 ? [`${calls(refused['read-only'], 'file write')} refused by read-only mode`] : []),
  ];
  return `bastion: exit 1: the run finished, but ${parts.join(' and ')}\n`;
}

/** A tool call's error as the page's card says it: failed on what it met, or refused. */
const refusedOrFailed = (code: unknown) => (isToolFailureCode(code) ? 'failed' : 'refused');

/** What a tool call shows once finished (a run_command's argv and exit code, an edit's diff), or cut off by the run's end. */
interface ToolActivity {
  name: string;
  input: unknown;
}

/** The run's tokens and cost, and how full its last step left the model's context window. */
function formatUsage(usage: TokenUsage, context: RunContext | undefined): string {
  const cost = usage.cost_usd === undefined ? '' : ` · ~$${usage.cost_usd.toFixed(4)}`;
  const full =
    context === undefined
      ? ''
      : ` · context ${context.tokens} of ${context.window} (${Math.round((100 * context.tokens) / context.window)}%)`;
  return `tokens: ${usage.input_tokens} in (${usage.cached_input_tokens} cached) · ${usage.output_tokens} out${cost}${full}`;
}

/** The tokens and cost of two runs together (a cost only when both have one); either alone when the other is missing. */
export function sumUsage(earlier: TokenUsage | undefined, later: TokenUsage | undefined): TokenUsage | undefined {
  if (earlier === undefined || later === undefined) return later ?? earlier;
  const cost =
    earlier.cost_usd === undefined || later.cost_usd === undefined
      ? {}
      : { cost_usd: earlier.cost_usd + later.cost_usd };
  return {
    input_tokens: earlier.input_tokens + later.input_tokens,
    output_tokens: earlier.output_tokens + later.output_tokens,
    cached_input_tokens: earlier.cached_input_tokens + later.cached_input_tokens,
    ...cost,
  };
}

/**
 * Set `key` in `map`, forgetting the oldest entries past CLI_MAX_OPEN_CALLS: the sidecar names the
 * calls, and one that never ends them must not grow this process.
 */
export function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.set(key, value);
  for (const oldest of map.keys()) {
    if (map.size <= CLI_MAX_OPEN_CALLS) break;
    map.delete(oldest);
  }
}

/**
 * A running command's output `text` after its unfinished line `partial`: the lines it ends, and the
 * line left unfinished, cut to CLI_LIVE_PARTIAL_LINE_CHARS (only its start is ever printed), so
 * output without a newline, however long, keeps this process's memory bounded.
 */
export function liveLines(partial: string, text: string): { lines: string[]; partial: string } {
  const lines = (partial + text).split('\n');
  return { lines, partial: (lines.pop() ?? '').slice(0, CLI_LIVE_PARTIAL_LINE_CHARS) };
}

class TerminalPrinter {
  #midLine = false;
  /** Put before each line of the event being printed: an explorer's calls are indented. */
  #indent = '';
  readonly #calls = new Map<string, ToolActivity>();
  /** Paths written by this prompt's runs, in first-write order (chat's next prompt starts afresh). */
  readonly #changed = new Set<string>();
  /** The `update_plan` call going, and the input of the last one that succeeded (for chat's `/plan`). */
  #planCall: { id: string; input: unknown } | undefined;
  #plan: unknown;
  /** Commands whose output prints as it comes: lines printed, lines past the bound, the line not yet ended. */
  readonly #live = new Map<string, { printed: number; hidden: number; partial: string }>();
  /**
   * A prompt paused for approvals runs on as a new run after the answers, and the daemon reports
   * each run's tokens and the instruction files it read: the tokens of the prompt's runs so far
   * (printed once, summed, when the last one ends) and the files already printed for it.
   */
  #pausedUsage: TokenUsage | undefined;
  readonly #instructionsShown = new Set<string>();

  /**
   * `provider`: the session's, for what to do when it refuses the credential; `live`: print a
   * running command's output as it comes (at a terminal), rather than its first lines at its end;
   * `asksHere`: approvals are asked on this process's terminal (standard input is one).
   */
  constructor(
    readonly json: boolean,
    public provider: string,
    readonly live = false,
    readonly asksHere = false,
  ) {}

  /**
   * `images`: for a run-started, the image parts of the prompt it runs (as the daemon stored them:
   * id, type, size and name, never the bytes), printed a line each, or in `--json` as its `images`.
   */
  event(id: number, event: AgentEvent, images: readonly PromptImage[] = []): void {
    // An explorer's calls print under its explore call, indented.
    this.#indent =
      (event.type === 'tool-call' || event.type === 'tool-result') && event.parent_tool_call_id !== undefined
        ? '  '
        : '';
    if (event.type === 'tool-call' && event.tool_name === 'update_plan')
      this.#planCall = { id: event.tool_call_id, input: event.input };
    if (event.type === 'tool-result' && event.tool_call_id === this.#planCall?.id && !event.is_error)
      this.#plan = this.#planCall.input;
    if (this.json) {
      const stored = images.filter((image): image is ImagePart => 'image_id' in image);
      process.stdout.write(`${terminalJson({ id, ...event, ...(stored.length > 0 ? { images: stored } : {}) })}\n`);
      return;
    }
    for (const image of images)
      this.#line(`[image ${describeImage({ name: image.name, mediaType: image.media_type, bytes: image.bytes })}]`);
    switch (event.type) {
      case 'text-delta': {
        const text = terminalText(event.text);
        process.stdout.write(text);
        if (text !== '') this.#midLine = !text.endsWith('\n');
        break;
      }
      case 'tool-call':
        remember(this.#calls, event.tool_call_id, { name: event.tool_name, input: event.input });
        // A command is shown with its exit code, a plan once it is accepted: both when their result comes.
        if (event.tool_name === 'run_command' || event.tool_name === 'update_plan') break;
        if (event.tool_name === 'explore') {
          this.#line(`[explore] ${toolSubject(event.tool_name, event.input) ?? ''}`);
          break;
        }
        this.#line(
          `[tool] ${terminalLine(event.tool_name)} ${terminalLine(toolSubject(event.tool_name, event.input) ?? JSON.stringify(event.input) ?? '')}`,
        );
        break;
      case 'tool-result':
        this.#toolResult(event);
        break;
      case 'tool-output-delta':
        if (this.live) this.#liveOutput(event);
        break;
      case 'run-retry':
        this.#endLine();
        process.stderr.write(
          `bastion: the provider answered ${event.status ?? 'an error'}; trying again in ${Math.ceil(event.delay_ms / 1000)} s (attempt ${event.attempt + 1} of ${event.max_attempts})${event.message.length > 0 ? `: ${terminalLine(event.message)}` : ''}\n`,
        );
        break;
      case 'tool-approval-request':
        // Asked here, the question that follows names the call: this line would say it twice. An
        // approval answered elsewhere first gets its own line then (answeredElsewhere).
        if (!this.asksHere) this.#line(`[approval] ${terminalLine(event.tool_name)} is waiting for approval`);
        break;
      case 'tool-preview': {
        // A write waiting for an answer: what it would change, before the approval or the host's question.
        const path = (this.#calls.get(event.tool_call_id)?.input as { path?: unknown } | undefined)?.path;
        this.#line(`[preview] ${typeof path === 'string' ? terminalLine(path) : 'the write'} would change:`);
        process.stdout.write(
          inertDiffLines(event.preview_diff)
            .map((line) => `  ${line}\n`)
            .join(''),
        );
        break;
      }
      case 'run-error':
        this.#endPrompt();
        this.#endLine();
        // Aborted because the reader went away (`| head`): nothing to tell.
        if (outputClosed()) break;
        this.#cutOffCalls();
        // A run stopped on purpose (Ctrl-C here, Stop in the UI) did not fail.
        process.stderr.write(
          `bastion: run ${event.code === 'RUN_ABORTED' ? 'stopped' : 'failed'}${event.status === undefined ? '' : ` (HTTP ${event.status})`}: ${terminalLine(`${event.code}: ${event.message}`)}\n`,
        );
        if (event.status === 401) {
          const hint = unauthorizedHint(this.provider);
          if (hint !== undefined) process.stderr.write(`bastion: ${hint}\n`);
        }
        break;
      case 'run-finished': {
        this.#endLine();
        const usage = sumUsage(this.#pausedUsage, event.usage);
        if (event.finish_reason === 'approval-pending') {
          // The prompt goes on once the approvals are answered: its summary is printed when it ends.
          this.#pausedUsage = usage;
          break;
        }
        if (this.#changed.size > 0)
          process.stdout.write(
            `\nChanged files (${this.#changed.size}):\n${[...this.#changed].map((path) => `  ${path}\n`).join('')}`,
          );
        this.#endPrompt();
        // A run that used no tokens (the demo model) prints no `tokens: 0 in` line, as the UI shows none.
        if (usage && (usage.input_tokens > 0 || usage.output_tokens > 0))
          process.stderr.write(`bastion: ${formatUsage(usage, event.context)}\n`);
        break;
      }
      case 'context-compacted':
        this.#line(`[context] ${event.messages_summarized} older messages summarised for the model`);
        break;
      case 'instructions-read': {
        const fresh = event.paths.filter((path) => !this.#instructionsShown.has(path));
        for (const path of fresh) this.#instructionsShown.add(path);
        if (fresh.length > 0) this.#line(`[instructions] ${fresh.map(terminalLine).join(', ')}`);
        break;
      }
      // an undo or a rewind is asked for between runs (and reported by what asked), never during
      // one; an approval's answer shows as the run it lets go on, and another client's also as
      // follow's one line at its turn (answeredElsewhere)
      case 'run-undone':
      case 'context-rewound':
      case 'tool-approval-response':
      case 'run-started':
      case 'reasoning-delta':
        break;
    }
  }

  /**
   * An approval another client (a browser tab, the HTTP API) answered: it is not asked here. In
   * `--json` the line goes where the prompts go, stderr (the event itself is on stdout).
   */
  answeredElsewhere(request: ApprovalRequest, approved: boolean): void {
    // The call as its question names it (already inert): a command's argv, another tool's name and input.
    const line = `[approval] answered elsewhere: ${approved ? 'allowed' : 'denied'} — ${describeApproval(request)[0] ?? ''}`;
    if (this.json) process.stderr.write(`${line}\n`);
    else this.#line(line);
  }

  #toolResult(event: Extract<AgentEvent, { type: 'tool-result' }>): void {
    this.#toolOutcome(event);
    // The host's notices after a command (a git repository it neutralised): the user must see them.
    const notices = (event.output as { notices?: unknown } | undefined)?.notices;
    if (Array.isArray(notices)) for (const notice of notices) this.#line(`[bastion] ${terminalLine(String(notice))}`);
  }

  #toolOutcome(event: Extract<AgentEvent, { type: 'tool-result' }>): void {
    const name = terminalLine(event.tool_name);
    const call = this.#calls.get(event.tool_call_id);
    this.#calls.delete(event.tool_call_id);
    const output = event.output as
      (Partial<WireError> & { exit_code?: unknown; diff?: unknown; path?: unknown }) | undefined;
    if (event.tool_name === 'run_command') {
      const outcome = event.is_error
        ? `${refusedOrFailed(output?.code)}: ${terminalLine(String(output?.code ?? 'ERROR'))}`
        : `exit ${typeof output?.exit_code === 'number' ? output.exit_code : 'killed'}`;
      const streamed = this.#live.get(event.tool_call_id);
      if (streamed) {
        this.#live.delete(event.tool_call_id);
        if (streamed.partial !== '') this.#liveLine(streamed, streamed.partial);
        if (streamed.hidden > 0) this.#line(`  ${moreLines(streamed.hidden)}`);
        this.#line(`  → ${outcome}`);
        return;
      }
      this.#line(`[run] $ ${commandLine(call?.input, name)} → ${outcome}`);
      if (!event.is_error) for (const line of commandOutputPreview(event.output)) this.#line(`  ${line}`);
      return;
    }
    if (event.is_error) {
      this.#line(`[tool] ${name} ${refusedOrFailed(output?.code)}: ${terminalLine(String(output?.code ?? 'ERROR'))}`);
      return;
    }
    if (event.tool_name === 'update_plan') {
      for (const line of planLines(call?.input)) this.#line(line);
      return;
    }
    if (event.tool_name === 'explore') {
      this.#line(`[explore] → ${toolResultSummary(event.tool_name, event.output)}`);
      for (const line of exploreAnswerPreview(event.output)) this.#line(`  ${line}`);
      return;
    }
    if (typeof output?.diff === 'string' && typeof output.path === 'string') {
      this.#changed.add(terminalLine(output.path));
      this.#line(`[edit] ${terminalLine(output.path)}`);
      process.stdout.write(
        inertDiffLines(output.diff)
          .map((line) => `  ${line}\n`)
          .join(''),
      );
      return;
    }
    this.#line(`[tool] ${name} → ${terminalLine(toolResultSummary(event.tool_name, event.output))}`);
  }

  /** A running command's output: its header on the first piece, then each line as it ends, up to CLI_LIVE_OUTPUT_LINES. */
  #liveOutput(event: Extract<AgentEvent, { type: 'tool-output-delta' }>): void {
    let state = this.#live.get(event.tool_call_id);
    if (!state) {
      state = { printed: 0, hidden: 0, partial: '' };
      remember(this.#live, event.tool_call_id, state);
      this.#line(`[run] $ ${commandLine(this.#calls.get(event.tool_call_id)?.input, 'run_command')}`);
    }
    const { lines, partial } = liveLines(state.partial, event.text);
    state.partial = partial;
    for (const line of lines) this.#liveLine(state, line);
  }

  /**
   * A run that ends in an error (Ctrl-C's abort among them) gives no result to the calls it was
   * making: each is said to be stopped, so a command cut off (a silent one never printed) is named.
   */
  #cutOffCalls(): void {
    for (const [id, call] of this.#calls) {
      const streamed = this.#live.get(id);
      if (streamed) {
        if (streamed.partial !== '') this.#liveLine(streamed, streamed.partial);
        this.#line('  → stopped');
      } else if (call.name === 'run_command') this.#line(`[run] $ ${commandLine(call.input, call.name)} → stopped`);
      else this.#line(`[tool] ${terminalLine(call.name)} → stopped`);
    }
    this.#calls.clear();
    this.#live.clear();
  }

  #liveLine(state: { printed: number; hidden: number }, line: string): void {
    if (state.printed >= CLI_LIVE_OUTPUT_LINES) {
      state.hidden += 1;
      return;
    }
    state.printed += 1;
    this.#line(`  ${outputLine(line)}`);
  }

  finish(): void {
    this.#endLine();
  }

  /** A prompt's last run ended: the next prompt's runs start counting afresh. */
  #endPrompt(): void {
    this.#pausedUsage = undefined;
    this.#instructionsShown.clear();
    this.#changed.clear();
  }

  /** Chat's `/plan`: the last plan the agent set in this chat, as it was printed then (on stderr with --json). */
  plan(): void {
    if (this.#plan === undefined) {
      process.stderr.write('bastion: the agent has set no plan in this chat\n');
      return;
    }
    const lines = planLines(this.#plan);
    if (this.json) process.stderr.write(lines.map((line) => `${line}\n`).join(''));
    else for (const line of lines) this.#line(line);
  }

  #line(text: string): void {
    this.#endLine();
    process.stdout.write(`${this.#indent}${text}\n`);
  }

  #endLine(): void {
    if (this.#midLine) process.stdout.write('\n');
    this.#midLine = false;
  }
}

/** An image part of a stored prompt (`GET /sessions/:id/events` gives the prompts its runs start from). */
type ImagePart = Extract<MessagePart, { type: 'image' }>;

/** An image of a prompt as printed: the daemon's stored part, or what was sent when that cannot be read. */
type PromptImage = ImagePart | { name: string; media_type: ImagePart['media_type']; bytes: number };

/**
 * The image parts of the prompt a run-started (event `eventId`) names, as the daemon stored them:
 * the page of events that ends with it carries the prompt. Undefined when it cannot be read.
 */
async function storedPromptImages(
  host: BastionHost,
  sessionId: string,
  eventId: number,
  messageId: string | null,
): Promise<ImagePart[] | undefined> {
  if (messageId === null) return undefined;
  const page = await host.client.call(
    'GET',
    `/sessions/${sessionId}/events?limit=1&cursor=${eventId + 1}`,
    undefined,
    eventPageResponseSchema,
  );
  if (!page.ok) return undefined;
  const prompt = page.body.messages.find((message) => message.id === messageId);
  return prompt?.parts.filter((part): part is ImagePart => part.type === 'image');
}

/** What was sent, for when the stored prompt cannot be read. */
const sentImages = (images: readonly AttachedImage[]): PromptImage[] =>
  images.map((image) => ({ name: image.name, media_type: image.mediaType, bytes: image.bytes }));

/** A run_command call's argv as the terminal shows it (`fallback` when its input is not one). */
function commandLine(input: unknown, fallback: string): string {
  const command = runCommandInputSchema.safeParse(input);
  return command.success ? quoteArgv([command.data.command, ...command.data.args]) : fallback;
}

/** The daemon's connection went away under a request or the event stream (its process died). */
function isConnectionLoss(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNREFUSED' || code === 'ERR_STREAM_PREMATURE_CLOSE';
}

/** What `--provider`/`--model` name, or the session is to start on. */
type ModelChoice = Pick<RunOptions, 'provider' | 'model'>;

/**
 * The provider and model `given` asks for among `listed` (GET /models: the demo, key providers
 * with a key, the subscription, endpoints): `--provider`/`--model` (with only `--model`, the
 * default's provider, or PROVIDER/MODEL as bastion models lists it), else, for a new session,
 * none, which the daemon takes as the default for new sessions (`bastion models default`). One
 * not on offer is refused, the default too when it cannot run now, with why and the list of what is.
 */
export function chooseModel(
  given: ModelChoice,
  listed: ModelListResponse,
  newSession: boolean,
): { choice: ModelChoice } | { refusal: string } {
  const fallback = listed.default;
  if (given.provider === undefined && given.model === undefined) {
    // The daemon starts a new session asked for without one on the default; here it is only checked.
    if (!newSession || modelRunsNow(listed, fallback)) return { choice: given };
    return {
      refusal: `the default model for new sessions, ${terminalLine(`${fallback.provider}/${fallback.model}`)}, is not available now (its key or endpoint is gone, or the endpoint is not approved in this run); choose one with --provider ID --model ID (an endpoint: --endpoint URL --model ID), or set another default with bastion models default PROVIDER/MODEL:\n${listing(listed, fallback)}`,
    };
  }
  const provider = given.provider ?? fallback.provider;
  const group = listed.groups.find((candidate) => candidate.provider === provider);
  // No --model: the provider's default model, whichever it is.
  if (group && (given.model === undefined || offersModel(listed, { provider, model: given.model })))
    return { choice: { provider, model: given.model } };
  // --model alone as bastion models lists it, PROVIDER/MODEL (a model id of the default's provider
  // with a `/`, as OpenRouter's have, was taken above).
  const named = given.provider === undefined && given.model !== undefined ? parseModelRef(given.model) : undefined;
  if (named !== undefined && offersModel(listed, named)) return { choice: named };
  const what = group
    ? `model ${terminalLine(given.model ?? '')} is not offered by ${terminalLine(provider)}`
    : missingProviderReason(provider);
  return { refusal: `${what}; choose one of (--provider ID --model ID):\n${listing(listed, fallback)}` };
}

/**
 * `chooseModel` for this command line, refused before a session exists (undefined, the refusal
 * printed); an `--endpoint`, a continued session's own model, and anything when the list cannot
 * be had are taken as given.
 */
async function modelChoice(host: BastionHost, options: RunOptions): Promise<ModelChoice | undefined> {
  const given = { provider: options.provider, model: options.model };
  const continued = options.resume !== undefined && given.provider === undefined && given.model === undefined;
  if (options.endpoint !== undefined || continued) return given;
  const listed = await host.client.call('GET', '/models', undefined, modelListResponseSchema);
  if (!listed.ok) return given;
  const chosen = chooseModel(given, listed.body, options.resume === undefined);
  if ('choice' in chosen) return chosen.choice;
  process.stderr.write(`bastion: ${chosen.refusal}`);
  return undefined;
}

/**
 * Whether a message with images to `ref` is taken, by GET /models (`images: true` on the model):
 * no provider or model is the default for new sessions; a provider without a model is its default
 * model, which the listing does not name, so it is known only when all its models agree. Undefined
 * when the listing cannot tell (a provider not listed): the daemon then refuses IMAGES_NOT_SUPPORTED.
 */
export function modelTakesImages(listed: ModelListResponse, ref: ModelChoice): boolean | undefined {
  const given = ref.provider === undefined && ref.model === undefined ? listed.default : ref;
  const provider = given.provider ?? listed.default.provider;
  const group = listed.groups.find((candidate) => candidate.provider === provider);
  if (group === undefined) return undefined;
  if (given.model === undefined) {
    if (group.models.every((model) => model.images !== true)) return false;
    return group.models.every((model) => model.images === true) ? true : undefined;
  }
  // A model the listing does not hold (an endpoint that lists none takes any id) is not marked as taking them.
  return group.models.find((model) => model.id === given.model)?.images === true;
}

/** `ref` as words: PROVIDER/MODEL, or the default it stands for. */
function modelWords(ref: ModelChoice): string {
  if (ref.provider === undefined && ref.model === undefined) return 'the default model for new sessions';
  if (ref.model === undefined) return `${terminalLine(ref.provider ?? '')}'s default model`;
  return ref.provider === undefined ? terminalLine(ref.model) : terminalLine(`${ref.provider}/${ref.model}`);
}

/**
 * Why `ref`'s model cannot be sent images (modelTakesImages), in words; undefined when it can, or
 * when the models cannot be listed or the listing cannot tell (the daemon decides then).
 */
async function imagesRefusal(host: BastionHost, ref: ModelChoice): Promise<string | undefined> {
  const listed = await host.client.call('GET', '/models', undefined, modelListResponseSchema);
  if (!listed.ok || modelTakesImages(listed.body, ref) !== false) return undefined;
  return `${modelWords(ref)} takes no images`;
}

/** The wire codes with which the daemon refuses a message's images: the command line's mistake, as with --reasoning. */
const IMAGE_REFUSALS: ReadonlySet<string> = new Set([
  'IMAGES_NOT_SUPPORTED',
  'IMAGE_TOO_LARGE',
  'IMAGE_TYPE_UNSUPPORTED',
  'IMAGE_INVALID',
]);

/** The session settings the command line gives: for a new session, or changed on a continued one. */
function sessionSettings(options: RunOptions): UpdateSessionRequest {
  return {
    ...(options.mode === undefined ? {} : { mode: options.mode }),
    ...(options.askBeforeWrites ? { ask_before_writes: true } : {}),
    ...(options.mode === 'auto' ? { consent_by: 'cli' } : {}),
    ...(options.provider === undefined ? {} : { provider: options.provider }),
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.reasoning === undefined ? {} : { reasoning_effort: options.reasoning }),
  };
}

/**
 * The session `--session` or `--continue` names, with this command line's settings applied, and
 * the id of its last stored event (the stream starts after it); a message and exit code 2 when
 * there is none, it works in another folder, or `refusal` says why not (before anything changes).
 */
async function resumeSession(
  host: BastionHost,
  options: RunOptions,
  workspace: string,
  resume: NonNullable<RunOptions['resume']>,
  refusal: (found: Session) => Promise<string | undefined>,
): Promise<{ session: Session; after: number } | { code: number; message: string }> {
  let found: Session;
  if (resume === 'newest') {
    const newest = await newestSessionIn(host.client, workspace);
    if (newest === undefined)
      return { code: 2, message: 'no session has worked in this folder yet; run without --continue to start one' };
    if (!newest.ok) return { code: 1, message: `could not list the sessions: ${failure(newest.error)}` };
    found = newest.session;
  } else {
    const got = await host.client.call('GET', `/sessions/${resume.session}`, undefined, sessionSchema);
    if (!got.ok) {
      if (got.error.code === 'SESSION_NOT_FOUND') {
        // Where to find the id meant: this data folder's sessions, of this folder or of any.
        const list = `bastion sessions${options.home === undefined ? '' : ` --home ${shellWord(options.home)}`}`;
        return {
          code: 2,
          message: `no session ${resume.session} here (${list} lists this folder's sessions, ${list} --all every folder's)`,
        };
      }
      return { code: 1, message: `could not read the session: ${failure(got.error)}` };
    }
    found = got.body;
  }
  if (found.workspace !== workspaceRootOf(workspace)) {
    const where = found.workspace === null ? 'no folder' : terminalLine(found.workspace);
    return { code: 2, message: `session ${found.id} works in ${where}; run it there (--workspace)` };
  }
  const refused = await refusal(found);
  if (refused !== undefined) return { code: 2, message: refused };
  // A session New session made and nothing touched yet is removed by the daemon while nothing shows
  // it; taken here (an idle chat shows it without a stream), it is kept.
  const settings = { ...sessionSettings(options), ...(found.provisional === true ? { provisional: false } : {}) };
  if (Object.keys(settings).length > 0) {
    const updated = await host.client.call('PATCH', `/sessions/${found.id}`, settings, sessionSchema);
    if (!updated.ok) return { code: 1, message: `could not update the session: ${failure(updated.error)}` };
    found = updated.body;
  }
  const newest = await host.client.call(
    'GET',
    `/sessions/${found.id}/events?limit=1`,
    undefined,
    eventPageResponseSchema,
  );
  if (!newest.ok) return { code: 1, message: `could not read the session: ${failure(newest.error)}` };
  return { session: found, after: newest.body.events.at(-1)?.id ?? 0 };
}

/**
 * What a line of `chat` (or `run`'s one prompt) asks for: a run with this request body, the
 * session's model shown with what is on offer (`model: undefined`) or changed to PROVIDER/MODEL,
 * or the agent's last plan printed again.
 */
type Step =
  | { run: Record<string, unknown> }
  | { image: { path: string } | 'list' | 'clear' }
  | { model: string | undefined }
  | { reasoning: string | undefined }
  | { plan: true }
  | { mcp: true }
  | { changes: true }
  | { rewind: { files: boolean } };

/**
 * Where the steps come from, read until they end or `stop`; `retype.line`, when set, is what the
 * next prompt starts with (a rewound prompt), taken by the reader.
 */
type Steps = (
  stop: AbortSignal,
  retype: { line: string | undefined },
  /** Tab at chat's prompt on a line starting `/`: the commands it may be besides chat's own (the MCP servers' prompts). */
  moreCommands: (line: string) => readonly string[],
) => AsyncIterable<Step> | Iterable<Step>;

/**
 * `/model` in chat: with no PROVIDER/MODEL, the session's model among those on offer (marked *);
 * with one on offer, the session switched to it. The session as it is now.
 */
async function chatModel(host: BastionHost, session: Session, target: string | undefined): Promise<Session> {
  const listed = await host.client.call('GET', '/models', undefined, modelListResponseSchema);
  if (!listed.ok) {
    process.stderr.write(`bastion: could not list the models: ${failure(listed.error)}\n`);
    return session;
  }
  const current = { provider: session.provider, model: session.model };
  if (target === undefined) {
    process.stderr.write(
      `bastion: * marks this session's model; /model PROVIDER/MODEL switches it\n${listing(listed.body, current)}`,
    );
    return session;
  }
  const wanted = parseModelRef(target);
  if (wanted === undefined || !offersModel(listed.body, wanted)) {
    // As models default says it: a provider without its key or sign-in is told how to add it.
    process.stderr.write(
      `bastion: ${notOfferedReason(listed.body, target, wanted)}; choose one of:\n${listing(listed.body, current)}`,
    );
    return session;
  }
  const updated = await host.client.call('PATCH', `/sessions/${session.id}`, wanted, sessionSchema);
  if (!updated.ok) {
    process.stderr.write(`bastion: the model was not changed: ${failure(updated.error)}\n`);
    return session;
  }
  process.stderr.write(
    `bastion: session ${session.id} now uses ${terminalLine(`${updated.body.provider}/${updated.body.model}`)}\n`,
  );
  return updated.body;
}

/**
 * `/rewind` in chat: the session back to before its latest prompt still in the conversation (with
 * the files its turns wrote put back, or with `--keep-files` left); what it did, or why not. The
 * prompt, when one line, for the next prompt to start with, and the run rewound (whose prompt's
 * images are attached again when it was sent in this chat).
 */
async function chatRewind(
  host: BastionHost,
  sessionId: string,
  files: boolean,
): Promise<{ line: string | undefined; runId: string } | undefined> {
  const body = { session_id: sessionId, files };
  const answer = await host.client.call('POST', '/agent/rewind', body, agentRewindResponseSchema);
  if (!answer.ok) {
    const hint = answer.error.code === 'UNDO_CONFLICT' ? `with /rewind --keep-files ${KEEP_FILES_HINT}` : undefined;
    process.stderr.write(refusalLines('nothing was rewound', answer.error, hint));
    return undefined;
  }
  process.stderr.write(rewindReport(sessionId, answer.body));
  const origin = answer.body.mcp_prompt;
  if (origin !== undefined) {
    // A terminal line cannot tell the server's characters from the person's once edited: put back
    // as the person's, an `@SERVER:URI` word the server wrote would attach a resource nobody chose.
    const command = mcpPromptCommandName(origin.server, origin.name) ?? `/mcp__${origin.server}__${origin.name}`;
    process.stderr.write(
      `bastion: that prompt's text came from the MCP server ${terminalLine(origin.server)}'s prompt, so it is not put back on the line; ${terminalLine(command)} runs it again\n`,
    );
    return { line: undefined, runId: answer.body.run_id };
  }
  return {
    line: answer.body.prompt.includes('\n') ? undefined : answer.body.prompt,
    runId: answer.body.run_id,
  };
}

/**
 * After chat's `/rewind`: the images the rewound prompt carried (known for a prompt sent in this
 * chat), fetched back from the session and attached to the next prompt again, as far as room is
 * left; what was attached said. One the session no longer gives, or that is no longer an image
 * by its first bytes, is left out and said.
 */
async function attachRewoundImages(
  host: BastionHost,
  sessionId: string,
  parts: readonly ImagePart[],
  attached: AttachedImage[],
): Promise<void> {
  const again: AttachedImage[] = [];
  for (const part of parts) {
    const name = part.name ?? 'image';
    if (attached.length + again.length >= AGENT_MAX_IMAGES) {
      process.stderr.write(`bastion: ${terminalLine(name)} not attached again: ${AGENT_MAX_IMAGES} are attached\n`);
      continue;
    }
    const stored = await host.client.call(
      'GET',
      `/sessions/${sessionId}/images/${encodeURIComponent(part.image_id)}`,
      undefined,
      sessionImageResponseSchema,
    );
    const bytes = stored.ok ? Buffer.from(stored.body.data, 'base64') : undefined;
    const mediaType = bytes === undefined ? undefined : sniffImageType(bytes);
    if (bytes === undefined || mediaType === undefined || bytes.length > IMAGE_MAX_BYTES) {
      process.stderr.write(`bastion: ${terminalLine(name)} could not be attached again; /image PATH attaches it\n`);
      continue;
    }
    again.push({ path: name, name, mediaType, bytes: bytes.length, data: bytes.toString('base64') });
  }
  if (again.length === 0) return;
  attached.push(...again);
  process.stderr.write(
    `bastion: attached again to your next message: ${again.map((image) => describeImage(image)).join(', ')}; /image --clear drops them\n`,
  );
}

/**
 * `/reasoning` in chat: with no effort, the session's; with low, medium, high or default, the
 * session switched to it (the daemon refuses it for a model that takes none). The session as it is now.
 */
async function chatReasoning(host: BastionHost, session: Session, target: string | undefined): Promise<Session> {
  if (target === undefined) {
    process.stderr.write(
      `bastion: reasoning effort ${session.reasoning_effort ?? 'the model’s default'}; /reasoning low|medium|high|default changes it\n`,
    );
    return session;
  }
  const effort = target === 'default' ? null : reasoningEffortSchema.safeParse(target).data;
  if (effort === undefined) {
    process.stderr.write(`bastion: /reasoning takes low, medium, high or default, not ${terminalLine(target)}\n`);
    return session;
  }
  const updated = await host.client.call(
    'PATCH',
    `/sessions/${session.id}`,
    { reasoning_effort: effort },
    sessionSchema,
  );
  if (!updated.ok) {
    process.stderr.write(`bastion: the reasoning effort was not changed: ${failure(updated.error)}\n`);
    return session;
  }
  process.stderr.write(`bastion: reasoning effort ${updated.body.reasoning_effort ?? 'the model’s default'}\n`);
  return updated.body;
}

/**
 * The images that go with the next prompt: `run`'s `--image` files, or those chat's `/image`
 * attached; `base` is the folder relative paths are read from (where the command was typed).
 */
interface Attachments {
  images: AttachedImage[];
  base: string;
}

/**
 * Chat's `/image`: attach the image at PATH to the next prompt (read and checked now, and refused
 * for a model that takes none), list what is attached, or drop it.
 */
async function chatImage(
  host: BastionHost,
  session: Session,
  attachments: Attachments,
  command: { path: string } | 'list' | 'clear',
): Promise<void> {
  const attached = attachments.images;
  if (command === 'clear') {
    process.stderr.write(
      attached.length === 0 ? 'bastion: no image was attached\n' : `bastion: dropped ${imageCount(attached.length)}\n`,
    );
    attached.length = 0;
    return;
  }
  if (command === 'list') {
    process.stderr.write(
      attached.length === 0
        ? 'bastion: no image is attached; /image PATH attaches one to your next message\n'
        : `bastion: attached to your next message: ${attached.map((image) => describeImage(image)).join(', ')}; /image --clear drops them\n`,
    );
    return;
  }
  if (attached.length >= AGENT_MAX_IMAGES) {
    process.stderr.write(
      `bastion: not attached: ${imageCount(attached.length)} attached already, the most one message takes; /image --clear drops them\n`,
    );
    return;
  }
  const read = readImageAttachment(expandHome(command.path), attachments.base);
  if (!read.ok) {
    process.stderr.write(`bastion: not attached: ${read.message}\n`);
    return;
  }
  const refused = await imagesRefusal(host, { provider: session.provider, model: session.model });
  if (refused !== undefined) {
    process.stderr.write(
      `bastion: not attached: ${refused}; /model PROVIDER/MODEL switches to one that does (bastion models marks them: takes --image)\n`,
    );
    return;
  }
  attached.push({ ...read.image, path: command.path });
  process.stderr.write(
    `bastion: attached ${terminalLine(command.path)} (${imageFacts(read.image)}); it goes with your next message\n`,
  );
}

/** "1 image", "3 images". */
const imageCount = (count: number) => `${count} image${count === 1 ? '' : 's'}`;

/** `~/…` as the user's home folder, as a shell would have it (chat's lines reach no shell). */
function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : path;
}

async function runPrompt(
  host: BastionHost,
  command: 'run' | 'chat',
  options: RunOptions,
  workspace: string,
  requests: Steps,
  attachments: Attachments,
  heard: HeardFromProvider,
): Promise<number> {
  const choice = await modelChoice(host, options);
  if (choice === undefined) return 2;
  const attached = attachments.images;
  /** Why the model the run goes to (the session's own when the command line names none) takes no images. */
  const imagesRefused = async (found?: Session): Promise<string | undefined> => {
    if (attached.length === 0) return undefined;
    const own = found !== undefined && choice.provider === undefined && choice.model === undefined;
    const refused = await imagesRefusal(host, own ? { provider: found.provider, model: found.model } : choice);
    return refused === undefined
      ? undefined
      : `${refused}; choose a model that does with --provider ID --model ID (bastion models marks them: takes --image); nothing was run`;
  };
  let session: Session;
  let after = 0;
  if (options.resume === undefined) {
    // Refused before the session is made, as a --reasoning the model takes none of is.
    const refused = await imagesRefused();
    if (refused !== undefined) {
      process.stderr.write(`bastion: ${refused}\n`);
      return 2;
    }
    const created = await host.client.call(
      'POST',
      '/sessions',
      { mode: 'accept-edits', ...sessionSettings({ ...options, ...choice }) },
      sessionSchema,
    );
    if (!created.ok) {
      process.stderr.write(`bastion: could not create a session: ${failure(created.error)}\n`);
      // A model that takes no --reasoning is the command line's mistake, as a model not on offer is.
      return created.error.code === 'REASONING_NOT_SUPPORTED' ? 2 : 1;
    }
    session = created.body;
  } else {
    // The session takes the provider too when --model named it (PROVIDER/MODEL); otherwise only what was given.
    const settings = choice.model === options.model ? options : { ...options, ...choice };
    const resumed = await resumeSession(host, settings, workspace, options.resume, imagesRefused);
    if ('code' in resumed) {
      process.stderr.write(`bastion: ${resumed.message}\n`);
      return resumed.code;
    }
    ({ session, after } = resumed);
  }
  if (!options.json) {
    process.stderr.write(
      `bastion: ${options.resume === undefined ? 'session' : 'continuing session'} ${session.id} · ${terminalLine(`${session.provider}/${session.model}`)}${session.provider === 'demo' ? ' (offline demo model, not a real AI)' : ''}${options.endpoint !== undefined && session.provider === options.provider ? ` (custom endpoint ${terminalLine(options.endpoint)})` : ''} · mode ${session.mode} · sandbox ${host.capabilities.sandbox}\n`,
    );
  }

  const printer = new TerminalPrinter(
    options.json,
    session.provider,
    !options.json && process.stdout.isTTY === true,
    process.stdin.isTTY === true,
  );
  const stream = await host.client.open(
    'GET',
    `/agent/stream/${session.id}`,
    undefined,
    after > 0 ? { 'last-event-id': String(after) } : {},
  );
  if (stream.statusCode !== 200) {
    process.stderr.write('bastion: could not open the event stream\n');
    return 1;
  }
  let runId = '';
  /** The command line's --workspace and --home, for a `bastion policy add` line to take the same project and home. */
  const policyFlags = `${options.workspace === undefined ? '' : ` --workspace ${shellWord(workspace)}`}${options.home === undefined ? '' : ` --home ${shellWord(options.home)}`}`;
  /** The images the run started last took, until its run-started says how the daemon stored them. */
  let sentWith: AttachedImage[] = [];
  /** The images of each prompt sent here, as stored: chat's `/rewind` attaches them again. */
  const promptImagesByRun = new Map<string, ImagePart[]>();
  /** The daemon refused a message's images (IMAGE_REFUSALS): exit 2, as for a mistake on the command line. */
  let imagesRefusedByDaemon = false;
  /** The calls of the prompt's runs whose refusal makes a finished `run` exit 1 (runRefusal), by why. */
  const refused: Record<RunRefusal, number> = { unapproved: 0, 'read-only': 0 };
  /** Start a run; false when it was refused. */
  const startRun = async (body: Record<string, unknown>): Promise<boolean> => {
    const started = await host.client.call(
      'POST',
      '/agent/run',
      { session_id: session.id, ...body },
      agentRunResponseSchema,
    );
    if (!started.ok) {
      process.stderr.write(`bastion: the run did not start: ${failure(started.error)}\n`);
      if (IMAGE_REFUSALS.has(started.error.code)) imagesRefusedByDaemon = true;
      // A continued session whose model went away (an --endpoint of an earlier run): say how to pick another.
      if (started.error.code === 'APPROVAL_PENDING') {
        process.stderr.write(
          `bastion: session ${session.id} waits for an answer to an earlier approval: answer it in the UI (bastion start), or run without --continue/--session for a new session\n`,
        );
      }
      if (started.error.code === 'PROVIDER_UNKNOWN') {
        process.stderr.write(
          `bastion: session ${session.id} uses ${terminalLine(session.provider)}, which is not on offer now; choose a model with --provider ID --model ID\n`,
        );
      }
      return false;
    }
    if (started.body.run_id !== null) runId = started.body.run_id;
    return true;
  };
  const events = readAgentEvents(stream)[Symbol.asyncIterator]();
  /** The stream's next event, held until it is taken: an approval's question waits on it and on the terminal at once. */
  let coming: ReturnType<typeof events.next> | undefined;
  const nextEvent = () => (coming ??= events.next());
  /** Send this terminal's answer: whether it continued the run, more answers are due, another client answered first, or it was refused. */
  const sendAnswer = async (
    answer: ApprovalAnswer,
  ): Promise<'continued' | 'more-due' | 'already-answered' | 'refused'> => {
    const sent = await host.client.call(
      'POST',
      '/agent/run',
      { session_id: session.id, approval_answer: answer },
      agentRunResponseSchema,
    );
    if (sent.ok) {
      if (sent.body.run_id === null) return 'more-due';
      runId = sent.body.run_id;
      return 'continued';
    }
    // Another client's answer was taken between the question and this one: its event says what it was.
    if (sent.error.code === 'APPROVAL_ALREADY_ANSWERED') return 'already-answered';
    process.stderr.write(`bastion: the answer was not taken: ${failure(sent.error)}\n`);
    return 'refused';
  };
  /**
   * Follow the run started last to its end: 0 finished, 1 failed; undefined when the stream ends
   * first. A run paused for approvals is answered one approval at a time, each asked here unless
   * another client (a browser tab, the HTTP API) answers it first (its tool-approval-response): a
   * question showing then is taken off, and either way one line says how it was answered. The
   * run carrying the answers out, started by whichever answer was last, is followed on.
   */
  const follow = async (): Promise<number | undefined> => {
    /** The paused run's approvals, by id, and how each was answered as its tool-approval-response says. */
    const requests = new Map<string, ApprovalRequest>();
    const decided = new Map<string, boolean>();
    /** The run paused for approvals and its continuation is not known: the next run-started is it (no other run starts while an approval waits). */
    let paused = false;
    /** Show one event; a number when the run ended with it, 'paused' when it waits for its approvals. */
    const handle = async ({ id, event }: { id: number; event: AgentEvent }): Promise<number | 'paused' | undefined> => {
      // An answer is told under the run that asked, also once the run it let go on is followed.
      if (event.type === 'tool-approval-response' && requests.has(event.approval_id)) {
        printer.event(id, event);
        decided.set(event.approval_id, event.approved);
        return undefined;
      }
      if (paused && event.type === 'run-started') {
        runId = event.run_id;
        paused = false;
      }
      if (event.run_id !== runId) return undefined;
      if (event.type === 'run-started' && sentWith.length > 0) {
        const stored = await storedPromptImages(host, session.id, id, event.message_id);
        if (stored !== undefined) promptImagesByRun.set(runId, stored);
        printer.event(id, event, stored ?? sentImages(sentWith));
        sentWith = [];
        return undefined;
      }
      printer.event(id, event);
      if (event.type === 'tool-result') {
        const why = runRefusal(event, process.stdin.isTTY === true);
        if (why !== undefined) refused[why] += 1;
      }
      if (event.type === 'tool-approval-request') requests.set(event.approval_id, event);
      if (event.type === 'run-error' && event.status === 401) heard.unauthorized = true;
      if (event.type === 'run-error') return 1;
      if (event.type !== 'run-finished') return undefined;
      if (event.finish_reason !== 'approval-pending') return 0;
      return requests.size === 0 ? 1 : 'paused';
    };
    /** Take the next event and show it; undefined when the stream ended. */
    const take = async (): Promise<{ ended: number | 'paused' | undefined } | undefined> => {
      const next = await nextEvent();
      coming = undefined;
      return next.done === true ? undefined : { ended: await handle(next.value) };
    };
    /**
     * Take events until another client's answer to `request` is told, then say it in one line (at
     * the approval's turn, never over a question showing); a number or undefined when the run or the stream ends first.
     */
    const sayWhenTold = async (request: ApprovalRequest): Promise<'answered' | number | undefined> => {
      while (!decided.has(request.approval_id)) {
        const shown = await take();
        if (shown === undefined) return undefined;
        if (typeof shown.ended === 'number') return shown.ended;
      }
      printer.answeredElsewhere(request, decided.get(request.approval_id) === true);
      return 'answered';
    };
    /**
     * Ask `request` here while following the stream; 'answered' once this terminal's answer is
     * taken or another client's is said, a number or undefined when the run or the stream ends first.
     */
    const answer = async (request: ApprovalRequest): Promise<'answered' | number | undefined> => {
      const elsewhere = new AbortController();
      const asking = askApproval(request, { json: options.json, session, flags: policyFlags }, host, elsewhere.signal);
      // Ctrl-C at the question (readline's AbortError, where the signal is not ours) stops the run, as
      // Ctrl-C while one runs does: the daemon withdraws the step's approvals and ends it RUN_ABORTED.
      const stopped = asking.catch((error: unknown) => {
        if ((error as Error).name !== 'AbortError' || elsewhere.signal.aborted) throw error;
        return 'stopped' as const;
      });
      for (;;) {
        const first = await Promise.race([stopped, nextEvent().then(() => 'event' as const)]);
        if (first === 'stopped') {
          stoppedBy ??= 'SIGINT';
          await host.client.request('POST', '/agent/abort', { session_id: session.id });
          for (let shown = await take(); shown !== undefined; shown = await take())
            if (typeof shown.ended === 'number') return shown.ended;
          return undefined;
        }
        if (first !== 'event') {
          const sent = await sendAnswer(first);
          if (sent === 'refused') return 1;
          if (sent === 'continued') paused = false;
          if (sent !== 'already-answered') return 'answered';
          // Not ours: the other client's answer was recorded first, and its event is on the way.
          return sayWhenTold(request);
        }
        const shown = await take();
        if (shown === undefined || typeof shown.ended === 'number' || decided.has(request.approval_id)) {
          elsewhere.abort();
          // Taken off: its AbortError (or an answer typed just then, too late) is the end it was asked for.
          await asking.catch(() => undefined);
          if (shown === undefined) return undefined;
          if (typeof shown.ended === 'number') return shown.ended;
          return sayWhenTold(request);
        }
      }
    };
    for (let shown = await take(); shown !== undefined; shown = await take()) {
      if (shown.ended === undefined) continue;
      if (shown.ended !== 'paused') return shown.ended;
      paused = true;
      for (const request of requests.values()) {
        // Once this terminal's answer let the run go on, every other was answered elsewhere: only told, not asked.
        const answered =
          decided.has(request.approval_id) || !paused ? await sayWhenTold(request) : await answer(request);
        if (answered !== 'answered') return answered;
      }
      requests.clear();
      decided.clear();
    }
    return undefined;
  };

  let running = false;
  /** The stop signal that stopped the run going (Ctrl-C at its approval question is SIGINT's): its exit code is the run's. */
  let stoppedBy: NodeJS.Signals | undefined;
  const stop = new AbortController();
  // Ctrl-C, SIGTERM and a closed terminal (SIGHUP) stop the run going, or end `chat` between runs;
  // the host then stops cleanly.
  const onInterrupt = (signal: NodeJS.Signals) => {
    if (running) {
      stoppedBy ??= signal;
      void host.client.request('POST', '/agent/abort', { session_id: session.id });
    } else stop.abort();
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onInterrupt);
  let code = 0;
  /**
   * `run` made the session for its one prompt, so a refusal of that prompt leaves it holding
   * nothing: it then goes (removeUnusedSession), as a refusal before it was made leaves none.
   */
  const sessionMadeForRun = command === 'run' && options.resume === undefined;
  const removeUnusedSession = async () => {
    const removed = await host.client.request('DELETE', `/sessions/${session.id}`);
    if (removed.status === 200) process.stderr.write(`bastion: session ${session.id} removed; nothing was run\n`);
  };
  const retype: { line: string | undefined } = { line: undefined };
  /** MCP servers already said to be not running in this process. */
  const mcpReported = new Set<string>();
  try {
    const mcpCommands = (line: string): readonly string[] => {
      if (!line.startsWith('/mcp__') || session.workspace === null) return [];
      // The first Tab on one starts the servers (as a run would), for the next Tab to complete.
      host.mcp.catalog(session.workspace).catch(() => undefined);
      return mcpPromptNames(host, session.workspace);
    };
    for await (const step of requests(stop.signal, retype, mcpCommands)) {
      if ('plan' in step) {
        printer.plan();
        continue;
      }
      if ('mcp' in step) {
        process.stderr.write(chatMcpListing(host, session.workspace));
        continue;
      }
      if ('changes' in step) {
        process.stderr.write(await chatChanges(host, session.id));
        continue;
      }
      if ('rewind' in step) {
        const rewound = await chatRewind(host, session.id, step.rewind.files);
        retype.line = rewound?.line;
        const images = rewound === undefined ? undefined : promptImagesByRun.get(rewound.runId);
        if (images !== undefined) await attachRewoundImages(host, session.id, images, attached);
        continue;
      }
      if ('reasoning' in step) {
        session = await chatReasoning(host, session, step.reasoning);
        continue;
      }
      if ('model' in step) {
        session = await chatModel(host, session, step.model);
        printer.provider = session.provider;
        continue;
      }
      if ('image' in step) {
        await chatImage(host, session, attachments, step.image);
        continue;
      }
      let run = step.run;
      if (typeof step.run.message === 'string') {
        // A line naming an MCP server's prompt is that prompt; another may name a saved one. Either
        // way the resources the person's words name are attached (a server's text attaches none).
        const typed = step.run.message;
        const expanded =
          splitMcpPromptLine(typed) === undefined
            ? await expandSavedPrompt(host, typed, command === 'chat')
            : { ok: true as const, line: typed };
        if (!expanded.ok) {
          // Back on the line to correct, as /rewind puts a prompt back.
          process.stderr.write(`bastion: ${expanded.message}; nothing was sent (/help lists the commands)\n`);
          retype.line = typed;
          code = 2;
          continue;
        }
        const withServers = await withMcp(host, session.workspace, expanded.line);
        if (!withServers.ok) {
          process.stderr.write(`bastion: ${withServers.message}; nothing was sent\n`);
          code = 2;
          if (sessionMadeForRun) await removeUnusedSession();
          continue;
        }
        run = { ...withServers.body };
      }
      // The attached images go with the next message (not with a compaction), and are then no longer attached.
      const carrying = 'message' in run ? [...attached] : [];
      const body = carrying.length === 0 ? run : { ...run, images: imageInputs(carrying) };
      running = true;
      stoppedBy = undefined;
      imagesRefusedByDaemon = false;
      refused.unapproved = 0;
      refused['read-only'] = 0;
      const started = await startRun(body);
      if (started) {
        sentWith = carrying;
        attached.length = 0;
      }
      const ended = started ? await follow() : 1;
      running = false;
      printer.finish();
      if (started) reportStoppedMcpServers(host, session.workspace, mcpReported);
      if (ended === undefined) {
        process.stderr.write('bastion: the event stream ended before the run did\n');
        return 1;
      }
      // A run a stop signal cut off exits as the signal would (130 for Ctrl-C); one that finished first, 0.
      code = imagesRefusedByDaemon ? 2 : stoppedBy !== undefined && ended !== 0 ? signalExitCode(stoppedBy) : ended;
      // What was asked for was not all done: a script must not read the finished run as success.
      // (chat goes on to the next prompt; its exit code is still the last run's.)
      if (command === 'run' && code === 0 && (refused.unapproved > 0 || refused['read-only'] > 0)) {
        process.stderr.write(refusedRunLine(refused));
        code = 1;
      }
      if (imagesRefusedByDaemon && sessionMadeForRun) {
        await removeUnusedSession();
      } else if (!started && carrying.length > 0 && command === 'chat') {
        process.stderr.write(
          `bastion: ${imageCount(carrying.length)} still attached to your next message; /image --clear drops them\n`,
        );
      }
    }
    if (attached.length > 0 && command === 'chat')
      process.stderr.write(`bastion: ${imageCount(attached.length)} attached to no message was not sent\n`);
    // A chat that ran nothing (ended at once, or every line refused) leaves no empty session behind,
    // which run --continue would otherwise take for the newest; one a UI tab ran a prompt in stays.
    if (command === 'chat' && options.resume === undefined) {
      const now = await host.client.call('GET', `/sessions/${session.id}`, undefined, sessionSchema);
      if (now.ok && now.body.last_run === null) await removeUnusedSession();
    }
    return code;
  } catch (error) {
    if (!isConnectionLoss(error)) throw error;
    // The sidecar died under the stream; the next daemon on this data folder marks the run interrupted.
    process.stderr.write(`bastion: the agent process stopped during the run; it was cut off (session ${session.id})\n`);
    return 1;
  } finally {
    for (const signal of STOP_SIGNALS) process.off(signal, onInterrupt);
    printer.finish();
    stream.destroy();
  }
}

/** What `run` sends: its one prompt, or a compaction (`--compact`). */
function onePrompt(options: RunOptions): Step[] {
  return [{ run: options.compact ? { compact: true } : { message: options.prompt } }];
}

/** What `/help` in `chat` prints: the lines that are commands. */
const CHAT_HELP = `bastion: a line is a prompt to this session, except these:
  /init                  ask the agent to write the project's AGENTS.md
  /compact               summarise the session's older turns now
  /model                 list the models on offer, this session's marked *
  /model PROVIDER/MODEL  switch this session to that model
  /rewind                go back to before the last prompt (its turn leaves the conversation and
                         the files it wrote are put back); the prompt is back on the line to edit,
                         its images attached again
  /rewind --keep-files   the same, leaving the files as they are
  /reasoning [EFFORT]    the session's reasoning effort; low, medium, high or default changes it
  /image PATH            attach the image at PATH (PNG, JPEG, GIF or WebP) to your next prompt
                         (up to ${AGENT_MAX_IMAGES}; a path with spaces in quotes)
  /image                 list the images attached
  /image --clear         drop them
  /plan                  the agent's last plan in this chat again
  /mcp                   the MCP servers here: each one's state, tools and why one failed
  /changes               what this session's file tools changed so far, a line a file
                         (bastion changes prints the diffs)
  /NAME [ARGS]           your saved prompt <home>/prompts/NAME.md, ARGS in place of its $ARGUMENTS
  /mcp__SERVER__PROMPT [NAME=value …]
                         an MCP server's prompt (/mcp lists them; Tab completes them), run with
                         its arguments; its text is sent as your message, shown first
  @SERVER:URI            in a prompt: attach that MCP server's resource's text (/mcp lists them)
  /help                  this list
  /exit                  end chat (as /quit, exit, quit, Ctrl-D or the end of input do); Ctrl-C
                         stops a run going
At a terminal, a line ending in \\ goes on to the next, a paste is one prompt however many lines
it holds, Tab completes a command and ArrowUp brings back an earlier line.\n`;

/** The lines of `chat` that are commands, as Tab at its prompt completes them. */
const CHAT_COMMANDS = [
  '/init',
  '/compact',
  '/model',
  '/reasoning',
  '/rewind',
  '/image',
  '/plan',
  '/mcp',
  '/changes',
  '/help',
  '/exit',
  '/quit',
] as const;

/**
 * Tab at chat's prompt: a line that is the start of a command's name (chat's own, or `more`, the
 * MCP servers' prompts) becomes the name (both, listed, when more fit).
 */
function completeChatCommand(line: string, more: readonly string[]): [string[], string] {
  if (!line.startsWith('/') || /\s/.test(line)) return [[], line];
  return [[...CHAT_COMMANDS, ...more].filter((command) => command.startsWith(line)), line];
}

/** How chat's commands that take something after them are typed (the others are typed alone). */
const CHAT_COMMAND_FORMS: Readonly<Record<string, string>> = {
  '/model': '/model or /model PROVIDER/MODEL',
  '/reasoning': '/reasoning or /reasoning low|medium|high|default',
  '/rewind': '/rewind or /rewind --keep-files',
};

/**
 * Why a line of `chat` that starts `/NAME` is not sent: NAME is one of chat's commands typed
 * otherwise than it takes (`/compact now`), or none of them and none of `savedPrompts` (`/compcat`).
 * Either would otherwise reach the model as a prompt. Undefined for any other line, and for an MCP
 * server's prompt (`/mcp__…`, which chat-mcp.ts reads).
 */
export function chatCommandMistake(line: string, savedPrompts: readonly string[]): string | undefined {
  const name = /^\/([A-Za-z0-9][\w-]*)(?:\s|$)/.exec(line)?.[1];
  if (name === undefined || name.startsWith('mcp__') || savedPrompts.includes(name)) return undefined;
  const command = `/${name}`;
  if ((CHAT_COMMANDS as readonly string[]).includes(command))
    return `${command} is typed ${CHAT_COMMAND_FORMS[command] ?? 'alone'}`;
  const meant = closestName(command.toLowerCase(), [...CHAT_COMMANDS, ...savedPrompts.map((saved) => `/${saved}`)]);
  return `unknown command ${command}${meant === undefined ? '' : ` (did you mean ${meant}?)`}`;
}

/**
 * A prompt that starts `/NAME` for one of the user's saved prompts (`<home>/prompts/NAME.md`, read
 * afresh) becomes that prompt, what follows NAME in place of its `$ARGUMENTS`, and says so. With
 * `refuseOthers` (chat), another `/NAME` line is refused (chatCommandMistake); any other text is
 * sent as typed, as every line is when the saved prompts cannot be listed.
 */
async function expandSavedPrompt(
  host: BastionHost,
  message: string,
  refuseOthers: boolean,
): Promise<{ ok: true; line: string } | { ok: false; message: string }> {
  if (!message.startsWith('/')) return { ok: true, line: message };
  const listed = await host.client.call('GET', '/prompts', undefined, promptListResponseSchema);
  if (!listed.ok) return { ok: true, line: message };
  const named = promptCommand(listed.body.prompts, message);
  if (named === undefined) {
    const names = listed.body.prompts.map((prompt) => prompt.name);
    const mistake = refuseOthers ? chatCommandMistake(message, names) : undefined;
    return mistake === undefined ? { ok: true, line: message } : { ok: false, message: mistake };
  }
  process.stderr.write(
    `bastion: /${named.prompt.name} is your saved prompt ${terminalLine(join(listed.body.folder, `${named.prompt.name}.md`))}\n`,
  );
  return { ok: true, line: expandPrompt(named.prompt.body, named.args) };
}

/**
 * After a run: each MCP server of the folder that failed (to start, or since), once a process, so
 * the person knows the agent had none of its tools and why.
 */
function reportStoppedMcpServers(host: BastionHost, workspace: string | null, reported: Set<string>): void {
  if (workspace === null) return;
  let servers: McpServerStatus[];
  try {
    servers = host.mcp.listing(workspace).servers;
  } catch {
    // An unusable mcp.json: the host warned of it, and bastion doctor names it.
    return;
  }
  for (const server of servers) {
    if (server.state !== 'failed' || reported.has(server.name)) continue;
    reported.add(server.name);
    process.stderr.write(
      `bastion: MCP server ${server.name} is not running, so the agent had none of its tools: ${terminalLine(server.error ?? 'it failed')}\n`,
    );
  }
}

/** Chat's `/mcp`: the MCP servers of the session's folder as this chat's host runs them, or why it cannot say. */
function chatMcpListing(host: BastionHost, workspace: string | null): string {
  if (workspace === null) return 'bastion: this session works in no folder, so no MCP server runs for it\n';
  try {
    return listingText(host.mcp.listing(workspace));
  } catch (error) {
    if (!(error instanceof HostError)) throw error;
    return `bastion: ${error.code}: ${terminalLine(error.message)}\n`;
  }
}

/** Chat's `/changes`: what the session's file tools changed so far, as `bastion changes --stat` says it. */
async function chatChanges(host: BastionHost, sessionId: string): Promise<string> {
  const answer = await host.client.call(
    'GET',
    `/sessions/${sessionId}/changes`,
    undefined,
    sessionChangesResponseSchema,
  );
  return answer.ok
    ? changesStat(answer.body)
    : `bastion: could not read the session's changes: ${failure(answer.error)}\n`;
}

/** A path typed in one pair of quotes (as a shell would take a name with spaces) without them. */
function unquoted(text: string): string {
  const quote = text[0];
  return text.length >= 2 && (quote === '"' || quote === "'") && text.endsWith(quote) ? text.slice(1, -1) : text;
}

/**
 * A line of `chat` as a step: `/compact` is a compaction, `/init` the prompt to write AGENTS.md,
 * `/model [PROVIDER/MODEL]` the session's model, `/image [PATH | --clear]` the images for the next
 * prompt, `/plan` the last plan, any other line a prompt as typed; `exit` for `/exit`; none for an
 * empty line or `/help` (which prints the commands).
 */
function chatStep(line: string): Step | 'exit' | undefined {
  const text = line.trim();
  if (text === '') return undefined;
  // `exit` and `quit` alone end chat as a shell's or a REPL's do, rather than reach the model as a prompt.
  if (text === '/exit' || text === '/quit' || /^(?:exit|quit)$/i.test(text)) return 'exit';
  if (text === '/help') {
    process.stderr.write(CHAT_HELP);
    return undefined;
  }
  if (text === '/compact') return { run: { compact: true } };
  if (text === '/plan') return { plan: true };
  if (text === '/mcp') return { mcp: true };
  if (text === '/changes') return { changes: true };
  if (text === '/rewind' || text === '/rewind --keep-files') return { rewind: { files: text === '/rewind' } };
  const model = /^\/model(?:\s+(\S+))?$/.exec(text);
  if (model) return { model: model[1] };
  const reasoning = /^\/reasoning(?:\s+(\S+))?$/.exec(text);
  if (reasoning) return { reasoning: reasoning[1] };
  const image = /^\/image(?:\s+(.+))?$/.exec(text);
  if (image) {
    const argument = image[1];
    if (argument === undefined) return { image: 'list' };
    return { image: argument === '--clear' ? 'clear' : { path: unquoted(argument) } };
  }
  return { run: { message: text === '/init' ? INIT_INSTRUCTIONS_PROMPT : text } };
}

/**
 * What `chat` sends: each prompt entered (empty ones skipped) until the end of input, `/exit`,
 * Ctrl-D or Ctrl-C at an empty prompt, or `stop`. On a terminal (terminal-prompt.ts), a showing of
 * the prompt for each, closed while the run goes so that an approval is asked on the same terminal;
 * piped in, one reader for every line.
 */
async function* typedPrompts(
  stop: AbortSignal,
  retype: { line: string | undefined },
  moreCommands: (line: string) => readonly string[],
): AsyncGenerator<Step> {
  if (!process.stdin.isTTY) {
    // A character takes at most 4 bytes in UTF-8: a longer line cannot be a prompt within the limit.
    const tooLong = `a line on standard input is longer than ${AGENT_MAX_MESSAGE_CHARS} characters`;
    for await (const line of pipedLines(4 * AGENT_MAX_MESSAGE_CHARS, tooLong, stop)) {
      const step = chatStep(line);
      if (step === 'exit') return;
      if (step) yield step;
      if (stop.aborted) return;
    }
    return;
  }
  process.stderr.write(
    // One line, short enough not to wrap: /help has the commands, the keys and what a paste does.
    'bastion: type a prompt and Enter; /help lists the commands (Tab completes them), /exit ends\n',
  );
  // Each prompt gets a showing of its own (closed while the run goes); they share one history, which
  // readline adds each entered line to, so ArrowUp brings back the earlier ones.
  const history: string[] = [];
  while (!stop.aborted) {
    const { prompts, ended } = await readTerminalPrompts({
      history,
      historySize: CLI_CHAT_HISTORY_LINES,
      completer: (line) => completeChatCommand(line, moreCommands(line)),
      stop,
      initial: retype.line,
    });
    retype.line = undefined;
    for (const prompt of prompts) {
      const step = chatStep(prompt);
      if (step === 'exit') return;
      if (step) yield step;
      if (stop.aborted) return;
    }
    if (ended) return;
  }
}

/**
 * PROMPT `-`, or none with standard input piped (`echo PROMPT | bastion run`, as peers read it): the
 * prompt piped in (a terminal there is a mistake for `-`: nothing would end it).
 */
async function promptFromStdin(given: '-' | ''): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError('PROMPT - reads the prompt from standard input: pipe it in');
  const tooLong = `the prompt on standard input is longer than ${AGENT_MAX_MESSAGE_CHARS} characters`;
  // A character takes at most 4 bytes in UTF-8: more bytes than that cannot be a prompt within the limit.
  const prompt = (await readPipedStdin(4 * AGENT_MAX_MESSAGE_CHARS, tooLong)).trim();
  if (prompt.length === 0)
    throw new UsageError(
      given === '-'
        ? 'the prompt on standard input is empty'
        : 'run needs a PROMPT: none on its command line, and standard input was empty',
    );
  if (prompt.length > AGENT_MAX_MESSAGE_CHARS) throw new UsageError(tooLong);
  return prompt;
}

export async function runCommand(argv: string[]): Promise<number> {
  let options = parseRunArgs(argv, 'run');
  // Each --image is read and checked before anything starts, from where the command was typed.
  const base = process.cwd();
  const images = readImageAttachments(options.imageFiles, base);
  if (!images.ok) {
    process.stderr.write(`bastion: ${images.message}; nothing was run\n`);
    return 2;
  }
  if (options.prompt === '-' || (options.prompt === '' && !options.compact))
    options = { ...options, prompt: await promptFromStdin(options.prompt) };
  const requests = onePrompt(options);
  return runOnHost('run', options, () => requests, { images: images.images, base });
}

/** `bastion chat`: `run`'s options, then each line typed is a prompt to the same session. */
export async function chatCommand(argv: string[]): Promise<number> {
  // `/image PATH` reads from where the command was typed, not the workspace the host then enters.
  return runOnHost('chat', parseRunArgs(argv, 'chat'), typedPrompts, { images: [], base: process.cwd() });
}

/** What the command's runs heard from their provider that outlives them. */
interface HeardFromProvider {
  /** A run was refused with 401: the credential sent was not accepted, or none was and one is needed. */
  unauthorized: boolean;
}

/**
 * Start the host as `command`, define `--endpoint`'s endpoint for the command's life (kept after
 * it when it has a key or refused a run for want of one: releaseEndpoint), and send `requests`, the
 * first prompt with `attachments`' images.
 */
async function runOnHost(
  command: 'run' | 'chat',
  given: RunOptions,
  requests: Steps,
  attachments: Attachments,
): Promise<number> {
  let options = given;
  const userData = resolveUserDataPath(options.home);
  const workspace = enterWorkspace(options.workspace);
  const host = await startOwningHost(
    {
      command,
      userData,
      workspaces: [workspace],
      ...(options.endpoint === undefined ? {} : { allowEndpoints: [options.endpoint] }),
      // A command the host's policy asks about is asked here, by the host, when there is a terminal.
      ...(process.stdin.isTTY ? { askPrompt: hostAskPrompt(options.json) } : {}),
    },
    `nothing was run; give the prompt in its UI (bastion open${homeFlag(options.home)}), or stop it first (Ctrl-C where it runs), or use --home DIR for a separate data folder`,
    // Said on the run's own lines: a refused command (`[run] … refused: CODE`), an MCP server that
    // is not running (after the run, with its reason), no outer sandbox (below), a model request
    // that failed on its way (the retry line, or `run failed: CODE: …` with what to check for that
    // code; the warning's network-and-proxy advice misled when an endpoint was simply not running).
    // A refused write is said again, as it names the policy rule that held it back, which its
    // `[tool]` line does not.
    ['command.refused', 'mcp.failed', 'transport.failed', ...(options.json ? [] : ['host.sandbox-unavailable'])],
  );
  if (!host) return 2;
  let made: { id: string; baseUrl: string } | undefined;
  const heard: HeardFromProvider = { unauthorized: false };
  try {
    if (options.endpoint !== undefined) {
      const endpoint = await ensureEndpointDefined(
        host,
        options.endpoint,
        options.model === undefined ? [] : [options.model],
        options.endpointSettings,
      );
      if (endpoint.created) made = endpoint;
      options = { ...options, provider: endpoint.id, endpoint: endpoint.baseUrl };
    }
    if (!options.json && host.capabilities.sandbox === 'none') {
      process.stderr.write(
        `bastion: no outer sandbox (${host.capabilities.reason ?? 'unavailable'}); the shell is withheld\n`,
      );
    }
    return await runPrompt(host, command, options, workspace, requests, attachments, heard);
  } finally {
    if (made !== undefined) {
      const kept = await releaseEndpoint(host, made.id, heard.unauthorized).catch(() => false);
      if (kept && heard.unauthorized && !options.json)
        process.stderr.write(
          `bastion: ${made.id} stays defined for ${terminalLine(made.baseUrl)}, to hold that key; remove it in the UI (Settings → Custom endpoints)\n`,
        );
    }
    await host.stop();
  }
}
