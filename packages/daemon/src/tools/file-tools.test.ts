import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeAttack } from '../../../../test/support/attack.js';
import { workspaceWithOutside } from '../../../../test/support/workspace-fixture.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { openDatabase, type SqliteDatabase } from '../storage/database.js';
import { SessionStore } from '../storage/session-store.js';
import { WorkspaceRoots } from '../workspaces/workspace-roots.js';
import { hostWrites } from '../../test/support/host-writes.js';
import { createFileTools, type FileTools } from './file-tools.js';
import { SEARCH_INPUT_ERROR_MAX_CHARS, TOOL_MAX_OUTPUT_CHARS } from '@bastion/protocol';
import { inputError } from './ripgrep-search.js';

let base: string;
let root: string;
let outside: string;
let db: SqliteDatabase;
let store: SessionStore;
let tools: FileTools;
let sessionId: string;
let roots: WorkspaceRoots;

const options = { toolCallId: 't1', messages: [] };

async function run<K extends keyof FileTools>(name: K, input: Parameters<NonNullable<FileTools[K]['execute']>>[0]) {
  const execute = tools[name].execute as unknown as (
    input: unknown,
    options: unknown,
  ) => Promise<Record<string, unknown>>;
  return execute(input, options);
}

beforeEach(() => {
  base = makeTempDir();
  ({ root, outside } = workspaceWithOutside(
    base,
    { 'README.md': '# Project\nhello world\n', 'src/main.ts': 'export const answer = 42;\nexport const other = 1;\n' },
    'CANARY-7f3a answer',
  ));
  db = openDatabase(join(base, 'sessions.db'));
  store = new SessionStore(db);
  sessionId = store.sessions.create({ provider: 'demo', model: 'demo', workspace: root }).id;
  roots = new WorkspaceRoots([root], hostWrites({ userData: join(base, 'host-data'), workspaces: [root] }));
  tools = createFileTools({ roots, workspace: root, sessionId, store });
});
afterEach(() => {
  db.close();
  rmSync(base, { recursive: true, force: true });
});

