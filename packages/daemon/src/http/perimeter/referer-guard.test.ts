import { describe, expect, it } from 'vitest';
import { describeAttack } from '../../../../../test/support/attack.js';
import { refererGuard } from './referer-guard.js';
import { appBehind, codeOf, UI_ORIGIN } from '../../../test/support/perimeter-kit.js';

const guard = () => refererGuard({ allowedOrigins: [UI_ORIGIN] });

describeAttack('path-traversal', 'daemon Referer path (refererGuard)', () => {
  const refused: [string, string | undefined][] = [
    ['a missing Referer', undefined],
    ['a page outside the desktop root', `${UI_ORIGIN}/blog/post`],
    ['the origin root', `${UI_ORIGIN}/`],
    ['a lookalike root /desktopX', `${UI_ORIGIN}/desktopX`],
    ['a lookalike root /desktop-evil/', `${UI_ORIGIN}/desktop-evil/`],
    ['dot-dot traversal out of the root', `${UI_ORIGIN}/desktop/../blog`],
    ['encoded dot-dot traversal', `${UI_ORIGIN}/desktop/%2e%2e/blog`],
    ['mixed-case encoded dots', `${UI_ORIGIN}/desktop/%2E%2e/blog`],
    ['an encoded slash', `${UI_ORIGIN}/desktop%2f..%2fblog`],
    ['an encoded backslash', `${UI_ORIGIN}/desktop/%5c..%5cblog`],
    ['a backslash traversal', `${UI_ORIGIN}/desktop\\..\\blog`],
    ['a desktop path on a foreign origin', 'https://evil.test/desktop/'],
    ['a desktop path on another port', 'http://127.0.0.1:1/desktop/'],
    ['userinfo in the Referer', 'http://user@127.0.0.1:45678/desktop/'],
    ['an unparseable Referer', 'not a url'],
    ['a relative Referer', '/desktop/'],
    ['an over-long Referer', `${UI_ORIGIN}/desktop/${'a'.repeat(5000)}`],
  ];
  for (const [name, referer] of refused) {
    it(`refuses ${name} with PERIMETER_REFERER and never reaches the handler`, async () => {
      const { app, reached } = appBehind(guard());
      const response = await app.request('/x', { headers: referer === undefined ? {} : { referer } });
      expect(response.status).toBe(403);
      expect(await codeOf(response)).toBe('PERIMETER_REFERER');
      expect(reached()).toBe(0);
    });
  }
});

describe('referer-guard lets the legitimate caller through', () => {
  for (const path of ['/desktop', '/desktop/', '/desktop/sessions/abc', '/desktop/?q=1#x']) {
    it(`passes a Referer of ${path}`, async () => {
      const { app, reached } = appBehind(guard());
      const response = await app.request('/x', { headers: { referer: `${UI_ORIGIN}${path}` } });
      expect(response.status).toBe(200);
      expect(reached()).toBe(1);
    });
  }
});
