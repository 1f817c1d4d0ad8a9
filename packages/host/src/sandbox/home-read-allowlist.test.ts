import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '@bastion/test-support';
import { bastionOwnReads, hiddenPathEntries, homeReadPaths, listHomeReads } from './home-read-allowlist.js';

/** Removed after the file by the vitest setup's removeTempDirs. */
const tempHome = () => makeTempDir('bastion-allowlist-');

describe('HOME read allowlist', () => {
  it('binds back only the entries that exist', () => {
    const home = tempHome();
    mkdirSync(join(home, '.cargo', 'bin'), { recursive: true });
    expect(homeReadPaths({ home, env: {} })).toEqual([join(home, '.cargo', 'bin')]);
  });

  it('adds BASTION_HOME_READ_ALLOW entries (relative to HOME or absolute, empty ones skipped, trailing slash dropped)', () => {
    const home = tempHome();
    for (const dir of ['.sdkman', 'opt/tool']) mkdirSync(join(home, dir), { recursive: true });
    const env = { BASTION_HOME_READ_ALLOW: `.sdkman/::${join(home, 'opt', 'tool')}` };
    expect(homeReadPaths({ home, env })).toEqual([join(home, '.sdkman'), join(home, 'opt', 'tool')]);
  });

  it.each([
    ['.ssh', 'a HOME secret'],
    ['.local/share', 'a directory holding one (keyrings)'],
    ['.', 'HOME itself'],
    ['..', 'above HOME'],
  ])('refuses the extra entry %j (%s): listed with the reason, never bound back', (entry) => {
    const home = tempHome();
    mkdirSync(join(home, '.ssh'));
    mkdirSync(join(home, '.local', 'share'), { recursive: true });
    const env = { BASTION_HOME_READ_ALLOW: entry };
    const listed = listHomeReads({ home, env }).find((e) => e.source === 'BASTION_HOME_READ_ALLOW');
    expect(listed?.refused).toBeDefined();
    expect(homeReadPaths({ home, env })).toEqual([]);
  });

  it("binds back Bastion's own install root when it lies under HOME: the highest directory above the daemon entry holding node_modules", () => {
    const home = tempHome();
    const root = join(home, 'src', 'bastion');
    mkdirSync(join(root, 'node_modules'), { recursive: true });
    mkdirSync(join(root, 'packages', 'daemon', 'node_modules'), { recursive: true });
    mkdirSync(join(root, 'packages', 'daemon', 'dist'), { recursive: true });
    writeFileSync(join(root, 'packages', 'daemon', 'dist', 'entry.js'), '');
    expect(bastionOwnReads(home, join(root, 'packages', 'daemon', 'dist', 'entry.js'))).toContain(root);
    // Outside HOME it needs no binding.
    expect(bastionOwnReads(join(home, 'elsewhere'), join(root, 'packages', 'daemon', 'dist', 'entry.js'))).toEqual([]);
  });

  it('names the PATH directories under HOME that no usable entry covers', () => {
    const home = tempHome();
    const entries = listHomeReads({ home, env: { BASTION_HOME_READ_ALLOW: '.ssh' } });
    const path = [join(home, '.cargo', 'bin'), join(home, 'bin'), join(home, '.ssh', 'bin'), '/usr/bin'].join(':');
    expect(hiddenPathEntries(home, path, entries)).toEqual([join(home, 'bin'), join(home, '.ssh', 'bin')]);
  });
});
