/**
 * `bastion sessions` as real CLI processes: sessions made by `bastion run` (real host, sandboxed
 * sidecar, demo model) listed for their folder, or all of them, newest first, titled after their
 * first message; through the running `bastion start`'s control socket when one owns the home.
 */
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '@bastion/test-support';
import { runCli, startHolder, stoppedAfterEachTest, userMessagesBySession } from './support/cli-process.js';

const started = stoppedAfterEachTest();

/** A home and two project folders in a fresh temp dir (the setup removes it after the file). */
function project(): { home: string; first: string; second: string } {
  const root = makeTempDir();
  const [first, second] = ['first', 'second'].map((name) => join(root, name)) as [string, string];
  for (const folder of [first, second]) {
    mkdirSync(folder);
    writeFileSync(join(folder, 'README.md'), '# project\n');
  }
  return { home: join(root, 'home'), first, second };
}

async function runIn(home: string, workspace: string, prompt: string): Promise<void> {
  const result = await runCli(['run', '--provider', 'demo', '--home', home, '--workspace', workspace, prompt]);
  expect(result.code, result.stderr).toBe(0);
}

/** The `"event":"control.request"` lines of the home's host log for `method`. */
function controlRequests(home: string, method: string): number {
  return readFileSync(join(home, 'logs', 'host.log'), 'utf8')
    .split('\n')
    .filter((line) => line.includes('"event":"control.request"') && line.includes(`"method":"${method}"`)).length;
}

const LINE = /^(ses_[\w-]+) {2}\d{4}-\d\d-\d\d \d\d:\d\d {2}finished {6} {2}demo\/demo {2}accept-edits {2}(.*)$/;
/** A line of `sessions --all`: LINE with the session's folder before its title. */
const ALL_LINE =
  /^(ses_[\w-]+) {2}\d{4}-\d\d-\d\d \d\d:\d\d {2}finished {6} {2}demo\/demo {2}accept-edits {2}(\/\S+) {2,}(.*)$/;

/** The heading line of the list (with `--all`, FOLDER before TITLE). */
const HEADING = /^ID +CHANGED +LAST RUN +MODEL +MODE +(?:FOLDER +)?TITLE$/;

/** The session lines of a `sessions` list: what follows its heading line, which must come first. */
function rows(stdout: string): string[] {
  const [heading, ...sessions] = stdout.trimEnd().split('\n');
  expect(heading).toMatch(HEADING);
  return sessions;
}