describe('read_file and list_dir', () => {
  it('reads a workspace file', async () => {
    expect(await run('read_file', { path: 'README.md' })).toMatchObject({
      content: '# Project\nhello world\n',
      truncated: false,
    });
  });

  it("reads lines start_line..end_line with their numbers and the file's line count", async () => {
    writeFileSync(join(root, 'lines.txt'), 'one\ntwo\nthree\nfour\n');
    expect(await run('read_file', { path: 'lines.txt', start_line: 2, end_line: 3 })).toMatchObject({
      content: 'two\nthree\n',
      start_line: 2,
      end_line: 3,
      total_lines: 4,
    });
    expect(await run('read_file', { path: 'lines.txt', start_line: 3 })).toMatchObject({
      content: 'three\nfour\n',
      start_line: 3,
      end_line: 4,
    });
    expect(await run('read_file', { path: 'lines.txt', end_line: 99 })).toMatchObject({
      content: 'one\ntwo\nthree\nfour\n',
      end_line: 4,
    });
  });

  it('refuses a start_line past the last line with READ_RANGE_PAST_END naming the line count', async () => {
    writeFileSync(join(root, 'lines.txt'), 'one\ntwo\n');
    expect(await run('read_file', { path: 'lines.txt', start_line: 3 })).toEqual({
      ok: false,
      code: 'READ_RANGE_PAST_END',
      message: 'start_line 3 is past the end: the file has 2 lines',
    });
  });

  it('reads a line range far past the first 1 MiB of a 3 MiB file, with its own numbers and the line count', async () => {
    const lines = Array.from({ length: 300_000 }, (_, index) => `${String(index + 1).padStart(9, '0')}\n`).join('');
    writeFileSync(join(root, 'big.txt'), lines);
    expect(await run('read_file', { path: 'big.txt', start_line: 299_998, end_line: 299_999 })).toEqual({
      path: 'big.txt',
      size: 3_000_000,
      truncated: false,
      binary: false,
      start_line: 299_998,
      end_line: 299_999,
      total_lines: 300_000,
      content: '000299998\n000299999\n',
    });
  });

  it('cuts a line range longer than a tool result at a whole line: truncated, ending at the last line it holds', async () => {
    writeFileSync(join(root, 'big.txt'), 'abcdefghi\n'.repeat(100_000));
    const read = await run('read_file', { path: 'big.txt', start_line: 1 });
    const lineCount = Math.floor(TOOL_MAX_OUTPUT_CHARS / 10);
    expect(read).toMatchObject({ truncated: true, start_line: 1, end_line: lineCount, total_lines: 100_000 });
    expect(read.content).toBe('abcdefghi\n'.repeat(lineCount));
  });

  it('gives a file too long to read whole as its first whole lines, with the last line given and the line count', async () => {
    writeFileSync(join(root, 'big.txt'), 'abcdefghi\n'.repeat(100_000));
    const lineCount = Math.floor(TOOL_MAX_OUTPUT_CHARS / 10);
    expect(await run('read_file', { path: 'big.txt' })).toEqual({
      path: 'big.txt',
      size: 1_000_000,
      truncated: true,
      binary: false,
      start_line: 1,
      end_line: lineCount,
      total_lines: 100_000,
      content: 'abcdefghi\n'.repeat(lineCount),
    });
  });

  it('schema-checks the range: whole numbers from 1, end_line not before start_line', () => {
    const schema = tools.read_file.inputSchema as unknown as {
      safeParse: (input: unknown) => { success: boolean; error?: { issues: { message: string }[] } };
    };
    expect(schema.safeParse({ path: 'a', start_line: 2, end_line: 2 }).success).toBe(true);
    for (const bad of [
      { start_line: 0 },
      { start_line: 1.5 },
      { end_line: -1 },
      { start_line: '2' },
      { start_line: Number.MAX_SAFE_INTEGER },
    ]) {
      expect(schema.safeParse({ path: 'a', ...bad }).success).toBe(false);
    }
    const reversed = schema.safeParse({ path: 'a', start_line: 5, end_line: 4 });
    expect(reversed.success).toBe(false);
    expect(reversed.error?.issues[0]?.message).toBe('end_line must be at least start_line');
  });

  it('refuses a path outside without echoing the resolved path', async () => {
    symlinkSync(join(outside, 'secret.txt'), join(root, 'leak.txt'));
    for (const path of ['../outside/secret.txt', join(outside, 'secret.txt'), 'leak.txt']) {
      const result = await run('read_file', { path });
      expect(result).toEqual({ ok: false, code: 'FS_OUTSIDE_WORKSPACE', message: 'path is outside the workspace' });
      expect(JSON.stringify(result)).not.toContain('CANARY');
      expect(JSON.stringify(result)).not.toContain(outside);
    }
  });

  it('lists a directory', async () => {
    expect(await run('list_dir', { path: '.' })).toMatchObject({
      entries: [
        { name: 'README.md', kind: 'file' },
        { name: 'src', kind: 'directory' },
      ],
    });
  });

  it('read_file on a folder and list_dir on a file are refused with the tool that reads each', async () => {
    expect(await run('read_file', { path: 'src' })).toEqual({
      ok: false,
      code: 'FS_NOT_A_FILE',
      message: 'path is not a regular file; a folder is listed with list_dir',
    });
    expect(await run('list_dir', { path: 'README.md' })).toEqual({
      ok: false,
      code: 'FS_NOT_A_DIRECTORY',
      message: 'path is not a directory; a file is read with read_file',
    });
  });

  it('refuses everything when the session has no workspace', async () => {
    tools = createFileTools({ roots, workspace: null, sessionId, store });
    expect(await run('list_dir', { path: '.' })).toMatchObject({ ok: false, code: 'FS_NO_WORKSPACE' });
  });
});

