import { mkdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { quote } from '@anthropic-ai/sandbox-runtime/dist/utils/shell-quote.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '@bastion/test-support';
import { WRAP_CACHE_RACY_MARGIN_MS } from '@bastion/protocol';
import { directArgv, unquoteWords, wrapParts } from './wrap-cache.js';
import { changedOnlyBy, readWrapDiskState, wrapDiskStateHolds } from './wrap-disk-state.js';

const HELPER = '/opt/srt/apply-seccomp';

/** Let the fixtures' change times fall behind the margin, so they are trusted alone. */
function olderThanTheMargin(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, WRAP_CACHE_RACY_MARGIN_MS * 2));
}

/** An argv shaped as srt's wrapWithSandboxArgv returns it on Linux. */
function srtShaped(bwrap: string[], command: string): string[] {
  const inner = `SRT_ALLOW_NESTED_USERNS=0 ${quote([HELPER])} ${quote(['/bin/sh', '-c', command])}`;
  return ['/bin/sh', '-c', quote([...bwrap, '--', '/bin/sh', '-c', inner])];
}

describe('wrap cache: srt argv taken apart', () => {
  it('parses back every word srt quotes, quotes and spaces inside included', () => {
    const words = ['bwrap', "it's", 'a b', '', '=x', "''", 'plain/path:1'];
    expect(unquoteWords(quote(words))).toEqual(words);
  });

  it('refuses a string srt did not quote', () => {
    expect(unquoteWords('a  b')).toBeUndefined();
    expect(unquoteWords("'open")).toBeUndefined();
    expect(unquoteWords('$(x)')).toBeUndefined();
  });

  it("turns the three shells into bwrap straight into the seccomp helper running the argv, bwrap clearing srt's variables and setting the command's, the helper's last", () => {
    const bwrap = ['bwrap', '--ro-bind', '/', '/', '--setenv', 'SRT_VAR', '1', '--unsetenv', 'SRT_ALLOW_NESTED_USERNS'];
    const command = "exec 'true'";
    const parts = wrapParts(srtShaped(bwrap, command), '/bin/sh', command);
    expect(parts).toBeDefined();
    expect(directArgv(parts!, ['true', 'x'], { PATH: '/usr/bin', SRT_ALLOW_NESTED_USERNS: '1' })).toEqual([
      ...bwrap,
      '--clearenv',
      '--setenv',
      'PATH',
      '/usr/bin',
      '--setenv',
      'SRT_ALLOW_NESTED_USERNS',
      '1',
      '--setenv',
      'SRT_ALLOW_NESTED_USERNS',
      '0',
      '--',
      HELPER,
      'true',
      'x',
    ]);
  });

  it('takes nothing apart whose inner command is not the one wrapped, or of another shape', () => {
    const command = "exec 'true'";
    expect(wrapParts(srtShaped(['bwrap'], "exec 'false'"), '/bin/sh', command)).toBeUndefined();
    // srt's arguments-file form for very long profiles.
    const viaFile = [
      '/bin/sh',
      '-c',
      quote([
        '/bin/sh',
        '-c',
        'exec 3<"$1" && shift && exec "$@"',
        'srt-args',
        '/proc/1/fd/9',
        'bwrap',
        '--args',
        '3',
        '--',
        '/bin/sh',
        '-c',
        command,
      ]),
    ];
    expect(wrapParts(viaFile, '/bin/sh', command)).toBeUndefined();
    // No seccomp helper.
    const noHelper = ['/bin/sh', '-c', quote(['bwrap', '--', '/bin/sh', '-c', command])];
    expect(wrapParts(noHelper, '/bin/sh', command)).toBeUndefined();
  });
});

