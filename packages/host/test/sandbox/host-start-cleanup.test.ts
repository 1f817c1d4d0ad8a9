/**
 * startBastionHost acquires its resources in order and, when a later step fails, releases every
 * one it already holds in reverse: the srt session (its socat bridges end), the sidecar's private
 * temp dir, the listeners. Real srt posture; the failing steps are real ones (a refused ChatGPT
 * override after srt is up, an endpoint grant nobody consents to after the listeners are up).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startBastionHost } from '../../src/bastion-host.js';
import { makeTempDir, processTree } from '@bastion/test-support';

const savedTmpdir = process.env.TMPDIR;
let temp: string;
beforeEach(() => {
  // The host's private temp dir is made under os.tmpdir(): a folder of this test's own, to see it go.
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

/** The sidecar private temp dirs (createPrivateTempDir's prefix) under this test's TMPDIR. */
function privateTempDirs(): string[] {
  return readdirSync(temp).filter((name) => name.startsWith('bastion-sidecar-'));
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
  it('a ChatGPT override refused after srt is up: the srt session is released (no socat left) and the temp dir removed', async () => {
    await expect(startBastionHost({ ...freshOptions(), chatgpt: { callbackPorts: [] } })).rejects.toMatchObject({
      code: 'OAUTH_CONFIG',
    });
    expect(descendantsNamed('socat')).toEqual([]);
    expect(privateTempDirs()).toEqual([]);
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
    expect(privateTempDirs()).toEqual([]);
    const host = await startBastionHost(freshOptions());
    expect(host.capabilities.sandbox).toBe('srt');
    expect(descendantsNamed('socat').length).toBeGreaterThan(0);
    await host.stop();
    expect(descendantsNamed('socat')).toEqual([]);
    expect(privateTempDirs()).toEqual([]);
  });
});
