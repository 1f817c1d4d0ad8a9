/**
 * The command line's help and its answers to a mistyped name, as the real built CLI prints them:
 * a mistyped command, action or option gets one line naming what was likely meant and where the
 * help is (exit 2, nothing written); `bastion --help` is a page of commands, a line each, whose
 * details are in each command's own --help and whose commands are README's.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '@bastion/test-support';

const CLI = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const README = fileURLToPath(new URL('../../../README.md', import.meta.url));

function cli(args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', input: '' });
}

/** `bastion COMMAND --home HOME REST…` for `args` = [COMMAND, …REST], HOME a folder not made yet. */
function cliInNewHome(args: readonly string[]): ReturnType<typeof cli> & { command: string; home: string } {
  const home = join(makeTempDir(), 'home');
  const [command = '', ...rest] = args;
  return { ...cli([command, '--home', home, ...rest]), command, home };
}

describe('a mistyped name', () => {
  it.each([
    [['polcy'], 'unknown command "polcy" — did you mean "policy"?', 'Run "bastion --help" for the list of commands.'],
    [
      ['sesions'],
      'unknown command "sesions" — did you mean "sessions"?',
      'Run "bastion --help" for the list of commands.',
    ],
    [
      ['policy', 'lst'],
      'unknown policy command "lst" — did you mean "list"?',
      'Run "bastion policy --help" for its usage.',
    ],
    [
      ['mcp', 'rstart', 'notes'],
      'unknown mcp command "rstart" — did you mean "restart"?',
      'Run "bastion mcp --help" for its usage.',
    ],
    [
      ['secrets', 'st', 'openai'],
      'unknown secrets command "st" — did you mean "set"?',
      'Run "bastion secrets --help" for its usage.',
    ],
    [
      ['sessions', 'exprot', 'ses_1'],
      'unknown sessions command "exprot" — did you mean "export"?',
      'Run "bastion sessions --help" for its usage.',
    ],
    [
      ['policy', 'list', '--jsn'],
      'unknown option "--jsn" — did you mean "--json"?',
      'Run "bastion policy --help" for its usage.',
    ],
    [
      ['run', '--mdoe', 'auto', 'hi'],
      'unknown option "--mdoe" — did you mean "--mode"?',
      'Run "bastion run --help" for its usage.',
    ],
    [
      ['changes', '--stats'],
      'unknown option "--stats" — did you mean "--stat"?',
      'Run "bastion changes --help" for its usage.',
    ],
    [
      ['--workspace', '.', 'start'],
      '"--workspace" is an option, and options go after the command: bastion start --workspace …',
      'Run "bastion --help" for the list of commands.',
    ],
    [
      ['--verbose'],
      '"--verbose" is an option, and options go after the command: bastion COMMAND [OPTIONS]',
      'Run "bastion --help" for the list of commands.',
    ],
    [
      ['-p', 'explain src'],
      'unknown command "-p": for one prompt, its answer printed, use bastion run PROMPT',
      'Run "bastion --help" for the list of commands.',
    ],
    [
      ['exec', 'explain src'],
      'unknown command "exec": for one prompt, its answer printed, use bastion run PROMPT',
      'Run "bastion --help" for the list of commands.',
    ],
  ])(
    'bastion %j exits 2 with one line naming what was meant, then where the help is, and writes nothing',
    (args, said, pointer) => {
      const home = join(makeTempDir(), 'home');
      const result = cli([...args, '--home', home]);
      expect(result.status).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(`bastion: ${said}\n${pointer}\n`);
      expect(existsSync(join(home, 'host'))).toBe(false);
    },
  );

  it('a name near no command, action or option is named alone (an action with the ones there are)', () => {
    expect(cli(['deploy']).stderr).toBe(
      'bastion: unknown command "deploy"\nRun "bastion --help" for the list of commands.\n',
    );
    expect(cli(['models', 'frob']).stderr).toBe(
      'bastion: unknown models command "frob" (default)\nRun "bastion models --help" for its usage.\n',
    );
    expect(cli(['doctor', '--frobnicate']).stderr).toBe(
      'bastion: unknown option "--frobnicate"\nRun "bastion doctor --help" for its usage.\n',
    );
  });

  it('a mistyped name is printed inert: its escape sequences do not reach the terminal', () => {
    const result = cli(['pol\u001b[2Jcy']);
    expect(result.status).toBe(2);
    expect(result.stderr).not.toContain('\u001b');
  });
});