describe('file system failures named for what they are, not FS_IO', () => {
  /** A name of 300 bytes: over the 255 a name may have on the file systems Bastion runs on. */
  const longName = `${'n'.repeat(296)}.txt`;
  const nameTooLong = {
    ok: false,
    code: 'FS_NAME_TOO_LONG',
    message:
      'file name too long: a name in the path is longer than the file system allows (255 bytes on most), or the whole path is',
  };

  it('read_file, list_dir and write_file of a name over 255 bytes answer FS_NAME_TOO_LONG; nothing is written', async () => {
    expect(await run('read_file', { path: longName })).toEqual(nameTooLong);
    expect(await run('list_dir', { path: `src/${longName}` })).toEqual(nameTooLong);
    expect(await run('write_file', { path: `new/${longName}`, content: 'x' })).toEqual(nameTooLong);
    expect(existsSync(join(root, 'new'))).toBe(false);
  });

  it('write_file of a path longer than the system takes, each name short, answers FS_NAME_TOO_LONG and leaves no folder it made', async () => {
    // 4,085 characters, under the tool's WORKSPACE_MAX_PATH_CHARS; with the root before it, over Linux's 4,096.
    const deep = Array.from({ length: 16 }, (_, index) => `${index.toString(16)}${'d'.repeat(253)}`).join('/');
    expect(await run('write_file', { path: `${deep}/n.txt`, content: 'x' })).toEqual(nameTooLong);
    expect(existsSync(join(root, `0${'d'.repeat(253)}`))).toBe(false);
  });

  it('read_file, list_dir and write_file of symbolic links that loop answer FS_SYMLINK saying they loop', async () => {
    symlinkSync('loop-b', join(root, 'loop-a'));
    symlinkSync('loop-a', join(root, 'loop-b'));
    const loops = { ok: false, code: 'FS_SYMLINK', message: expect.stringContaining('it loops') };
    expect(await run('read_file', { path: 'loop-a' })).toEqual(loops);
    expect(await run('list_dir', { path: 'loop-a' })).toEqual(loops);
    expect(await run('write_file', { path: 'loop-a', content: 'x' })).toEqual(loops);
  });
});

