/** The app's one door: the bridge's frozen `window.bastion`. Nothing here talks to the network. */
import type { BastionApi, Session } from '@bastion/bridge';

/** How long the page waits before asking the bridge again after a call failed (events, host asks). */
export const BRIDGE_RETRY_MS = 2_000;

export function getBastion(): BastionApi | undefined {
  return window.bastion;
}

/** A short, safe line for any failure (bridge errors carry a code and a fixed message). */
export function describeError(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error && 'message' in error) {
    const { code, message } = error;
    if (typeof code === 'string' && typeof message === 'string') return `${message} (${code})`;
  }
  return 'Something went wrong.';
}

/** A form field's text, trimmed ('' when absent or a file). */
export function formText(form: HTMLFormElement, name: string): string {
  const value = new FormData(form).get(name);
  return typeof value === 'string' ? value.trim() : '';
}

export function errorCode(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/**
 * A new session on the default model chosen in Settings (the home page's message; New session,
 * `/new`, makes it `provisional`: removed by the daemon if nothing touches or shows it).
 */
export function createSessionOnDefaultModel(
  bastion: BastionApi,
  options: { provisional?: true } = {},
): Promise<Session> {
  return bastion.sessions.create(options);
}