describe('an option without its value, or an argument a command does not take', () => {
  it.each([
    [['run', '--session'], '--session needs a value'],
    [['sessions', '--search'], '--search needs a value'],
    [
      ['run', '--session', '--continue', 'hi'],
      '--session needs a value, and "--continue" after it reads as an option (a value starting with - is written --session=--continue)',
    ],
    [['run', '--continue=yes', 'hi'], '--continue takes no value (it was given "yes")'],
    [['run', '--image', '', 'hi'], '--image needs a FILE (it was given an empty path)'],
    [['start', 'extra'], 'unexpected argument "extra": this command takes only options'],
    [['doctor', 'now'], 'unexpected argument "now": this command takes only options'],
    [['undo', 'last'], 'unexpected argument "last": this command takes only options'],
    [['rewind', 'last'], 'unexpected argument "last": this command takes only options'],
    [['changes', 'all'], 'unexpected argument "all": this command takes only options'],
    [['sessions', 'extra'], 'unexpected argument "extra": sessions takes only options, or export ID'],
    [['mcp', 'list', 'docs'], 'mcp list takes options only, not docs'],
    [['policy'], 'policy needs an action: list, add, remove or audit'],
    [['mcp'], 'mcp needs an action: list, add, remove or restart'],
  ])(
    'bastion %j exits 2 naming the option or argument and what it needs, then the command’s usage, and writes nothing',
    (args, said) => {
      const { command, home, ...result } = cliInNewHome(args);
      expect(result.status).toBe(2);
      expect(result.stdout).toBe('');
      const expected = `bastion: ${said}\n\nUsage:\n  bastion ${command} `;
      expect(result.stderr.slice(0, expected.length)).toBe(expected);
      expect(existsSync(join(home, 'host'))).toBe(false);
    },
  );

  it('bastion start FOLDER says how to work in that folder: --workspace FOLDER', () => {
    const folder = makeTempDir();
    const result = cli(['start', folder]);
    expect(result.status).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      `bastion: unexpected argument "${folder}": this command takes only options (to work in that folder: --workspace ${folder})`,
    );
  });
});

describe('an id that is no session or run id', () => {
  const session = (given: string) =>
    `needs a session id (ses_ and 8 or more letters, digits, - or _, as bastion sessions lists them), not "${given}"`;
  it.each([
    [['run', '--session', 'ses_nope', 'hi'], `--session ${session('ses_nope')}`],
    [['changes', '--session', 'abc'], `--session ${session('abc')}`],
    [['sessions', 'export', 'ses_x'], `export ${session('ses_x')}`],
    [['rewind', '--session', 'x'], `--session ${session('x')}`],
    [
      ['undo', '--run', 'nope'],
      '--run needs a run id (run_ and 8 or more letters, digits, - or _, as undo and rewind print them), not "nope"',
    ],
  ])(
    'bastion %j exits 2 saying what such an id looks like and where they are listed, and writes nothing',
    (args, said) => {
      const { home, ...result } = cliInNewHome(args);
      expect(result.status).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.split('\n')[0]).toBe(`bastion: ${said}`);
      expect(existsSync(home)).toBe(false);
    },
  );
});

describe('bastion help COMMAND', () => {
  it('prints that command’s usage, as bastion COMMAND --help does, and exits 0', () => {
    const help = cli(['help', 'run']);
    expect(help.status).toBe(0);
    expect(help.stdout).toBe(cli(['run', '--help']).stdout);
  });

  it('a name that is no command is said so, exit 2', () => {
    const help = cli(['help', 'polcy']);
    expect(help.status).toBe(2);
    expect(help.stderr).toBe(
      'bastion: unknown command "polcy" — did you mean "policy"?\nRun "bastion --help" for the list of commands.\n',
    );
  });
});