describe('search', () => {
  it('finds matches with ripgrep inside the workspace only', async () => {
    symlinkSync(outside, join(root, 'linked'));
    const result = (await run('search', { pattern: 'answer', path: '.' })) as {
      matches: { path: string; line: number }[];
    };
    expect(result.matches).toEqual([{ path: join('src', 'main.ts'), line: 1, text: 'export const answer = 42;' }]);
  });

  it('finds a match in a file over 1 MiB, past its first MiB', async () => {
    writeFileSync(join(root, 'big.log'), `${'filler line\n'.repeat(200_000)}the needle-4b2e is here\n`);
    expect(await run('search', { pattern: 'needle-4b2e', path: '.' })).toEqual({
      matches: [{ path: 'big.log', line: 200_001, text: 'the needle-4b2e is here' }],
      truncated: false,
    });
  });

  it('treats a pattern that looks like a flag as a pattern', async () => {
    writeFileSync(join(root, 'flags.txt'), 'use --pre=cat here\n');
    const result = (await run('search', { pattern: '--pre=cat', path: '.' })) as { matches: unknown[] };
    expect(result.matches).toHaveLength(1);
  });

  it('says why ripgrep refused a pattern it cannot read, and finds the text with fixed_strings', async () => {
    writeFileSync(join(root, 'calls.txt'), 'call foo( here\n');
    expect(await run('search', { pattern: 'foo(', path: '.' })).toEqual({
      ok: false,
      code: 'SEARCH_FAILED',
      message:
        'the pattern is not a regular expression ripgrep reads: unclosed group; escape it, or set fixed_strings to search for the text as it is',
    });
    const literal = (await run('search', { pattern: 'foo(', path: '.', fixed_strings: true })) as {
      matches: unknown[];
    };
    expect(literal.matches).toEqual([{ path: 'calls.txt', line: 1, text: 'call foo( here' }]);
  });

  it("passes on ripgrep's reason for a pattern or glob only: any other error output, which may name paths, is not", () => {
    expect(inputError('regex parse error:\n    a\\p\n       ^\nerror: incomplete escape sequence\n')).toBe(
      'the pattern is not a regular expression ripgrep reads: incomplete escape sequence; escape it, or set fixed_strings to search for the text as it is',
    );
    expect(inputError("error parsing glob '[abc': unclosed character class; missing ']'\n")).toBe(
      "the glob is not one ripgrep reads: unclosed character class; missing ']'",
    );
    expect(inputError('/root/.ssh: Permission denied (os error 13)\n')).toBeUndefined();
    // A reason is printable ASCII and bounded, whatever ripgrep printed.
    const long = inputError(`error parsing glob 'x': \u001b[2J${'y'.repeat(SEARCH_INPUT_ERROR_MAX_CHARS * 2)}\n`);
    expect(long).toBe(`the glob is not one ripgrep reads: ?[2J${'y'.repeat(SEARCH_INPUT_ERROR_MAX_CHARS - 4)}`);
    expect(inputError('')).toBeUndefined();
  });

  it('refuses a search path outside the workspace', async () => {
    expect(await run('search', { pattern: 'CANARY', path: '../outside' })).toMatchObject({
      ok: false,
      code: 'FS_OUTSIDE_WORKSPACE',
    });
  });
});

describe('find_files', () => {
  it('lists the files whose path from the root matches a glob, sorted, at any depth for a glob without /, hidden ones left out', async () => {
    mkdirSync(join(root, 'src', 'deep'), { recursive: true });
    writeFileSync(join(root, 'src', 'deep', 'b.test.ts'), '');
    writeFileSync(join(root, 'src', 'a.test.ts'), '');
    mkdirSync(join(root, '.cache'));
    writeFileSync(join(root, '.cache', 'c.test.ts'), '');
    expect(await run('find_files', { pattern: '*.test.ts', path: '.' })).toEqual({
      paths: [join('src', 'a.test.ts'), join('src', 'deep', 'b.test.ts')],
      truncated: false,
    });
    expect(await run('find_files', { pattern: 'src/*.ts', path: '.' })).toEqual({
      paths: [join('src', 'a.test.ts'), join('src', 'main.ts')],
      truncated: false,
    });
    // The glob is on the path from the workspace root, also when `path` narrows where to look.
    expect(await run('find_files', { pattern: 'src/deep/*.ts', path: 'src' })).toEqual({
      paths: [join('src', 'deep', 'b.test.ts')],
      truncated: false,
    });
    expect(await run('find_files', { pattern: '*.rs', path: '.' })).toEqual({ paths: [], truncated: false });
  });

  it('takes a glob that looks like a flag as a glob, and refuses a path outside the workspace', async () => {
    writeFileSync(join(root, '--pre=cat'), '');
    expect(await run('find_files', { pattern: '--pre=cat', path: '.' })).toEqual({
      paths: ['--pre=cat'],
      truncated: false,
    });
    expect(await run('find_files', { pattern: '*', path: '../outside' })).toMatchObject({
      ok: false,
      code: 'FS_OUTSIDE_WORKSPACE',
    });
  });

  it('says why ripgrep refused a glob it cannot read', async () => {
    expect(await run('find_files', { pattern: '[abc', path: '.' })).toEqual({
      ok: false,
      code: 'SEARCH_FAILED',
      message: "the glob is not one ripgrep reads: unclosed character class; missing ']'",
    });
  });
});

