import { statSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import {
  AGENT_MAX_IMAGES,
  CLI_SESSIONS_LISTED,
  DEFAULT_CONTEXT_WINDOW_TOKENS,
  IMAGE_MAX_BYTES,
  runIdSchema,
  SESSION_CHANGES_MAX_FILES,
  sessionIdSchema,
} from '@bastion/protocol';
import { closestName } from './closest-name.js';

/**
 * A command-line mistake, exit code 2: printed with the usage of the command it was made in
 * (usageHint), or, for a name the parser does not know (`unknownName`: a command, an action, an
 * option), alone with where the help is, so the one line that matters stays in view.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly unknownName: boolean;
  constructor(message: string, options: { unknownName?: boolean } = {}) {
    super(message);
    this.unknownName = options.unknownName ?? false;
  }
}

/**
 * `given` is no `kind` (`command`, `policy command`, `option`) of `known`: the likeliest one it
 * meant, or else, when `listKnown`, every one of them (a short list of actions, not the commands).
 */
export function unknownNameError(
  kind: string,
  given: string,
  known: readonly string[],
  { listKnown = false }: { listKnown?: boolean } = {},
): UsageError {
  const meant = closestName(given, known);
  const choices = known.length > 1 ? `${known.slice(0, -1).join(', ')} or ${known.at(-1)}` : known.join('');
  const hint = meant !== undefined ? ` — did you mean "${meant}"?` : listKnown ? ` (${choices})` : '';
  return new UsageError(`unknown ${kind} "${given}"${hint}`, { unknownName: true });
}

/**
 * `given`, what `what` (an option, or `export`) was given, as a session or run id; else a UsageError
 * saying what such an id looks like and where they are listed (`ses_nope` starts like one too).
 */
export function checkedId(what: string, given: string, kind: 'session' | 'run'): string {
  if ((kind === 'session' ? sessionIdSchema : runIdSchema).safeParse(given).success) return given;
  const listed = kind === 'session' ? 'as bastion sessions lists them' : 'as undo and rewind print them';
  const prefix = kind === 'session' ? 'ses_' : 'run_';
  throw new UsageError(
    `${what} needs a ${kind} id (${prefix} and 8 or more letters, digits, - or _, ${listed}), not ${JSON.stringify(given)}`,
  );
}

/** `--workspace DIR` and `--home DIR`, which every command that works on a project takes. */
export const WORKSPACE_OPTIONS = {
  workspace: { type: 'string' },
  home: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

/** Said after a refusal of a session named with --session that works in another folder. */
export const OTHER_FOLDER_HINT = ' (--workspace names the folder to look in)';

/**
 * `parseArgs` (strict unless `config` says otherwise), with a bad flag or value as a UsageError:
 * an option it does not take as an unknownNameError naming the nearest one it does, any other
 * mistake in words that name the option or argument and what it needs (misreadArgument).
 */
export function parseCommandLine<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    const unknown = (error as { code?: unknown }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknownOption(config);
    throw unknown || misreadArgument(config) || new UsageError((error as Error).message);
  }
}

/**
 * The first option given without the value it needs (or with one it does not take), or the first
 * argument a command that takes none was given, in the CLI's own words: parseArgs' own messages
 * ("Option '--session <value>' argument missing") name its syntax, not what to type. A folder given
 * where a command takes none is pointed to --workspace, as `start DIR` is a common guess.
 */
function misreadArgument(config: ParseArgsConfig): UsageError | undefined {
  const options = config.options ?? {};
  const { tokens } = parseArgs({ ...config, strict: false, tokens: true });
  for (const token of tokens) {
    if (token.kind === 'positional' && config.allowPositionals !== true) {
      const folder = Object.hasOwn(options, 'workspace') && isFolder(token.value);
      const workspace = /^[\w./~-]+$/.test(token.value) ? token.value : JSON.stringify(token.value);
      return new UsageError(
        `unexpected argument ${JSON.stringify(token.value)}: this command takes only options${folder ? ` (to work in that folder: --workspace ${workspace})` : ''}`,
      );
    }
    if (token.kind !== 'option' || !Object.hasOwn(options, token.name)) continue;
    const takesValue = options[token.name]?.type === 'string';
    if (takesValue && token.value === undefined) return new UsageError(`${token.rawName} needs a value`);
    if (takesValue && token.inlineValue === false && token.value.length > 1 && token.value.startsWith('-'))
      return new UsageError(
        `${token.rawName} needs a value, and ${JSON.stringify(token.value)} after it reads as an option (a value starting with - is written ${token.rawName}=${token.value})`,
      );
    if (!takesValue && token.value !== undefined)
      return new UsageError(`${token.rawName} takes no value (it was given ${JSON.stringify(token.value)})`);
  }
  return undefined;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The first option on the command line `config` does not take, as an unknownNameError; undefined when none is found. */
function unknownOption(config: ParseArgsConfig): UsageError | undefined {
  const options = config.options ?? {};
  const { tokens } = parseArgs({ ...config, strict: false, tokens: true });
  const token = tokens.find((each) => each.kind === 'option' && !Object.hasOwn(options, each.name));
  if (token?.kind !== 'option') return undefined;
  // --help is every command's (cli.ts answers it before the command's own parser runs).
  const known = Object.entries(options).flatMap(([name, option]) => [
    `--${name}`,
    ...(option.short === undefined ? [] : [`-${option.short}`]),
  ]);
  known.push('--help');
  return unknownNameError('option', token.rawName, known);
}

/**
 * The commands a line each, the options most runs need and where the rest is: what `bastion
 * --help` prints. Each command's own text (commandUsage) is cut from COMMAND_DETAILS.
 */
export const USAGE = `Usage: bastion COMMAND [OPTIONS]   (bastion COMMAND --help for its usage, options and details)

Commands:
  start      start Bastion and open its UI in the browser
  run        run one prompt in a session and stream the answer and tool activity
  chat       prompt one session line by line on the terminal
  sessions   list the sessions that worked in a folder, or export one as markdown
  changes    the diff of what a session's file tools changed
  models     list the models on offer, or set the default one
  undo       put back the files a run wrote
  rewind     take a session back to before its latest prompt
  open       a fresh link to the UI of the running Bastion
  secrets    store or delete a provider's API key
  policy     list, add or remove the rules checked before each tool call; audit the decisions
  mcp        list, add, remove or restart the MCP servers that give the agent tools
  doctor     check the platform, the sandbox and the data folder

Common options:
  --workspace DIR   project folder the agent may work in (default: the current folder)
  --home DIR        Bastion's own data folder (default: $BASTION_HOME or ~/.bastion)
  --mode MODE       (run, chat) read-only, accept-edits (the default: commands beyond inspection
                    are asked about) or auto (commands run without asking)
  --provider ID --model ID
                    (run, chat) the model to use (bastion models lists them; demo needs no key)
  --json            one JSON object a line on stdout
  --version         print Bastion's version

Examples:
  bastion start
  bastion run --provider demo "read README.md"
  bastion run --continue "now add a test"
  bastion policy add allow -- npm test
`;

/**
 * Every command's synopsis, the options they take and a paragraph each: cut up by commandUsage
 * and usageHint, never printed whole.
 */
const COMMAND_DETAILS = `Usage:
  bastion start [--workspace DIR] [--home DIR] [--no-open] [--json] [--verbose]
                [--unsandboxed-shell]
                [--allow-endpoint URL]… [--context-window TOKENS] [--endpoint-images]
  bastion doctor [--json] [--home DIR]
  bastion run [--workspace DIR] [--home DIR] [--continue | --session ID]
              [--mode read-only|accept-edits|auto] [--ask-before-writes] [--provider ID]
              [--model ID] [--reasoning low|medium|high] [--image FILE]… [--json] PROMPT
  bastion run --compact (--continue | --session ID) [--workspace DIR] [--home DIR] [--json]
  bastion run --endpoint URL --model ID [--context-window TOKENS] [--endpoint-images]
              [--workspace DIR] [--home DIR] [--mode …] [--image FILE]… [--json] PROMPT
  bastion chat [--workspace DIR] [--home DIR] [--continue | --session ID] [--mode …]
               [--ask-before-writes] [--provider ID] [--model ID | --endpoint URL --model ID
               [--context-window TOKENS] [--endpoint-images]] [--reasoning low|medium|high] [--json]
  bastion sessions [--workspace DIR | --all] [--search TEXT] [--home DIR] [--json]
  bastion sessions export ID [--home DIR]
  bastion models [--home DIR] [--json]
  bastion models default PROVIDER/MODEL [--home DIR]
  bastion undo [--workspace DIR] [--home DIR] [--session ID] [--run ID] [--dry-run]
  bastion rewind [--workspace DIR] [--home DIR] [--session ID] [--run ID] [--keep-files] [--dry-run]
  bastion changes [--workspace DIR] [--home DIR] [--session ID] [--stat] [--json]
  bastion secrets set PROVIDER [--home DIR]
  bastion secrets delete PROVIDER [--home DIR]
  bastion policy list [--workspace DIR | --global] [--home DIR] [--json]
  bastion policy add DECISION [--workspace DIR | --global] [--tool NAME]… [--path GLOB]…
                     [--root] [--reason TEXT] [--id ID] [--home DIR] [-- COMMAND [ARG…]]
  bastion policy remove ID [--workspace DIR | --global] [--home DIR]
  bastion policy audit [--session ID] [--home DIR] [--json]
  bastion mcp list [--workspace DIR] [--home DIR] [--json]
  bastion mcp add NAME [--env NAME=VALUE | --env NAME]… [--home DIR] -- COMMAND [ARG…]
  bastion mcp remove NAME [--home DIR]
  bastion mcp restart NAME [--workspace DIR] [--home DIR]
  bastion open [--home DIR] [--no-open] [--json]

Options:
  --workspace DIR   project folder the agent may work in (default: the current folder)
  --home DIR        Bastion's own data folder (default: $BASTION_HOME or ~/.bastion)
  --continue        (run, chat) the newest session of the workspace, with its history
  --session ID      the session (ses_…) to work on, not the newest (bastion sessions lists them)
  --mode MODE       (run, chat) read-only, accept-edits (the default: commands beyond inspection
                    are asked about) or auto (commands run without asking)
  --ask-before-writes
                    (run, chat) ask before each file edit
  --provider ID     (run, chat) the provider of the model to use (bastion models lists them; demo
                    is offline and needs no key)
  --model ID        (run, chat) the model to use (the provider's default without it); alone, also
                    PROVIDER/MODEL as bastion models lists it
  --reasoning low|medium|high
                    (run, chat) how much a reasoning model thinks, kept with the session
  --compact         (run) summarise the session's older turns now, instead of a PROMPT
  --all             (sessions) the sessions of every folder
  --search TEXT     (sessions) only those whose title, prompts or replies hold TEXT
  --stat            (changes) one line a file instead of the diffs
  --run ID          (undo, rewind) that run (run_…) instead of the session's last
  --keep-files      (rewind) leave the files as they are; only the conversation goes back
  --dry-run         (undo, rewind) say what would be done, and do nothing
  --global          (policy) the rules of every project instead of the workspace's
  --tool NAME       (policy add, repeatable) a tool the rule matches (run_command, write_file, …)
  --path GLOB       (policy add, repeatable) a path the rule matches, relative to the workspace
  --root            (policy add) the rule matches a command aimed at the workspace root
  --reason TEXT     (policy add) why, shown when the rule applies
  --id ID           (policy add) the rule's id (made for it without one)
  --env NAME=VALUE  (mcp add, repeatable) a variable for the server; --env NAME takes the value
                    NAME has in your environment
  --no-open         print the launch URL instead of opening a browser
  --json            one JSON object a line on stdout (for start, the first is the ready line)
  --verbose         copy every log record to stderr
  --allow-endpoint URL
                    (start, repeatable) consent to provider requests to this custom
                    OpenAI-compatible endpoint's exact origin for this run of Bastion; only
                    localhost, *.localhost and IP literals are eligible
  --endpoint URL    (run, chat) use this OpenAI-compatible endpoint for the session, with the
                    same consent and eligibility as --allow-endpoint; it is named by its URL
                    (http://127.0.0.1:8080/v1 is endpoint-127-0-0-1-8080-v1), and one that
                    needs a key takes it from bastion secrets set endpoint-127-0-0-1-8080-v1
                    (after the run it refused with 401, which keeps it defined for that), sent
                    only to its own origin
  --context-window TOKENS
                    (start, run, chat) the context window of the --allow-endpoint / --endpoint
                    models, saved with the endpoint; older turns are summarised as a
                    session nears it (default ${DEFAULT_CONTEXT_WINDOW_TOKENS})
  --endpoint-images (start, run, chat) the --allow-endpoint / --endpoint models take images (a
                    vision model such as LLaVA or Qwen-VL), saved with the endpoint; Settings has
                    the same as "Its models take images"
  --image FILE      (run, repeatable, up to ${AGENT_MAX_IMAGES}) send the image in FILE with PROMPT:
                    PNG, JPEG, GIF or WebP by its first bytes, at most ${IMAGE_MAX_BYTES} bytes
                    (${IMAGE_MAX_BYTES / (1024 * 1024)} MiB), to a model that takes images (bastion models marks them:
                    takes --image); the CLI reads it with your own rights, outside the sandbox
  --unsandboxed-shell
                    DANGEROUS: when the outer sandbox is unavailable, run the agent's shell
                    anyway, unsandboxed (without it the shell is withheld); no effect when
                    the sandbox is available

run: start Bastion, run one PROMPT in a new session and stream the answer and tool activity
(the project instruction files the model was given, each command with its exit code and first
lines of output, each edit's diff, then the changed files and token usage); exit 0 when the run
finishes, 1 when it fails or finishes with a refused call its last line names, 2 for a provider
or model not on offer (the valid ones are listed) or no session to continue, 130 when Ctrl-C
stops it (the run is stopped cleanly first). The refusals that make a finished run exit 1,
whatever the agent did next: without a terminal, a call refused for want of an approval (the
agent's, or the host's own question); a file write refused by --mode read-only. A call you deny
at the terminal does not, nor a command read-only mode refuses (inspection may get there).
PROMPT - reads the prompt from standard input (as no PROMPT does when standard input is piped:
echo PROMPT | bastion run); @PATH in PROMPT names a file of the workspace.
--mode read-only refuses every write and runs only inspection commands; --mode auto lets commands
run without asking (informed consent); otherwise approvals are asked on the terminal, and denied
without one. --ask-before-writes asks before each file edit. --provider demo is an offline,
deterministic demo model (no API key needed). --continue sends PROMPT to the newest session of
the workspace, --session ID to that one, with its history; the session keeps its mode and model
unless --mode, --provider or --model change them.
--reasoning sets how much a reasoning model thinks (OpenAI's and ChatGPT's GPT-5 family, o4-mini,
Claude's extended thinking: bastion models marks them): the session keeps it; a model that takes
none refuses it.
--compact, with --continue or --session, takes no PROMPT: the session's model summarises its turns
before the last exchange now (as it does on its own near 80% of its context window).
--image FILE (repeatable) sends the image with PROMPT; each is checked before anything starts (a
regular file, its size, its type by its first bytes, the count, the model taking images) and a
refusal exits 2 naming the file, with no session made. The prompt's images are printed as
[image NAME (PNG, N bytes)] lines (with --json, the run-started line's images: id, type, size and
name as stored, never the bytes).

chat: run's options without a PROMPT, then each line typed (or piped in) is a prompt to the same
session, run in turn as with run, approvals asked on the terminal; at a terminal a line ending in
\\ goes on to the next, and a paste is one prompt however many lines it holds. A line /init asks
the agent to write the project's AGENTS.md, /compact summarises the session's older turns,
/rewind goes back to before the last prompt (its files put back; --keep-files leaves them) and puts
it back on the line to edit (its images attached again), /image PATH attaches an image to the
next prompt (checked as --image is), /image lists those attached and /image --clear drops them,
/model lists the models on offer and /model PROVIDER/MODEL switches the session to one,
/reasoning shows the session's reasoning effort and /reasoning low|medium|high|default changes
it, /plan prints the agent's last plan again, /changes what the session's file tools changed so
far (as changes --stat), /mcp the MCP servers here, /NAME [ARGS] your saved prompt
<home>/prompts/NAME.md, /help lists these (Tab completes them; ArrowUp brings back earlier lines;
another /NAME is refused, not sent); /exit (or /quit, exit, quit), the end of input or Ctrl-D ends
it, Ctrl-C stops the run going (at the prompt it drops what is typed, and at an empty prompt ends
it). Exit with the last run's code (130 when Ctrl-C stopped it).

sessions: the newest ${CLI_SESSIONS_LISTED} sessions that worked in the workspace (of every one with --all),
each with its id, when it last changed, how its last run ended (or that it needs approval), its
model, mode, (with --all) its folder, and title, under a line naming those columns; --search TEXT
lists only those whose title, prompts or replies hold TEXT (ASCII letters in either case); --json
prints one session object a line, and no heading.
sessions export ID prints that session as markdown, as the UI's Export saves it: its prompts,
replies and tool calls (each with its input on one line; the outputs stay in Bastion), through the
running Bastion when one owns the home.

models: every model a session can use now, one a line as PROVIDER/MODEL with its name and context
window, the default for new sessions marked *; a provider that cannot run now says why. models
default PROVIDER/MODEL makes that the default (what run and chat use without --provider, and
what a message on the UI's home page starts with); a model its provider does not offer is refused.

undo: put back the files a run wrote with write_file/edit_file (earlier bytes restored, files
it created removed), by default the last run of the newest session in the workspace, and print
each file; --dry-run only says what it would do. Refused, touching nothing, when a file changed
since the run, a run is going or the run was already undone (exit 1; bastion rewind goes further
back, a prompt at a time); what the run's commands changed is never restored. Exit 2 when no
session worked in the workspace, --session or --run names none, or the session has no run.

rewind: take a session (by default the newest in the workspace) back to before its latest prompt
still in the conversation, or the prompt of --run: that prompt and every turn after it are no
longer sent to the model (they stay in the transcript, marked rewound), and the files those turns
wrote are put back as undo does (--keep-files leaves them); prints the prompt, to send again.
Refused, touching nothing, when a file changed since (then --keep-files still goes back) or a run
is going (exit 1); --dry-run only says what it would do. Exit 2 when no session worked in the
workspace, or --session or --run names none.

changes: what the file tools (write_file, edit_file) of a session changed so far, from before its
first write to now: by default the newest session in the workspace, or --session ID. Prints each
file's unified diff, one after another, made inert for a terminal: a patch that git apply -R takes
back when no diff was cut; a file without a diff (its earlier version not kept, not text, too large,
unreadable) gets a # line saying why. The count of files and lines, and what the patch leaves out (a
cut diff, files past the first ${SESSION_CHANGES_MAX_FILES}, what the session's commands changed), go to stderr.
--stat prints one line a file instead: its status, path and +added −removed lines; --json the
answer as one JSON object. Through the running Bastion when one owns the home. Exit 2 when no
session worked in the workspace, or --session names none or one of another folder.

secrets set PROVIDER: store an API key (openai, anthropic, openrouter or a custom endpoint id)
in auth.json; the key is read from the terminal without echo (Ctrl-C or Ctrl-D cancels, exit 130),
or from stdin when piped. An endpoint's id is its name in Settings, or for run --endpoint URL the
one the run names (a run refused with 401 says the exact command); bastion models lists them.
secrets delete PROVIDER removes it. Both go through the running Bastion when one owns the home.

policy: the watchdog's rules before every tool call, in <home>/host/policy.json. DECISION is allow,
ask, deny or hard-deny; a rule matches by tool name, by COMMAND and its first ARGs (exact
tokens) and by --path globs relative to the workspace root. Rules apply to the workspace's
project (default: the current folder) or, with --global, to every project. A hard-deny holds
against every other rule, approval and mode; the built-in rules are listed and cannot be removed.
policy audit prints the host's own record of every decision (<home>/host/audit.jsonl).

mcp: the MCP servers in <home>/host/mcp.json, programs that give the agent tools (named
mcp__NAME__TOOL). Bastion runs each over stdio inside the command sandbox, one per workspace:
no network, the project read-only, writable only its own temp folder and its data folder
(<home>/host/mcp-data/NAME, kept between runs, named to it as BASTION_MCP_DATA); it starts when
a run first needs its tools. mcp list prints the file, then each server: its state in the
workspace (through the running Bastion for this home; without one, not running), its command line,
its env names (never their values), its tools, the tools left out and why, and why it failed;
--json prints the listing as one JSON object. mcp add NAME -- COMMAND [ARG…] adds a server (NAME:
up to 24 lower-case letters, digits and -); --env NAME=VALUE gives it a variable, --env NAME the
value NAME has in your environment (kept out of the command line); PATH, HOME, TMPDIR, LANG, TERM,
PWD and BASTION_MCP_DATA are Bastion's. A running Bastion starts it at its next run.
mcp remove NAME takes one out.
mcp restart NAME stops the server and starts it again in the workspace, through the running
Bastion only, and prints its new state; exit 1 when it failed. A mistake on the command line, or a
NAME mcp.json does not name (the line names those it does), exits 2 and changes nothing.

start: start Bastion and open its UI with a one-time launch link (printed instead with --no-open,
or when no browser opener works); Ctrl-C stops it. Only one Bastion runs on a home at a time: a
second start says which one holds it and exits 2.

open: a fresh one-time link to the UI of the Bastion running on this home (reopen a closed tab).

doctor: platform, Node, sandbox packages (and how to install what is missing), userData
permissions and health, the HOME folders sandboxed commands may read, the MCP servers in
mcp.json (or why it cannot be used) and the posture \`start\` would run with; exit 0 only for the
full posture and a usable mcp.json.
`;

const [SYNOPSIS = '', OPTIONS = '', ...PARAGRAPHS] = COMMAND_DETAILS.split('\n\n');

/** The synopsis lines of one command (with their continuation lines); empty for a name that is not a command. */
function synopsisOf(name: string): string[] {
  const lines = SYNOPSIS.split('\n');
  const own: string[] = [];
  for (const [index, line] of lines.entries()) {
    const starts = line.startsWith(`  bastion ${name} `) || line === `  bastion ${name}`;
    const continues = own.length > 0 && /^ {6,}/.test(line) && own.at(-1) === lines[index - 1];
    if (starts || continues) own.push(line);
  }
  return own;
}

/** The Options block's entries (an option's line and the lines indented under it), each with its flag. */
const OPTION_ENTRIES = OPTIONS.split('\n')
  .slice(1)
  .reduce<{ flag: string; lines: string[] }[]>((entries, line) => {
    const flag = /^ {2}(--[\w-]+)/.exec(line)?.[1];
    if (flag !== undefined) entries.push({ flag, lines: [line] });
    else entries.at(-1)?.lines.push(line);
    return entries;
  }, []);

/**
 * The usage text of one command: its synopsis lines, the shared options it takes and its own
 * paragraph. Undefined for a name that is not a command.
 */
export function commandUsage(name: string): string | undefined {
  const own = synopsisOf(name);
  if (own.length === 0) return undefined;
  const synopsis = own.join('\n');
  const options = OPTION_ENTRIES.filter((entry) => new RegExp(`${entry.flag}(?![\\w-])`).test(synopsis));
  const about = PARAGRAPHS.filter((paragraph) => paragraph.startsWith(`${name}:`) || paragraph.startsWith(`${name} `));
  const blocks = [`Usage:\n${synopsis}`];
  if (options.length > 0) blocks.push(['Options:', ...options.flatMap((entry) => entry.lines)].join('\n'));
  return [...blocks, ...about].join('\n\n').trimEnd() + '\n';
}

/**
 * What follows a command-line mistake made in command `name` (undefined: no command was named):
 * the synopsis of that command, short so the mistake stays in view, then where its help is; only
 * where the help is for a name the parser does not know (`unknownName`), whose message already
 * says what was meant.
 */
export function usageHint(name: string | undefined, unknownName: boolean): string {
  if (name === undefined) return 'Run "bastion --help" for the list of commands.\n';
  if (unknownName) return `Run "bastion ${name} --help" for its usage.\n`;
  return `\nUsage:\n${synopsisOf(name).join('\n')}\n\nOptions and details: bastion ${name} --help\n`;
}
