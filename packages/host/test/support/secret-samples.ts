/**
 * Test support: secret-shaped samples for the egress guard's tests. Every value is assembled at
 * run time from pieces, so no tracked file holds one and the repository-corpus test (which scans
 * every tracked file, this one included) can demand zero hits.
 */
import type { HeldSecret } from '../../src/network/secret-scanner.js';

export const join2 = (...parts: string[]): string => parts.join('');
export const letters = (length: number, seed: string): string =>
  seed.repeat(Math.ceil(length / seed.length)).slice(0, length);

/** One sample of each high-confidence format, with the kind the scan must name. */
export const FORMAT_SAMPLES: [string, string][] = [
  ['private-key-block', join2('-----BEGIN', ' RSA PRIVATE', ' KEY-----\nMIIEow')],
  ['private-key-block', join2('-----BEGIN', ' PRIVATE', ' KEY-----')],
  ['aws-access-key-id', join2('AKIA', 'Q3XJ7R2VN4TB8KLM')],
  ['aws-access-key-id', join2('ASIA', 'Z9Y8X7W6V5U4T3S2')],
  ['github-token', join2('ghp', '_', letters(36, 'aB3dE6gH9'))],
  ['github-token', join2('github', '_pat_', letters(22, 'Ab1'), '_', letters(59, 'Cd2'))],
  ['slack-token', join2('xox', 'b-', '123456789012', '-', letters(24, 'aZ9'))],
  ['stripe-live-key', join2('sk', '_live_', letters(24, 'Qw3'))],
  ['openai-api-key', join2('sk-', 'proj-', letters(48, 'Ab_9-'))],
  ['openai-api-key', join2('sk-', letters(20, 'Xy7'), 'T3Blbk', 'FJ', letters(20, 'Zq4'))],
  ['anthropic-api-key', join2('sk-', 'ant-', 'api03-', letters(60, 'Kl8_'))],
  ['google-api-key', join2('AI', 'za', letters(35, 'Sy0_-'))],
];

/** Credentials as auth.json would hold them (not of any real format, so only exact matching finds them). */
export const HELD_SAMPLES: HeldSecret[] = [
  { kind: 'credential:openai', value: join2('held-', 'openai-', letters(30, 'q1w2')) },
  { kind: 'credential:chatgpt-refresh', value: join2('rt_', letters(40, 'r3t4')) },
];