describe('write_file and edit_file', () => {
  it('writes a new file', async () => {
    expect(await run('write_file', { path: 'notes/todo.md', content: 'x' })).toMatchObject({ bytes: 1, created: true });
    expect(readFileSync(join(root, 'notes', 'todo.md'), 'utf8')).toBe('x');
  });

  it('refuses protected paths with a tool error and keeps their bytes', async () => {
    writeFileSync(join(root, '.env'), 'KEY=original');
    expect(await run('write_file', { path: '.env', content: 'KEY=stolen' })).toMatchObject({
      ok: false,
      code: 'FS_PROTECTED',
    });
    expect(await run('edit_file', { path: '.env', old_string: 'original', new_string: 'stolen' })).toMatchObject({
      ok: false,
      code: 'FS_PROTECTED',
    });
    expect(readFileSync(join(root, '.env'), 'utf8')).toBe('KEY=original');
  });

  it('edits exactly one occurrence and refuses zero or several', async () => {
    expect(await run('edit_file', { path: 'src/main.ts', old_string: '42', new_string: '43' })).toMatchObject({
      path: 'src/main.ts',
    });
    expect(readFileSync(join(root, 'src', 'main.ts'), 'utf8')).toContain('answer = 43');
    expect(await run('edit_file', { path: 'src/main.ts', old_string: 'nope', new_string: 'x' })).toMatchObject({
      code: 'EDIT_NO_MATCH',
    });
    const before = readFileSync(join(root, 'src', 'main.ts'), 'utf8');
    expect(await run('edit_file', { path: 'src/main.ts', old_string: 'export', new_string: 'x' })).toMatchObject({
      code: 'EDIT_AMBIGUOUS',
    });
    expect(readFileSync(join(root, 'src', 'main.ts'), 'utf8')).toBe(before);
  });

  it('refuses EDIT_NOT_TEXT on a Latin-1 file and on one with a NUL byte, and both keep their bytes; a UTF-8 file with a BOM keeps it', async () => {
    const latin1 = Buffer.from('caf\xe9 = 1\nna\xefve = 2\nMARK\n', 'latin1');
    const binary = Buffer.from('MARK\0\xff\x01 data\n', 'latin1');
    writeFileSync(join(root, 'latin1.py'), latin1);
    writeFileSync(join(root, 'blob.bin'), binary);
    for (const [path, bytes] of [
      ['latin1.py', latin1],
      ['blob.bin', binary],
    ] as const) {
      expect(await run('edit_file', { path, old_string: 'MARK', new_string: 'DONE' })).toMatchObject({
        ok: false,
        code: 'EDIT_NOT_TEXT',
      });
      expect(readFileSync(join(root, path)).equals(bytes)).toBe(true);
    }
    writeFileSync(join(root, 'bom.txt'), '\ufeffcaf\u00e9 MARK\n');
    expect(await run('edit_file', { path: 'bom.txt', old_string: 'MARK', new_string: 'DONE' })).toMatchObject({
      path: 'bom.txt',
    });
    expect(readFileSync(join(root, 'bom.txt')).equals(Buffer.from('\ufeffcaf\u00e9 DONE\n', 'utf8'))).toBe(true);
  });

  it('says when old_string occurs only with other whitespace (and from which line), or only with other line endings; otherwise just that it does not occur', async () => {
    const code = 'const a = 1;\n\nfunction f() {\n    return a;\n}\n';
    writeFileSync(join(root, 'f.ts'), code);
    const refused = (old_string: string, path = 'f.ts') =>
      run('edit_file', { path, old_string, new_string: 'x' }) as Promise<{ code: string; message: string }>;
    expect(await refused('function f() {\n  return a;\n}')).toEqual({
      ok: false,
      code: 'EDIT_NO_MATCH',
      message:
        'old_string does not occur in the file as written, but does with other whitespace from line 3: copy it exactly as read_file shows it, indentation included',
    });
    expect((await refused('return  a;')).message).toContain('with other whitespace from line 4');
    expect((await refused('return b;')).message).toBe('old_string does not occur in the file');
    writeFileSync(join(root, 'crlf.txt'), 'one\r\ntwo\r\n');
    expect((await refused('one\ntwo', 'crlf.txt')).message).toBe(
      "old_string does not occur in the file: its lines end in \\r\\n, and old_string's in \\n",
    );
    expect(readFileSync(join(root, 'f.ts'), 'utf8')).toBe(code);
    expect(readFileSync(join(root, 'crlf.txt'), 'utf8')).toBe('one\r\ntwo\r\n');
  });

  it('replace_all replaces every occurrence and says how many; zero occurrences still fail, the file unchanged', async () => {
    writeFileSync(join(root, 'names.ts'), 'let oldName = 1;\noldName += oldName;\nconst other = 2;\n');
    expect(
      await run('edit_file', { path: 'names.ts', old_string: 'oldName', new_string: 'newName', replace_all: true }),
    ).toMatchObject({ path: 'names.ts', replacements: 3 });
    expect(readFileSync(join(root, 'names.ts'), 'utf8')).toBe(
      'let newName = 1;\nnewName += newName;\nconst other = 2;\n',
    );
    expect(
      await run('edit_file', { path: 'names.ts', old_string: 'oldName', new_string: 'x', replace_all: true }),
    ).toMatchObject({ code: 'EDIT_NO_MATCH' });
    expect(readFileSync(join(root, 'names.ts'), 'utf8')).toBe(
      'let newName = 1;\nnewName += newName;\nconst other = 2;\n',
    );
  });

  it('refuses edit_file on a file over the read bound and a write_file over the write bound with FS_TOO_LARGE, saying what to do instead; the file keeps its bytes', async () => {
    const big = 'x'.repeat(2 * 1024 * 1024);
    writeFileSync(join(root, 'big.txt'), big);
    const advice =
      'content is larger than the limit; write_file and edit_file write files of up to 768 KiB: change a larger one with run_command (sed -i, a script), or write it in parts';
    expect(await run('edit_file', { path: 'big.txt', old_string: 'xx', new_string: 'y' })).toEqual({
      ok: false,
      code: 'FS_TOO_LARGE',
      message: advice,
    });
    expect(await run('write_file', { path: 'big.txt', content: 'y'.repeat(1024 * 1024) })).toEqual({
      ok: false,
      code: 'FS_TOO_LARGE',
      message: advice,
    });
    expect(readFileSync(join(root, 'big.txt'), 'utf8')).toBe(big);
  });

  it('re-reads the mode on every write: a deleted session writes nothing', async () => {
    store.sessions.delete(sessionId);
    expect(await run('write_file', { path: 'after.txt', content: 'x' })).toMatchObject({
      ok: false,
      code: 'MODE_REFUSED',
    });
    expect(() => readFileSync(join(root, 'after.txt'))).toThrow();
  });
});