describe('bastion sessions', () => {
  it('lists the folder’s sessions newest first, titled after their first message; --all lists every one; --json one session a line', async () => {
    const { home, first, second } = project();
    await runIn(home, first, 'ls');
    await runIn(home, first, '\n  read README.md  \nand more');
    await runIn(home, second, 'ls src');

    const listed = await runCli(['sessions', '--home', home, '--workspace', first]);
    expect(listed.code).toBe(0);
    const lines = rows(listed.stdout);
    expect(lines.map((line) => LINE.exec(line)?.[2])).toEqual(['read README.md', 'ls']);
    expect(listed.stderr).toContain('continue one with bastion run --session ID PROMPT');

    const all = await runCli(['sessions', '--all', '--home', home]);
    expect(all.code).toBe(0);
    expect(rows(all.stdout).map((line) => ALL_LINE.exec(line)?.[3])).toEqual(['ls src', 'read README.md', 'ls']);

    const json = await runCli(['sessions', '--json', '--home', home, '--workspace', first]);
    expect(json.code).toBe(0);
    const sessions = json.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; title: string; workspace: string });
    expect(sessions.map((session) => session.id)).toEqual(lines.map((line) => LINE.exec(line)?.[1]));
    expect(sessions.every((session) => session.workspace === realpathSync(first))).toBe(true);
  });

  it('--all names each session’s folder, the titles in one column whatever the model, mode and folder, and says to continue one with its --workspace', async () => {
    const { home, first, second } = project();
    const deeper = join(second, 'a-much-longer-folder-name');
    mkdirSync(deeper);
    await runIn(home, first, 'ls');
    const readOnly = await runCli([
      'run',
      '--provider',
      'demo',
      '--mode',
      'read-only',
      '--home',
      home,
      '--workspace',
      deeper,
      'read README.md',
    ]);
    expect(readOnly.code, readOnly.stderr).toBe(0);

    const all = await runCli(['sessions', '--all', '--home', home]);
    expect(all.code).toBe(0);
    const lines = rows(all.stdout);
    expect(lines).toHaveLength(2);
    const [newest, oldest] = lines as [string, string];
    expect(newest).toMatch(new RegExp(`  read-only     ${realpathSync(deeper)}  read README\\.md$`));
    expect(oldest).toMatch(new RegExp(`  accept-edits  ${realpathSync(first)} +ls$`));
    expect(newest.indexOf('read README.md')).toBe(oldest.lastIndexOf('ls'));
    expect(all.stderr).toBe(
      'bastion: continue one in its folder with bastion run --workspace FOLDER --session ID PROMPT\n',
    );

    const here = await runCli(['sessions', '--home', home, '--workspace', deeper]);
    expect(here.stdout).not.toContain(realpathSync(deeper));
  });

  it('heads the list with a line naming its columns, each heading over its column (FOLDER with --all); --json prints the sessions alone', async () => {
    const { home, first } = project();
    await runIn(home, first, 'ls');
    for (const all of [false, true]) {
      const listed = await runCli(['sessions', '--home', home, ...(all ? ['--all'] : ['--workspace', first])]);
      expect(listed.code).toBe(0);
      const [heading = '', row = '', ...more] = listed.stdout.trimEnd().split('\n');
      expect(more).toEqual([]);
      expect(heading).toMatch(all ? /^ID +CHANGED +LAST RUN +MODEL +MODE +FOLDER +TITLE$/ : HEADING);
      // Each heading starts where its column does in the session's line.
      const cells = row.split(/ {2,}/);
      const names = ['ID', 'CHANGED', 'LAST RUN', 'MODEL', 'MODE', ...(all ? ['FOLDER'] : []), 'TITLE'];
      expect(cells).toHaveLength(names.length);
      let at = 0;
      for (const [index, name] of names.entries()) {
        const cell = cells[index] ?? '';
        const start = row.indexOf(cell, at);
        expect(heading.indexOf(` ${name}`, at - 1) + 1, name).toBe(start);
        at = start + cell.length;
      }
    }
    const json = await runCli(['sessions', '--json', '--home', home, '--workspace', first]);
    expect(json.code).toBe(0);
    expect(json.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect((JSON.parse(json.stdout) as { title: string }).title).toBe('ls');
  });

  it('answers through the running Bastion’s control socket when one owns the home, starting no host of its own', async () => {
    const { home, first, second } = project();
    await runIn(home, first, 'ls');
    await startHolder(started, home, first).ready;
    const hosts = () =>
      readFileSync(join(home, 'logs', 'host.log'), 'utf8')
        .split('\n')
        .filter((line) => line.includes('"event":"host.ready"')).length;
    const before = hosts();

    const listed = await runCli(['sessions', '--home', home, '--workspace', first]);
    expect(listed.code).toBe(0);
    expect(rows(listed.stdout).map((line) => LINE.exec(line)?.[2])).toEqual(['ls']);
    const none = await runCli(['sessions', '--home', home, '--workspace', second]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toBe('bastion: no session has worked in this folder yet (--all lists every one)\n');
    expect(controlRequests(home, 'sessions')).toBe(2);
    expect(hosts()).toBe(before);
  });

  it('--search lists the sessions whose prompts or replies hold the text, in either case, here or with --all; through the running Bastion too, the text in no log line', async () => {
    const { home, first, second } = project();
    await runIn(home, first, 'zebra crossing');
    await runIn(home, second, 'ls');
    const everywhere = await runCli(['sessions', '--all', '--search', 'ZEBRA', '--home', home]);
    expect(everywhere.code).toBe(0);
    expect(rows(everywhere.stdout).map((line) => ALL_LINE.exec(line)?.[3])).toEqual(['zebra crossing']);
    const elsewhere = await runCli(['sessions', '--search', 'zebra', '--home', home, '--workspace', second]);
    expect(elsewhere.code).toBe(0);
    expect(elsewhere.stdout).toBe('');
    expect(elsewhere.stderr).toBe('bastion: no session of this folder mentions "zebra" (--all looks in every one)\n');

    await startHolder(started, home, first).ready;
    const through = await runCli(['sessions', '--all', '--search', 'crossing', '--home', home]);
    expect(rows(through.stdout).map((line) => ALL_LINE.exec(line)?.[3])).toEqual(['zebra crossing']);
    expect(controlRequests(home, 'sessions')).toBe(1);
    // The text looked for is the user's words: no log line carries it.
    expect(readFileSync(join(home, 'logs', 'host.log'), 'utf8')).not.toMatch(/zebra|crossing/i);
    const empty = await runCli(['sessions', '--search', ' ', '--home', home]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^bastion: --search takes 1 to 200 characters\n/);
  });

  it('exits 2 for --all with --workspace, or an argument, with the synopsis of sessions', async () => {
    const both = await runCli(['sessions', '--all', '--workspace', '.']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/^bastion: --all and --workspace cannot be combined\n\nUsage:\n {2}bastion sessions /);
    const argument = await runCli(['sessions', 'extra']);
    expect(argument.code).toBe(2);
    expect(argument.stderr).toMatch(
      /^bastion: unexpected argument "extra": sessions takes only options, or export ID\n/,
    );
  });
});

