/**
 * startBastionHost acquires its resources in order and, when a later step fails, releases every
 * one it already holds in reverse: the srt session (its socat bridges end), its temp root and the
 * sidecar's private temp dir in it, the listeners. Real srt posture; the failing steps are real
 * ones (a refused ChatGPT override after srt is up, an endpoint grant nobody consents to after the
 * listeners are up).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startBastionHost } from '../../src/bastion-host.js';
import { makeTempDir, processTree } from '@bastion/test-support';

const savedTmpdir = process.env.TMPDIR;
let temp: string;
beforeEach(() => {
  // The host's temp root is claimed under os.tmpdir(): a folder of this test's own, to see it go.
  temp = makeTempDir('bastion-tmpdir-');
  process.env.TMPDIR = temp;
});
afterEach(() => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
});

/** This test process's descendants running `name`. */
function descendantsNamed(name: string): number[] {
  return processTree(process.pid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name;
    } catch {
      return false;
    }
  });
}

/**
 * What the hosts left under this test's TMPDIR: the temp roots each claims in `bastion-<uid>`
 * (host-temp-root.ts), the sidecar's private temp dir in it, and any sidecar temp dir made beside them.
 */
function leftInTemp(): string[] {
  const parent = join(temp, `bastion-${process.getuid?.() ?? 0}`);
  const roots = existsSync(parent) ? readdirSync(parent).map((name) => join(parent, name)) : [];
  return [...roots, ...readdirSync(temp).filter((name) => name.startsWith('bastion-sidecar-'))];
}

function freshOptions() {
  const root = makeTempDir();
  return {
    userData: join(root, 'home'),
    workspaces: [root],
    stderr: 'none' as const,
    home: makeTempDir('bastion-home-'),
  };
}

describe('a failed start releases what it acquired (real srt)', () => {
  it('a ChatGPT override refused after srt is up: the srt session is released (no socat left) and its temp root, with the sidecar’s temp dir, removed', async () => {
    await expect(startBastionHost({ ...freshOptions(), chatgpt: { callbackPorts: [] } })).rejects.toMatchObject({
      code: 'OAUTH_CONFIG',
    });
    expect(descendantsNamed('socat')).toEqual([]);
    expect(leftInTemp()).toEqual([]);
  });

  it('an endpoint grant nobody consents to, after the listeners are up: the same, and a host starts afterwards', async () => {
    await expect(
      startBastionHost({
        ...freshOptions(),
        allowEndpoints: ['http://127.0.0.1:9/v1'],
        confirmer: { confirm: () => Promise.resolve(false) },
      }),
    ).rejects.toMatchObject({ code: 'GRANT_DECLINED' });
    expect(descendantsNamed('socat')).toEqual([]);
    expect(leftInTemp()).toEqual([]);
    const host = await startBastionHost(freshOptions());
    expect(host.capabilities.sandbox).toBe('srt');
    expect(descendantsNamed('socat').length).toBeGreaterThan(0);
    // Its temp root, while it runs: the one thing it made there.
    expect(leftInTemp()).toHaveLength(1);
    await host.stop();
    expect(descendantsNamed('socat')).toEqual([]);
    expect(leftInTemp()).toEqual([]);
  });
});
