/**
 * SEC-004: the host-owned confirmer, Bastion's "native confirmation dialog". A grant or a
 * workspace exists only after this says yes; the renderer can ask (through host IPC) but its word
 * is never consent. Consent comes from the host's own command line (`--allow-endpoint`) or from a
 * person at the host's terminal; with neither, the answer is no.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { checkEndpointUrl } from '@bastion/protocol';
import type { RoutePosture } from '../network/route-posture.js';
import { shellWord, terminalLine } from '../terminal/terminal-text.js';

export type ConsentRequest =
  { kind: 'endpoint'; origin: string; posture: RoutePosture } | { kind: 'workspace'; path: string };

/** Who a question beyond `--allow-endpoint` is put to. */
export type ConsentAsker = 'terminal' | 'consent-page' | 'nobody';

export interface HostConfirmer {
  /** Resolves true only on explicit host-side consent. Never throws; a failure is a no. */
  confirm(request: ConsentRequest): Promise<boolean>;
  /** Who is asked; absent for a confirmer that decides by itself (tests). */
  readonly asks?: ConsentAsker;
}

/**
 * When nobody can be asked at a terminal, ask on the host's confirmation page instead
 * (consent-page.ts); `--allow-endpoint` consent still answers first.
 */
export function withConsentPage(
  inner: HostConfirmer,
  page: { confirm(request: ConsentRequest): Promise<boolean> },
): HostConfirmer {
  if (inner.asks !== 'nobody') return inner;
  return {
    asks: 'consent-page',
    confirm: async (request) => (await inner.confirm(request)) || page.confirm(request),
  };
}

export interface HostConfirmerOptions {
  /** Endpoint URLs consented to on the command line (`--allow-endpoint`); each stands for its canonical origin. */
  allowedEndpoints?: readonly string[];
  /** The terminal to ask on; omitted or not a TTY means nobody can be asked. */
  terminal?: { input: Readable & { isTTY?: boolean }; output: Writable };
}

function describe(request: ConsentRequest): string {
  switch (request.kind) {
    case 'endpoint':
      return [
        'Bastion: allow provider requests to this custom endpoint?',
        `  origin: ${terminalLine(request.origin)}`,
        `  route:  ${request.posture.summary}`,
        '  Requests may carry the API key you stored for it. The grant lasts until Bastion stops.',
      ].join('\n');
    case 'workspace':
      // The renderer chose the path: shown as one shell word, so no character in it can redraw the prompt.
      return ['Bastion: let the agent work in this folder?', `  path: ${shellWord(request.path)}`].join('\n');
  }
}

export function createHostConfirmer(options: HostConfirmerOptions = {}): HostConfirmer {
  const preapproved = new Set<string>();
  for (const url of options.allowedEndpoints ?? []) {
    const checked = checkEndpointUrl(url);
    if (checked.ok) preapproved.add(checked.origin);
  }
  const terminal = options.terminal;
  // One question at a time: two prompts interleaved on one terminal could be answered crosswise.
  let queue: Promise<unknown> = Promise.resolve();

  const ask = (request: ConsentRequest): Promise<boolean> => {
    if (!terminal || terminal.input.isTTY !== true) return Promise.resolve(false);
    const asked = queue.then(
      () =>
        new Promise<boolean>((resolve) => {
          const rl = createInterface({ input: terminal.input, output: terminal.output, terminal: true });
          rl.on('close', () => resolve(false));
          rl.question(`${describe(request)}\nAllow? [y/N] `, (answer) => {
            resolve(/^(y|yes)$/i.test(answer.trim()));
            rl.close();
          });
        }),
    );
    queue = asked.catch(() => false);
    return asked.catch(() => false);
  };

  return {
    asks: terminal?.input.isTTY === true ? 'terminal' : 'nobody',
    confirm(request) {
      if (request.kind === 'endpoint' && preapproved.has(request.origin)) return Promise.resolve(true);
      return ask(request);
    },
  };
}
