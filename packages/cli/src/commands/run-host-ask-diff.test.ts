/**
 * The host's diff of a write at its terminal question (hostAskDiffLines): inert like an edit's diff,
 * and folded past CLI_HOST_ASK_DIFF_LINES with the lines left out counted.
 */
import { expect, it } from 'vitest';
import { CLI_HOST_ASK_DIFF_LINES } from '@bastion/protocol';
import { terminalLine } from '@bastion/host';
import { hostAskDiffLines } from './run.js';

/** A unified diff of `count` lines, each ended by a newline. */
const diffOf = (count: number) => Array.from({ length: count }, (_, index) => `+line ${index + 1}\n`).join('');

it('a diff of CLI_HOST_ASK_DIFF_LINES lines is shown whole; one line more shows that many and counts the one left out', () => {
  expect(hostAskDiffLines(diffOf(CLI_HOST_ASK_DIFF_LINES))).toEqual(
    diffOf(CLI_HOST_ASK_DIFF_LINES).split('\n').slice(0, -1),
  );
  const folded = hostAskDiffLines(diffOf(CLI_HOST_ASK_DIFF_LINES + 1));
  expect(folded).toHaveLength(CLI_HOST_ASK_DIFF_LINES + 1);
  expect(folded.at(-2)).toBe(`+line ${CLI_HOST_ASK_DIFF_LINES}`);
  expect(folded.at(-1)).toBe('… 1 more line of the diff left out');
});

it('a diff line holding terminal control sequences is shown inert, as terminalLine makes it', () => {
  const hostile = '+\u001b]0;owned\u0007\u001b[2Jcleared\r';
  expect(hostAskDiffLines(`${hostile}\n`)).toEqual([terminalLine(hostile)]);
  const [shown] = hostAskDiffLines(`${hostile}\n`);
  for (const control of ['\u001b', '\u0007', '\r']) expect(shown).not.toContain(control);
});