describeAttack('git-escape', 'file tools writing where git configuration points', () => {
  const marker = () => join(outside, 'PWNED');
  const hook = () => `#!/bin/sh\ntouch '${marker()}'\n`;
  /** The user's own git on the host, unsandboxed: nothing planted may run. */
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.invalid', ...args], {
      cwd,
      env: { PATH: process.env.PATH, HOME: base, GIT_CONFIG_NOSYSTEM: '1' },
      stdio: 'ignore',
    });
  const expectHostCommitRunsNothing = (cwd: string) => {
    git(cwd, 'commit', '-q', '--allow-empty', '-m', 'host commit');
    expect(existsSync(marker())).toBe(false);
  };
  beforeEach(() => git(root, 'init', '-q'));

  it('refuses write_file and edit_file in the configured core.hooksPath (.husky), existing or not', async () => {
    git(root, 'config', 'core.hooksPath', '.husky');
    expect(await run('write_file', { path: '.husky/pre-commit', content: hook() })).toMatchObject({
      ok: false,
      code: 'FS_PROTECTED',
    });
    expect(existsSync(join(root, '.husky'))).toBe(false);
    mkdirSync(join(root, '.husky'));
    writeFileSync(join(root, '.husky', 'pre-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    expect(
      await run('edit_file', { path: '.husky/pre-commit', old_string: 'exit 0', new_string: `touch '${marker()}'` }),
    ).toMatchObject({
      ok: false,
      code: 'FS_PROTECTED',
    });
    expect(readFileSync(join(root, '.husky', 'pre-commit'), 'utf8')).toBe('#!/bin/sh\nexit 0\n');
    expectHostCommitRunsNothing(root);
  });

  it("refuses the scripts husky 9's `.husky/_` stubs run from `.husky/`", async () => {
    mkdirSync(join(root, '.husky', '_'), { recursive: true });
    writeFileSync(
      join(root, '.husky', '_', 'pre-commit'),
      '#!/bin/sh\n[ ! -f .husky/pre-commit ] || sh .husky/pre-commit\n',
      { mode: 0o755 },
    );
    git(root, 'config', 'core.hooksPath', '.husky/_');
    expect(await run('write_file', { path: '.husky/pre-commit', content: hook() })).toMatchObject({
      code: 'FS_PROTECTED',
    });
    expectHostCommitRunsNothing(root);
  });

  it('refuses a hooks dir reached through a symlink, and one of a nested repository', async () => {
    mkdirSync(join(root, 'tools', 'hooks'), { recursive: true });
    symlinkSync('tools/hooks', join(root, '.husky'));
    git(root, 'config', 'core.hooksPath', '.husky');
    expect(await run('write_file', { path: 'tools/hooks/pre-commit', content: hook() })).toMatchObject({
      code: 'FS_PROTECTED',
    });
    const nested = join(root, 'vendor', 'lib');
    mkdirSync(nested, { recursive: true });
    git(nested, 'init', '-q');
    git(nested, 'config', 'core.hooksPath', 'githooks');
    expect(await run('write_file', { path: 'vendor/lib/githooks/pre-commit', content: hook() })).toMatchObject({
      code: 'FS_PROTECTED',
    });
    expect(existsSync(join(root, 'tools', 'hooks', 'pre-commit'))).toBe(false);
    expect(existsSync(join(nested, 'githooks'))).toBe(false);
    expectHostCommitRunsNothing(root);
    expectHostCommitRunsNothing(nested);
  });

  it('refuses a config file the repository includes (`include.path`, `includeIf`), and leaves others writable', async () => {
    git(root, 'config', 'include.path', '../.gitconfig.local');
    git(root, 'config', 'includeIf.onbranch:main.path', '../config/branch.inc');
    const evil = `[core]\n\thooksPath = evil-hooks\n`;
    for (const path of ['.gitconfig.local', 'config/branch.inc'])
      expect(await run('write_file', { path, content: evil })).toMatchObject({ code: 'FS_PROTECTED' });
    expect(await run('write_file', { path: 'config/other.inc', content: 'fine' })).toMatchObject({ bytes: 4 });
    expect(existsSync(join(root, '.gitconfig.local'))).toBe(false);
    expectHostCommitRunsNothing(root);
  });
});

