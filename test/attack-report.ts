/**
 * Vitest reporter for `npm run test:attacks`: counts the attack tests by class (from their
 * `describeAttack` block) and prints one table row per class, then the total.
 */
import type { Reporter, TestCase } from 'vitest/node';
import { ATTACK_CLASSES, ATTACK_PREFIX } from './support/attack.js';

interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}

export default class AttackReport implements Reporter {
  readonly #tallies = new Map<string, Tally>();

  onTestCaseResult(testCase: TestCase): void {
    const match = new RegExp(`${ATTACK_PREFIX}([a-z-]+)`).exec(testCase.fullName);
    if (!match?.[1]) return;
    const tally = this.#tallies.get(match[1]) ?? { passed: 0, failed: 0, skipped: 0 };
    const state = testCase.result().state;
    if (state === 'passed') tally.passed += 1;
    else if (state === 'failed') tally.failed += 1;
    else tally.skipped += 1;
    this.#tallies.set(match[1], tally);
  }

  onTestRunEnd(): void {
    const rows = ATTACK_CLASSES.map(
      (name) => [name, this.#tallies.get(name) ?? { passed: 0, failed: 0, skipped: 0 }] as const,
    );
    const total = rows.reduce(
      (sum, [, t]) => ({
        passed: sum.passed + t.passed,
        failed: sum.failed + t.failed,
        skipped: sum.skipped + t.skipped,
      }),
      { passed: 0, failed: 0, skipped: 0 },
    );
    const lines = [
      '',
      'Attack suite by class',
      `${'class'.padEnd(22)} ${'attacks'.padStart(7)} ${'blocked'.padStart(7)} ${'failed'.padStart(6)}`,
      ...rows.map(
        ([name, t]) =>
          `${name.padEnd(22)} ${String(t.passed + t.failed).padStart(7)} ${String(t.passed).padStart(7)} ${String(t.failed).padStart(6)}`,
      ),
      `${'total'.padEnd(22)} ${String(total.passed + total.failed).padStart(7)} ${String(total.passed).padStart(7)} ${String(total.failed).padStart(6)}`,
      '',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
