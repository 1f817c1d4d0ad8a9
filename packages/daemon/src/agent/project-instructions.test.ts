import { mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelMessage } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  INSTRUCTIONS_MAX_DIRECTORIES,
  INSTRUCTIONS_MAX_FILE_BYTES,
  INSTRUCTIONS_MAX_TOTAL_CHARS,
} from '@bastion/protocol';
import { hostWrites } from '../../test/support/host-writes.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { WorkspaceRoots } from '../workspaces/workspace-roots.js';
import { ProjectInstructions, workedDirectories } from './project-instructions.js';

let base: string;
let root: string;
beforeEach(() => {
  base = realpathSync(makeTempDir());
  root = join(base, 'ws');
  mkdirSync(join(root, 'src', 'deep'), { recursive: true });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const call = (toolName: string, input: unknown): ModelMessage => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: `c-${toolName}`, toolName, input }],
});

const rootsOf = () =>
  new WorkspaceRoots([root], hostWrites({ userData: join(root, '..', 'host-data'), workspaces: [root] }));
const load = (directories: string[]) => new ProjectInstructions(rootsOf(), root).for(directories);

describe('workedDirectories', () => {
  it('lists the root, then every directory on the way to the files and directories the tool calls named', () => {
    const messages = [
      { role: 'user' as const, content: 'hi' },
      call('read_file', { path: 'src/deep/a.ts' }),
      call('list_dir', { path: 'docs' }),
      call('run_command', { command: 'ls', args: [], workdir: 'tools/bin' }),
      call('find_files', { pattern: '*.md', path: 'guides' }),
      call('read_file', { path: '../outside/x' }),
    ];
    expect(workedDirectories(messages)).toEqual(['.', 'src', 'docs', 'tools', 'guides', 'src/deep', 'tools/bin']);
  });

  it(`keeps at most ${INSTRUCTIONS_MAX_DIRECTORIES} directories, shallow first`, () => {
    const messages = Array.from({ length: 40 }, (_, i) => call('read_file', { path: `d${i}/f.ts` }));
    const directories = workedDirectories(messages);
    expect(directories).toHaveLength(INSTRUCTIONS_MAX_DIRECTORIES);
    expect(directories[0]).toBe('.');
  });
});

describe('ProjectInstructions', () => {
  it('reads AGENTS.md, and CLAUDE.md only where a directory has no AGENTS.md', () => {
    writeFileSync(join(root, 'AGENTS.md'), 'root agents');
    writeFileSync(join(root, 'CLAUDE.md'), 'root claude');
    writeFileSync(join(root, 'src', 'CLAUDE.md'), 'src claude');
    expect(load(['.', 'src', 'src/deep'])).toEqual([
      { path: 'AGENTS.md', text: 'root agents', truncated: false },
      { path: join('src', 'CLAUDE.md'), text: 'src claude', truncated: false },
    ]);
  });

  it(`cuts a file at ${INSTRUCTIONS_MAX_FILE_BYTES} bytes and marks it truncated`, () => {
    writeFileSync(join(root, 'AGENTS.md'), 'x'.repeat(INSTRUCTIONS_MAX_FILE_BYTES + 100));
    const [file] = load(['.']);
    expect(file?.text).toHaveLength(INSTRUCTIONS_MAX_FILE_BYTES);
    expect(file?.truncated).toBe(true);
  });

  it(`leaves out later files beyond ${INSTRUCTIONS_MAX_TOTAL_CHARS} characters in all`, () => {
    const directories = ['.'];
    for (let i = 0; i < 5; i++) {
      mkdirSync(join(root, `p${i}`));
      writeFileSync(join(root, `p${i}`, 'AGENTS.md'), 'y'.repeat(INSTRUCTIONS_MAX_FILE_BYTES));
      directories.push(`p${i}`);
    }
    const files = load(directories);
    expect(files.reduce((sum, file) => sum + file.text.length, 0)).toBeLessThanOrEqual(INSTRUCTIONS_MAX_TOTAL_CHARS);
    expect(files.length).toBeLessThan(5);
  });

  it('skips an AGENTS.md that is a symlink out of the workspace: its bytes reach no prompt', () => {
    writeFileSync(join(base, 'secret.md'), 'CANARY-instructions-4411');
    symlinkSync(join(base, 'secret.md'), join(root, 'AGENTS.md'));
    writeFileSync(join(root, 'CLAUDE.md'), 'fallback');
    expect(JSON.stringify(load(['.']))).not.toContain('CANARY');
  });

  it('reads nothing when the session has no workspace', () => {
    writeFileSync(join(root, 'AGENTS.md'), 'root agents');
    expect(new ProjectInstructions(rootsOf(), null).for(['.'])).toEqual([]);
  });
});