describe('wrap cache: the disk state a wrap was built from', () => {
  let root: string;
  beforeEach(() => {
    root = makeTempDir('bastion-wrap-state-');
    mkdirSync(join(root, 'a', 'b', 'c', 'd'), { recursive: true });
    mkdirSync(join(root, 'node_modules', 'pkg'), { recursive: true });
    writeFileSync(join(root, 'target'), '');
  });

  const state = (paths: string[] = []) => {
    const read = readWrapDiskState(root, paths);
    if (read === undefined) throw new Error('tree too big');
    return read;
  };

  it('holds while nothing changed', () => {
    expect(wrapDiskStateHolds(state([join(root, 'target')]))).toBe(true);
  });

  it('no longer holds once a file appears in a scanned directory, even within the same clock tick as the read', () => {
    const read = state();
    writeFileSync(join(root, 'a', 'b', 'c', '.bashrc'), '');
    expect(wrapDiskStateHolds(read)).toBe(false);
  });

  it('no longer holds once a file srt lists appears at the root, or a directory is made anew', () => {
    const first = state();
    writeFileSync(join(root, '.gitmodules'), '');
    expect(wrapDiskStateHolds(first)).toBe(false);
    const second = state();
    rmSync(join(root, 'a', 'b'), { recursive: true });
    mkdirSync(join(root, 'a', 'b'));
    expect(wrapDiskStateHolds(second)).toBe(false);
  });

  it('still holds for a change deeper than srt scans, or under node_modules (srt lists neither)', () => {
    const read = state();
    writeFileSync(join(root, 'a', 'b', 'c', 'd', '.bashrc'), '');
    writeFileSync(join(root, 'node_modules', 'pkg', '.bashrc'), '');
    expect(wrapDiskStateHolds(read)).toBe(true);
  });

  it('no longer holds once a profile path changes type, or a symlink on its way points elsewhere', () => {
    const outside = join(root, 'outside');
    mkdirSync(join(outside, 'one'), { recursive: true });
    mkdirSync(join(outside, 'two'));
    symlinkSync(join(outside, 'one'), join(outside, 'link'));
    const profilePath = join(outside, 'link', 'secret');
    const first = state([join(root, 'target'), profilePath]);
    unlinkSync(join(outside, 'link'));
    symlinkSync(join(outside, 'two'), join(outside, 'link'));
    expect(wrapDiskStateHolds(first)).toBe(false);
    const second = state([join(root, 'target')]);
    unlinkSync(join(root, 'target'));
    mkdirSync(join(root, 'target'));
    expect(wrapDiskStateHolds(second)).toBe(false);
  });

  it("no longer holds once a file matching a profile glob appears in the glob's directory", () => {
    mkdirSync(join(root, 'home', '.cargo'), { recursive: true });
    const read = state([join(root, 'home', '.cargo', 'credentials*')]);
    writeFileSync(join(root, 'home', '.cargo', 'credentials.toml'), '');
    expect(wrapDiskStateHolds(read)).toBe(false);
  });

  it('detects a new file by the change time alone once the directory is older than the margin', async () => {
    await olderThanTheMargin();
    const read = state();
    writeFileSync(join(root, 'a', 'b', '.bashrc'), '');
    expect(wrapDiskStateHolds(read)).toBe(false);
  });

  it('still holds after ordinary files come and go: srt lists none of them', () => {
    const read = state();
    writeFileSync(join(root, 'a', 'main.ts'), '');
    writeFileSync(join(root, 'notes.txt'), '');
    expect(wrapDiskStateHolds(read)).toBe(true);
  });

  it('counts a file made in a listed directory (.vscode, .git/hooks) or a new subdirectory', () => {
    mkdirSync(join(root, 'a', '.vscode'));
    mkdirSync(join(root, '.git', 'hooks'), { recursive: true });
    const first = state();
    writeFileSync(join(root, 'a', '.vscode', 'tasks.json'), '');
    expect(wrapDiskStateHolds(first)).toBe(false);
    const second = state();
    writeFileSync(join(root, '.git', 'hooks', 'pre-commit'), '');
    expect(wrapDiskStateHolds(second)).toBe(false);
    const third = state();
    mkdirSync(join(root, 'a', 'new'));
    expect(wrapDiskStateHolds(third)).toBe(false);
  });

  it("changed only by srt's mount points: a placeholder srt made is no change, anything else is", async () => {
    await olderThanTheMargin();
    const before = state();
    const placeholder = join(root, 'a', '.profile');
    writeFileSync(placeholder, '');
    expect(changedOnlyBy(before, state(), new Set([placeholder]))).toBe(true);
    expect(changedOnlyBy(before, state(), new Set())).toBe(false);
  });

  it('changed only by mount points: not when a directory was touched with nothing of srt made there, its listing back as it was', async () => {
    await olderThanTheMargin();
    const before = state();
    writeFileSync(join(root, 'a', '.bashrc'), '');
    unlinkSync(join(root, 'a', '.bashrc'));
    expect(changedOnlyBy(before, state(), new Set())).toBe(false);
  });
});
