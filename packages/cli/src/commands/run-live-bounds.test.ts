/**
 * What `bastion run` keeps of the sidecar's events is bounded whatever the sidecar sends: a
 * command's output without a newline, and tool calls that never get a result (a compromised
 * sidecar sent 120 deltas of 3 MiB and grew the CLI to 2.9 GB).
 */
import { describe, expect, it } from 'vitest';
import { CLI_LIVE_PARTIAL_LINE_CHARS, CLI_MAX_OPEN_CALLS } from '@bastion/protocol';
import { liveLines, remember } from './run.js';

describe('bastion run keeps bounded state of what the sidecar streams', () => {
  it('a running command’s line that never ends is kept to CLI_LIVE_PARTIAL_LINE_CHARS across 64 deltas of 1 MiB; the lines before it and the next one come through whole', () => {
    const megabyte = 'x'.repeat(1024 * 1024);
    let state = liveLines('', 'first line\nsecond');
    expect(state.lines).toEqual(['first line']);
    for (let delta = 0; delta < 64; delta += 1) {
      state = liveLines(state.partial, megabyte);
      expect(state.lines).toEqual([]);
      expect(state.partial.length).toBeLessThanOrEqual(CLI_LIVE_PARTIAL_LINE_CHARS);
    }
    expect(state.partial.startsWith('second')).toBe(true);
    const ended = liveLines(state.partial, '\nthird line\n');
    expect(ended.lines[0]?.length).toBe(CLI_LIVE_PARTIAL_LINE_CHARS);
    expect(ended.lines.slice(1)).toEqual(['third line']);
    expect(ended.partial).toBe('');
  });

  it('tool calls that never get a result: the map holds CLI_MAX_OPEN_CALLS, the newest, after ten times as many', () => {
    const calls = new Map<string, number>();
    for (let index = 0; index < CLI_MAX_OPEN_CALLS * 10; index += 1) remember(calls, `call-${index}`, index);
    expect(calls.size).toBe(CLI_MAX_OPEN_CALLS);
    expect(calls.has(`call-${CLI_MAX_OPEN_CALLS * 10 - 1}`)).toBe(true);
    expect(calls.has('call-0')).toBe(false);
  });
});