describe('diffs in write results', () => {
  it('a created file carries its content as additions against /dev/null', async () => {
    const result = await run('write_file', { path: 'notes/new.md', content: 'one\ntwo\n' });
    expect(result.diff).toBe('--- /dev/null\n+++ b/notes/new.md\n@@ -0,0 +1,2 @@\n+one\n+two\n');
  });

  it('an overwrite carries the unified diff against the previous bytes', async () => {
    const result = await run('write_file', { path: 'README.md', content: '# Project\nhello there\n' });
    expect(result).toMatchObject({ created: false });
    expect(result.diff).toBe(
      '--- a/README.md\n+++ b/README.md\n@@ -1,2 +1,2 @@\n # Project\n-hello world\n+hello there\n',
    );
  });

  it('an edit carries the unified diff of the one replaced occurrence', async () => {
    const result = await run('edit_file', { path: 'src/main.ts', old_string: '42', new_string: '43' });
    expect(result.diff).toBe(
      '--- a/src/main.ts\n+++ b/src/main.ts\n@@ -1,2 +1,2 @@\n-export const answer = 42;\n+export const answer = 43;\n export const other = 1;\n',
    );
  });
});

describe('project instruction files ask before every write', () => {
  type NeedsApproval = (input: unknown, options: unknown) => Promise<boolean> | boolean;
  const needsApproval = (name: 'write_file' | 'edit_file', input: Record<string, unknown>) =>
    (tools[name].needsApproval as unknown as NeedsApproval)(input, options);

  it('write_file and edit_file of AGENTS.md or CLAUDE.md at any depth and in any case need approval, in auto mode too', async () => {
    store.sessions.update(sessionId, { mode: 'auto', consentBy: 'test' });
    for (const path of ['AGENTS.md', 'src/CLAUDE.md', 'docs/agents.MD', './Claude.md']) {
      expect(await needsApproval('write_file', { path, content: 'x' })).toBe(true);
      expect(await needsApproval('edit_file', { path, old_string: 'a', new_string: 'b' })).toBe(true);
    }
    expect(await needsApproval('write_file', { path: 'src/agents.ts', content: 'x' })).toBe(false);
  });

  it('a write through a symlinked directory that lands on AGENTS.md needs approval', async () => {
    symlinkSync('.', join(root, 'here'));
    expect(await needsApproval('write_file', { path: 'here/AGENTS.md', content: 'x' })).toBe(true);
  });
});

