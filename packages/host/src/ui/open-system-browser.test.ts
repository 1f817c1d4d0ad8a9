import { describe, expect, it } from 'vitest';
import { openSystemBrowser } from './open-system-browser.js';

describe('openSystemBrowser', () => {
  // On linux xdg-open exists here, so a URL that slipped past the check would resolve true.
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
      expect(await openSystemBrowser(url, 'linux')).toBe(false);
    });
  }

  it('has no opener on a platform without one', async () => {
    expect(await openSystemBrowser('http://127.0.0.1:4000/desktop/launch?ticket=abc', 'win32')).toBe(false);
  });
});
