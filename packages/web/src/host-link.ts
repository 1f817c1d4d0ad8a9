/**
 * Whether Bastion answers this page: its handshake, asked as the page opens, again every
 * UI_HOST_LINK_CHECK_MS while it answers, at once when a view saw its own connection drop
 * (`recheck`), and every BRIDGE_RETRY_MS while it does not. A page whose Bastion was stopped then
 * says so, rather than showing the posture of a sandbox that is gone and offering to send a
 * message nowhere.
 */
import { useCallback, useEffect, useState } from 'react';
import type { BastionApi, HandshakeResponse } from '@bastion/bridge';
import { UI_HOST_LINK_CHECK_MS } from '@bastion/protocol';
import { BRIDGE_RETRY_MS, describeError, errorCode } from './bastion.js';

export type HostLink =
  | { state: 'connecting' }
  | { state: 'live'; handshake: HandshakeResponse }
  /** `code`: the failure's (UNREACHABLE: nothing answers at this page's address, Bastion is not running). */
  | { state: 'lost'; code: string | undefined; reason: string };

/** The same link, so that a check that changed nothing renders nothing again. */
function sameLink(a: HostLink, b: HostLink): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function useHostLink(bastion: BastionApi | undefined): { link: HostLink; recheck: () => void } {
  const [link, setLink] = useState<HostLink>({ state: 'connecting' });
  /** Bumped by `recheck`: the handshake is asked again now. */
  const [asked, setAsked] = useState(0);
  const recheck = useCallback(() => setAsked((count) => count + 1), []);
  useEffect(() => {
    if (!bastion) return undefined;
    let cancelled = false;
    let timer: number | undefined;
    const settle = (next: HostLink, again: number) => {
      if (cancelled) return;
      setLink((current) => (sameLink(current, next) ? current : next));
      timer = window.setTimeout(attempt, again);
    };
    const attempt = () => {
      bastion.handshake().then(
        (handshake) => settle({ state: 'live', handshake }, UI_HOST_LINK_CHECK_MS),
        (failure: unknown) =>
          settle({ state: 'lost', code: errorCode(failure), reason: describeError(failure) }, BRIDGE_RETRY_MS),
      );
    };
    attempt();
    return () => {
      cancelled = true;
      window.clearTimeout(timer);
    };
  }, [bastion, asked]);
  return { link, recheck };
}
