/** The `bastion` command line: parses the command and runs it (main.ts loads this). */
import { changesCommand } from './commands/changes.js';
import { doctorCommand } from './commands/doctor.js';
import { mcpCommand } from './commands/mcp.js';
import { modelsCommand } from './commands/models.js';
import { policyCommand } from './commands/policy.js';
import { openCommand } from './commands/open.js';
import { chatCommand, runCommand } from './commands/run.js';
import { secretsCommand } from './commands/secrets.js';
import { sessionsCommand } from './commands/sessions.js';
import { startCommand } from './commands/start.js';
import { rewindCommand, undoCommand } from './commands/undo.js';
import { terminalLine } from '@bastion/host';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { outputClosed, stopWhenOutputCloses } from './closed-output.js';
import { commandUsage, unknownNameError, USAGE, usageHint, UsageError } from './usage.js';

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  start: startCommand,
  doctor: doctorCommand,
  run: runCommand,
  chat: chatCommand,
  open: openCommand,
  secrets: secretsCommand,
  policy: policyCommand,
  undo: undoCommand,
  rewind: rewindCommand,
  changes: changesCommand,
  sessions: sessionsCommand,
  models: modelsCommand,
  mcp: mcpCommand,
};

/** Every value `--home` is given in `flags` (read loosely: the command's own parser checks the rest). */
function homeValues(flags: string[]): string[] {
  const { tokens } = parseArgs({
    args: flags,
    strict: false,
    allowPositionals: true,
    tokens: true,
    options: { home: { type: 'string' } },
  });
  return tokens.flatMap((token) =>
    token.kind === 'option' && token.name === 'home' && token.value !== undefined ? [token.value] : [],
  );
}

/** The command a name names; an own key only, so `constructor` or `toString` is no command. */
const commandNamed = (name: string | undefined) =>
  name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;

/** What other coding agents' users type for one prompt printed (Claude Code's -p, Codex's exec). */
const ONE_PROMPT_ALIASES: ReadonlySet<string> = new Set(['-p', '--print', 'exec']);

/**
 * A first word that is no command but says what was meant: another agent's way to run one prompt,
 * or an option typed before the command (`bastion --workspace DIR start`), which goes after it.
 */
function misplacedName(name: string, rest: readonly string[]): UsageError | undefined {
  if (ONE_PROMPT_ALIASES.has(name))
    return new UsageError(`unknown command "${name}": for one prompt, its answer printed, use bastion run PROMPT`, {
      unknownName: true,
    });
  if (!name.startsWith('-')) return undefined;
  const later = rest.find((word) => commandNamed(word) !== undefined);
  return new UsageError(
    `"${name}" is an option, and options go after the command: ${later === undefined ? 'bastion COMMAND [OPTIONS]' : `bastion ${later} ${name} …`}`,
    { unknownName: true },
  );
}

async function main(argv: string[], manifestUrl: URL): Promise<number> {
  const [name, ...rest] = argv;
  if (name === 'help' && rest[0] !== undefined) {
    // `bastion help run`, as `git help commit`: that command's usage.
    if (!commandNamed(rest[0])) throw unknownNameError('command', rest[0], Object.keys(COMMANDS));
    process.stdout.write(commandUsage(rest[0]) ?? USAGE);
    return 0;
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    const manifest = JSON.parse(readFileSync(manifestUrl, 'utf8')) as {
      version: string;
    };
    process.stdout.write(`bastion ${manifest.version}\n`);
    return 0;
  }
  const command = commandNamed(name);
  if (!command) throw misplacedName(name, rest) ?? unknownNameError('command', name, Object.keys(COMMANDS));
  const flags = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
  if (flags.includes('--help') || flags.includes('-h')) {
    process.stdout.write(commandUsage(name) ?? USAGE);
    return 0;
  }
  // Every command takes --home; an empty one would make the current folder the data folder.
  if (homeValues(flags).includes('')) {
    throw new UsageError('--home needs a folder (it was given an empty path); leave it out for ~/.bastion');
  }
  return command(rest);
}

/** Run the command line (`manifestUrl`: the CLI's package.json); the exit code is left in `process.exitCode`. */
export function runCli(argv: string[], manifestUrl: URL): Promise<void> {
  stopWhenOutputCloses();
  return main(argv, manifestUrl).then(
    (code) => {
      process.exitCode = outputClosed() ? 0 : code;
    },
    (error: unknown) => {
      if (outputClosed()) {
        process.exitCode = 0;
        return;
      }
      if (error instanceof UsageError) {
        const [name] = argv;
        // The message may quote what was typed: made inert, as a pasted command line can hold anything.
        process.stderr.write(
          `bastion: ${terminalLine(error.message)}\n${usageHint(commandNamed(name) ? name : undefined, error.unknownName)}`,
        );
        process.exitCode = 2;
        return;
      }
      const code = (error as { code?: unknown }).code;
      // A message may quote the daemon's answer: made inert like everything else from the sidecar.
      process.stderr.write(
        `bastion: ${terminalLine(`${typeof code === 'string' ? `${code}: ` : ''}${(error as Error).message}`)}\n`,
      );
      process.exitCode = 1;
    },
  );
}
