import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { Capabilities } from '@bastion/protocol';
import { PostureBanner } from './posture-banner.js';

function render(capabilities: Capabilities) {
  const html = renderToStaticMarkup(
    createElement(PostureBanner, {
      link: { state: 'live', handshake: { name: 'bastion', version: '0', protocol: 1, capabilities } },
    }),
  );
  const text = html.replace(/<[^>]*>/g, '');
  /** What a phone-width window leaves out: the text of the `posture-detail` spans. */
  const details = [...html.matchAll(/<span[^>]*class="posture-detail"[^>]*>([^<]*)<\/span>/g)].map((m) => m[1]);
  const title = /title="([^"]*)"/.exec(html)?.[1];
  return { text, details, title };
}

describe('PostureBanner', () => {
  it('shows the sandbox name and an available shell as details a narrow window may leave out, all of it in the title', () => {
    const { text, details, title } = render({ sandbox: 'srt', shell: true, platform: 'linux' });
    expect(text).toBe('Sandboxed (srt) · Shell available (linux)');
    expect(details).toEqual([' (srt)', ' · ', 'Shell available']);
    expect(title).toBe('Sandboxed (srt) · Shell available · linux');
  });

  it('never marks a withheld shell as a detail: it stays in view at any width', () => {
    const { text, details } = render({ sandbox: 'srt', shell: false, platform: 'linux', reason: 'bwrap missing' });
    expect(text).toContain('Shell withheld');
    expect(details).toEqual([' (srt)']);
  });

  it('never marks a missing sandbox as a detail, and gives its reason', () => {
    const { text, details, title } = render({ sandbox: 'none', shell: false, platform: 'darwin', reason: 'no srt' });
    expect(text).toBe('Not sandboxed · Shell withheld — no srt (darwin)');
    expect(details).toEqual([]);
    expect(title).toBe('Not sandboxed · Shell withheld · no srt · darwin');
  });

  it('claims no sandbox and no shell once Bastion does not answer: it says Not connected', () => {
    const html = renderToStaticMarkup(
      createElement(PostureBanner, {
        link: { state: 'lost', code: 'UNREACHABLE', reason: 'the agent could not be reached (UNREACHABLE)' },
      }),
    );
    expect(html.replace(/<[^>]*>/g, '')).toBe('Not connected');
  });
});
