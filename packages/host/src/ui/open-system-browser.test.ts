import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '@bastion/test-support';
import { openSystemBrowser } from './open-system-browser.js';

const LAUNCH = 'http://127.0.0.1:4000/desktop/launch?ticket=abc';
const savedPath = process.env.PATH;
afterEach(() => {
  process.env.PATH = savedPath;
});

/** A PATH whose only xdg-open exits with `code` at once (xdg-open exits 3 when it finds no browser). */
function fakeOpener(code: number): void {
  const dir = makeTempDir();
  writeFileSync(join(dir, 'xdg-open'), `#!/bin/sh\nexit ${code}\n`, { mode: 0o755 });
  process.env.PATH = `${dir}:/usr/bin:/bin`;
}

describe('openSystemBrowser', () => {
  // With an opener that succeeds, a URL that slipped past the check would resolve true.
  const refused = [
    'https://evil.test/',
    'http://localhost:4000/desktop/',
    'http://127.0.0.1.evil.test:4000/desktop/',
    'http://127.0.0.1:4000',
    'http://127.0.0.1:4000/desktop/ --flag',
    'file:///etc/passwd',
    '-a http://127.0.0.1:4000/',
  ];
  for (const url of refused) {
    it(`refuses to hand over ${JSON.stringify(url)}`, async () => {
      fakeOpener(0);
      expect(await openSystemBrowser(url, 'linux')).toBe(false);
    });
  }

  it('has no opener on a platform without one', async () => {
    expect(await openSystemBrowser(LAUNCH, 'win32')).toBe(false);
  });

  it('resolves false when the opener exits with an error (no browser), so the caller prints the link', async () => {
    fakeOpener(3);
    expect(await openSystemBrowser(LAUNCH, 'linux')).toBe(false);
  });

  it('resolves true when the opener exits 0', async () => {
    fakeOpener(0);
    expect(await openSystemBrowser(LAUNCH, 'linux')).toBe(true);
  });
});