describe('bastion --help', () => {
  const help = cli(['--help']);
  /** Each command's --help, run once for all the tests below (each run is a process of its own). */
  const helps = new Map<string, ReturnType<typeof cli>>();
  const helpOf = (command: string) => {
    const known = helps.get(command);
    if (known) return known;
    const printed = cli([command, '--help']);
    helps.set(command, printed);
    return printed;
  };
  const table = /\nCommands:\n((?: {2}\S.*\n)+)/.exec(help.stdout)?.[1] ?? '';
  const commands = table.split('\n').flatMap((line) => /^ {2}([a-z]+) {2,}\S/.exec(line)?.[1] ?? []);

  it('is one screen: a usage line, the commands a line each, the common options, and where the details are', () => {
    expect(help.status).toBe(0);
    expect(help.stdout.split('\n').length).toBeLessThan(40);
    expect(help.stdout).toMatch(/^Usage: bastion COMMAND \[OPTIONS\] .*bastion COMMAND --help/);
    expect(commands).toEqual([
      'start',
      'run',
      'chat',
      'sessions',
      'changes',
      'models',
      'undo',
      'rewind',
      'open',
      'secrets',
      'policy',
      'mcp',
      'doctor',
    ]);
    for (const option of ['--workspace DIR', '--home DIR', '--mode MODE', '--json'])
      expect(help.stdout).toContain(`  ${option}`);
  });

  it('each command it lists has its own --help: its synopsis, its options and its paragraph of details', () => {
    for (const command of commands) {
      const own = helpOf(command);
      expect(own.status).toBe(0);
      expect(own.stdout).toMatch(new RegExp(`^Usage:\n {2}bastion ${command}( |\n)`));
      expect(own.stdout).toMatch(new RegExp(`\n\n${command}[: ]`));
    }
    // The details it leaves out are still a command's: run's modes and exit codes, start's link.
    expect(helpOf('run').stdout).toContain('--mode read-only refuses every write');
    const start = helpOf('start');
    expect(start.stdout).toContain('--allow-endpoint URL');
    expect(start.stdout).toContain('start: start Bastion and open its UI');
  });

  it('each command’s --help explains, under Options, every option its synopsis names', () => {
    const unexplained = commands.flatMap((command) => {
      const [synopsis = '', options = ''] = helpOf(command).stdout.split('\n\nOptions:\n');
      const named = new Set(synopsis.match(/--[\w-]+/g) ?? []);
      return [...named]
        .filter((option) => !new RegExp(`^ {2}${option}(?![\\w-])`, 'm').test(options))
        .map((option) => `${command} ${option}`);
    });
    expect(unexplained).toEqual([]);
  });

  it('no line of bastion --help, of a command’s --help or of chat’s /help is wider than 100 columns', () => {
    // The help is wrapped by hand to this width, so that none of it is cut or wrapped mid-word on a terminal that wide.
    const columns = 100;
    const chat = spawnSync(
      process.execPath,
      [CLI, 'chat', '--provider', 'demo', '--home', join(makeTempDir(), 'home'), '--workspace', makeTempDir()],
      { encoding: 'utf8', input: '/help\n' },
    );
    expect(chat.stderr).toContain('  /exit ');
    const pages = [
      ['--help', help.stdout],
      ...commands.map((command) => [`${command} --help`, helpOf(command).stdout]),
      ['chat /help', /bastion: a line is a prompt[^]*?\n {2}\/exit .*(?:\n {25}.*)*/.exec(chat.stderr)?.[0]],
    ];
    const wide = pages.flatMap(([page, text]) =>
      (text ?? '').split('\n').flatMap((line) => ([...line].length > columns ? [`${page}: ${line}`] : [])),
    );
    expect(wide).toEqual([]);
  });

  it('each command’s --help fills its lines: no line shorter than 60 columns ends mid-sentence', () => {
    const broken = commands.flatMap((command) => {
      const lines = helpOf(command).stdout.split('\n');
      // A sentence that goes on does not end the line with a full stop or colon, and the next line
      // starts with a lowercase word or a parenthesis, not indented.
      return lines.flatMap((line, index) =>
        line !== '' && line.length < 60 && !/[.:]$/.test(line) && /^[a-z(]/.test(lines[index + 1] ?? '')
          ? [`${command}: ${line}`]
          : [],
      );
    });
    expect(broken).toEqual([]);
  });

  it('chat --help names every option of run’s that chat takes (all but --image and --compact)', () => {
    const synopsisOptions = (command: string) =>
      new Set(/^Usage:\n([\s\S]*?)\n\n/.exec(helpOf(command).stdout)?.[1]?.match(/--[\w-]+/g) ?? []);
    const chat = synopsisOptions('chat');
    const missing = [...synopsisOptions('run')].filter(
      (option) => option !== '--image' && option !== '--compact' && !chat.has(option),
    );
    expect(missing).toEqual([]);
  });

  it("README's Commands table has a row for each command it lists, in the same order, and no other command", () => {
    const readme = readFileSync(README, 'utf8');
    const section = readme.slice(readme.indexOf('\n## Commands\n'), readme.indexOf('\n## Working with the agent\n'));
    const rows = section.split('\n').flatMap((line) => /^\| `bastion ([a-z]+)/.exec(line)?.[1] ?? []);
    expect([...new Set(rows)]).toEqual(commands);
  });
});
