/**
 * SEC-004, provider transport: the sidecar has no network route of its own. Besides the sandbox's
 * empty allowlist (which an unsandboxed posture lacks), the global `fetch` is replaced at start-up
 * so a library that falls back to ambient fetch fails loudly instead of leaving through a route
 * the host never authorised. Provider code gets the host-routed fetch injected explicitly.
 */
import { DaemonError } from './errors.js';

export function disableAmbientFetch(): void {
  const refuse = (): Promise<Response> =>
    Promise.reject(
      new DaemonError('AMBIENT_FETCH_DISABLED', 'the daemon has no ambient network; use the host transport'),
    );
  Object.defineProperty(globalThis, 'fetch', { value: refuse, writable: false, configurable: false });
}