describe('bastion sessions export', () => {
  it('prints the session as markdown (prompts, replies, tool calls), with a terminal escape in a prompt made inert', async () => {
    const { home, first } = project();
    await runIn(home, first, 'read README.md');
    await runIn(home, first, 'ls');
    const escaped = 'ls \u001b[2J';
    await runCli(['run', '--continue', '--home', home, '--workspace', first, escaped]);
    const [id, prompts] = [...userMessagesBySession(home)].find(([, texts]) => texts.length === 2) ?? [];
    // Stored as typed: the escape is in the session's record.
    expect((JSON.parse(prompts?.[1] ?? '[]') as { text: string }[])[0]?.text).toBe(escaped);
    const exported = await runCli(['sessions', 'export', id as string, '--home', home]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(
      /^# ls\n\ndemo\/demo · \S+ · started \S+\n\n## You\n\nls\n\n## Bastion\n\n- list_dir /,
    );
    // The sequence is gone from the prompt; in the tool call's input it is JSON's inert `\u001b`.
    expect(exported.stdout).toContain('\n\n## You\n\nls \n\n## Bastion\n\n- list_dir `{"path":"\\u001b[2J"}`\n');
    expect(exported.stdout).not.toContain('\u001b');
    const other = [...userMessagesBySession(home).keys()].find((key) => key !== id) as string;
    const earlier = await runCli(['sessions', 'export', other, '--home', home]);
    expect(earlier.stdout).toContain('## You\n\nread README.md\n\n## Bastion\n\n- read_file `{"path":"README.md"}`');
  });

  it('exits 2 for an id that names no session, a malformed id or other flags, and prints nothing; through a Bastion running on the home, the same markdown as without it', async () => {
    const { home, first } = project();
    await runIn(home, first, 'ls');
    const unknown = await runCli(['sessions', 'export', 'ses_NoSuchSession0', '--home', home]);
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toBe('bastion: no session ses_NoSuchSession0 (bastion sessions --all lists them)\n');
    const malformed = await runCli(['sessions', 'export', 'first', '--home', home]);
    expect(malformed).toMatchObject({ code: 2, stdout: '' });
    expect(malformed.stderr).toMatch(/^bastion: export needs a session id \(ses_ and 8 or more [^)]*\), not "first"\n/);
    const flags = await runCli(['sessions', 'export', 'ses_NoSuchSession0', '--json', '--home', home]);
    expect(flags).toMatchObject({ code: 2, stdout: '' });
    expect(flags.stderr).toMatch(/^bastion: sessions export takes only --home\n/);
    const [id] = [...userMessagesBySession(home).keys()];
    const alone = await runCli(['sessions', 'export', id as string, '--home', home]);
    expect(alone.code, alone.stderr).toBe(0);
    await startHolder(started, home, first).ready;
    const held = await runCli(['sessions', 'export', id as string, '--home', home]);
    expect(held).toMatchObject({ code: 0, stdout: alone.stdout, stderr: '' });
    expect(controlRequests(home, 'session.export')).toBe(1);
    const unknownHeld = await runCli(['sessions', 'export', 'ses_NoSuchSession0', '--home', home]);
    expect(unknownHeld).toMatchObject({ code: 2, stdout: '' });
    expect(unknownHeld.stderr).toBe('bastion: no session ses_NoSuchSession0 (bastion sessions --all lists them)\n');
    expect(controlRequests(home, 'session.export')).toBe(2);
  });
});
