import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WORKSPACE_FIND_MAX_DIRECTORIES, WORKSPACE_FIND_MAX_RESULTS } from '@bastion/protocol';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { workspaceWithOutside } from '../../../../test/support/workspace-fixture.js';
import { hostWrites } from '../../test/support/host-writes.js';
import { findInWorkspace } from './find-in-workspace.js';
import { WorkspaceRoots } from './workspace-roots.js';

function workspace(files: Record<string, string>) {
  const base = makeTempDir();
  const { root, outside } = workspaceWithOutside(base, files, 'CANARY-find');
  const real = realpathSync(root);
  const roots = new WorkspaceRoots([real], hostWrites({ userData: join(base, 'host-data'), workspaces: [real] }));
  return { root: real, outside, roots };
}

describe('findInWorkspace', () => {
  it('finds names holding the query in any case: those starting with it first, then shallow before deep', async () => {
    const { root, roots } = workspace({
      'src/util/strings.ts': '',
      'src/main.ts': '',
      'docs/Strings.md': '',
      'test/to-strings.test.ts': '',
      'README.md': '',
    });
    expect(await findInWorkspace(roots, root, 'STRING')).toEqual({
      matches: [
        { path: 'docs/Strings.md', kind: 'file' },
        { path: 'src/util/strings.ts', kind: 'file' },
        { path: 'test/to-strings.test.ts', kind: 'file' },
      ],
      truncated: false,
    });
    expect((await findInWorkspace(roots, root, 'uti')).matches).toEqual([{ path: 'src/util', kind: 'directory' }]);
  });

  it('does not walk node_modules or dot folders, and lists dot names only for a query starting with a dot', async () => {
    const { root, roots } = workspace({
      'node_modules/left-pad/index.js': '',
      '.git/index': '',
      '.github/workflows/ci.yml': '',
      'src/index.ts': '',
      '.env.example': '',
    });
    expect((await findInWorkspace(roots, root, 'index')).matches).toEqual([{ path: 'src/index.ts', kind: 'file' }]);
    expect((await findInWorkspace(roots, root, 'ci')).matches).toEqual([]);
    expect((await findInWorkspace(roots, root, '.env')).matches).toEqual([{ path: '.env.example', kind: 'file' }]);
  });

  it('attack: never lists through a symlinked folder that points outside; the link itself may match, nothing behind it', async () => {
    const { root, outside, roots } = workspace({ 'src/a.ts': '' });
    symlinkSync(outside, join(root, 'src', 'secret-dir'));
    const found = await findInWorkspace(roots, root, 'secret');
    expect(found.matches).toEqual([{ path: 'src/secret-dir', kind: 'symlink' }]);
    expect(JSON.stringify(found)).not.toContain('secret.txt');
  });

  it('refuses a root that was not granted with FS_OUTSIDE_WORKSPACE', async () => {
    const { outside, roots } = workspace({});
    await expect(findInWorkspace(roots, outside, 'secret')).rejects.toMatchObject({ code: 'FS_OUTSIDE_WORKSPACE' });
  });

  it(`answers at most ${WORKSPACE_FIND_MAX_RESULTS} paths and walks at most ${WORKSPACE_FIND_MAX_DIRECTORIES} folders, saying it was cut, and lets the event loop run meanwhile`, async () => {
    const many = Object.fromEntries(
      Array.from({ length: WORKSPACE_FIND_MAX_RESULTS + 5 }, (_, index) => [`src/match-${index}.ts`, '']),
    );
    const { root, roots } = workspace(many);
    const found = await findInWorkspace(roots, root, 'match');
    expect(found.matches).toHaveLength(WORKSPACE_FIND_MAX_RESULTS);
    expect(found.truncated).toBe(true);

    // Folders beyond the bound are never listed: `zz`, listed last in src, holds the only match.
    const deep = workspace({});
    for (let index = 0; index < WORKSPACE_FIND_MAX_DIRECTORIES; index += 1) {
      mkdirSync(join(deep.root, 'src', `d${String(index).padStart(4, '0')}`));
    }
    mkdirSync(join(deep.root, 'src', 'zz'));
    writeFileSync(join(deep.root, 'src', 'zz', 'beyond.ts'), '');
    let turned = false;
    setImmediate(() => (turned = true));
    const cut = await findInWorkspace(deep.roots, deep.root, 'beyond').then((answer) => ({
      ...answer,
      turnedMeanwhile: turned,
    }));
    expect(cut).toEqual({ matches: [], truncated: true, turnedMeanwhile: true });
  });
});