describe('read-only mode and ask-before-writes', () => {
  type NeedsApproval = (input: unknown, options: unknown) => Promise<boolean> | boolean;
  const needsApproval = (name: 'write_file' | 'edit_file', input: Record<string, unknown>) =>
    (tools[name].needsApproval as unknown as NeedsApproval)(input, options);

  it('read-only refuses write_file and edit_file with MODE_READ_ONLY, asks nothing, and the files keep their bytes', async () => {
    store.sessions.update(sessionId, { mode: 'read-only' });
    expect(await needsApproval('write_file', { path: 'README.md', content: 'x' })).toBe(false);
    expect(await run('write_file', { path: 'README.md', content: 'overwritten' })).toMatchObject({
      ok: false,
      code: 'MODE_READ_ONLY',
    });
    expect(await run('write_file', { path: 'new.txt', content: 'x' })).toMatchObject({ code: 'MODE_READ_ONLY' });
    expect(await run('edit_file', { path: 'src/main.ts', old_string: '42', new_string: '43' })).toMatchObject({
      code: 'MODE_READ_ONLY',
    });
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toBe('# Project\nhello world\n');
    expect(readFileSync(join(root, 'src', 'main.ts'), 'utf8')).toContain('answer = 42');
    expect(existsSync(join(root, 'new.txt'))).toBe(false);
    expect(await run('read_file', { path: 'README.md' })).toMatchObject({ content: '# Project\nhello world\n' });
  });

  it('ask-before-writes makes every write wait for approval, also in auto mode', async () => {
    store.sessions.update(sessionId, { mode: 'auto', consentBy: 'test', askBeforeWrites: true });
    expect(await needsApproval('write_file', { path: 'notes.txt', content: 'x' })).toBe(true);
    expect(await needsApproval('edit_file', { path: 'src/main.ts', old_string: '42', new_string: '43' })).toBe(true);
    store.sessions.update(sessionId, { askBeforeWrites: false });
    expect(await needsApproval('write_file', { path: 'notes.txt', content: 'x' })).toBe(false);
  });
});
