import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '@bastion/test-support';
import { scanGitRepositories } from './git-write-protections.js';
import { nestedProtections } from './nested-protections.js';

let base: string;
let root: string;
const scan = () => scanGitRepositories(root, { home: base });
const at = (...paths: string[]) => paths.map((path) => join(root, path)).sort();

beforeEach(() => {
  base = makeTempDir('bastion-nested-');
  root = join(base, 'ws');
  mkdirSync(join(root, 'pkg', '.claude', 'commands'), { recursive: true });
  writeFileSync(join(root, 'pkg', 'AGENTS.md'), 'team\n');
  writeFileSync(join(root, 'pkg', 'notes.md'), 'notes\n');
});

describe('nestedProtections', () => {
  it('write-denies each nested protected path that exists, inside `.claude` only its commands and agents', () => {
    expect(nestedProtections(scan()).denyWrite.sort()).toEqual(at('pkg/AGENTS.md', 'pkg/.claude/commands'));
  });

  it('after the command: new steering files at any depth, a new `.claude` whole and a new `agents` and `settings.json` in an existing one; not what was there, not ordinary files', () => {
    const protections = nestedProtections(scan());
    for (const dir of ['deep/a/b', 'sub/.vscode', 'pkg/.claude/agents'])
      mkdirSync(join(root, dir), { recursive: true });
    for (const file of [
      'deep/a/b/AGENTS.md',
      'sub/.envrc',
      'sub/CLAUDE.md',
      'sub/.mcp.json',
      'sub/.vscode/settings.json',
      'pkg/.claude/settings.json',
      'sub/plain.md',
    ])
      writeFileSync(join(root, file), 'planted\n');
    mkdirSync(join(root, 'other', '.claude'), { recursive: true });
    writeFileSync(join(root, 'pkg', 'notes.md'), 'changed\n');
    expect(protections.createdSince(scan()).sort()).toEqual(
      at(
        'deep/a/b/AGENTS.md',
        'sub/.envrc',
        'sub/CLAUDE.md',
        'sub/.mcp.json',
        'sub/.vscode',
        'pkg/.claude/agents',
        'pkg/.claude/settings.json',
        'other/.claude',
      ),
    );
  });

  it('a `.devcontainer` below the root (its devcontainer.json runs initializeCommand on the host): write-denied when it exists, moved to quarantine when a command made it', () => {
    mkdirSync(join(root, 'svc', '.devcontainer'), { recursive: true });
    const protections = nestedProtections(scan());
    expect(protections.denyWrite).toContain(join(root, 'svc', '.devcontainer'));
    mkdirSync(join(root, 'app', '.devcontainer'), { recursive: true });
    writeFileSync(join(root, 'app', '.devcontainer', 'devcontainer.json'), '{"initializeCommand":"x"}\n');
    expect(protections.createdSince(scan())).toEqual(at('app/.devcontainer'));
  });

  it('a directory moved aside and made again with the same protected name inside counts as new, the moved one does not (by inode, not by path)', () => {
    const protections = nestedProtections(scan());
    renameSync(join(root, 'pkg'), join(root, 'pkg-moved'));
    mkdirSync(join(root, 'pkg'));
    writeFileSync(join(root, 'pkg', 'AGENTS.md'), 'planted\n');
    expect(protections.createdSince(scan())).toEqual(at('pkg/AGENTS.md'));
  });

  it('nothing new, nothing to move', () => {
    const protections = nestedProtections(scan());
    expect(protections.createdSince(scan())).toEqual([]);
  });
});
