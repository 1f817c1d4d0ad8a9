/**
 * The attack suite's naming: every attack test sits in a `describeAttack(class, …)` block, so
 * `npm run test:attacks` can run just these and print a table by class. Each `it` inside is one
 * named attack and must prove no side effect (handler never reached, bytes unchanged, canary absent).
 */
import { describe } from 'vitest';

export const ATTACK_CLASSES = [
  'dns-rebinding',
  'cross-origin',
  'authentication',
  'path-traversal',
  'symlink-escape',
  'secret-read',
  'egress-bypass',
  'credential-redirect',
  'oauth-callback',
  'approval-forgery',
  'channel-abuse',
  'resource-exhaustion',
  'terminal-injection',
  'git-escape',
  'fs-race',
  'policy-bypass',
  'secret-egress',
  'home-read',
  'stale-wrap',
  'mcp-escape',
] as const;
export type AttackClass = (typeof ATTACK_CLASSES)[number];

export const ATTACK_PREFIX = 'attack:';

export function describeAttack(attackClass: AttackClass, subject: string, body: () => void): void {
  describe(`${ATTACK_PREFIX}${attackClass} ${subject}`, body);
}
