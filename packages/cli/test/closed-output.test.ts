/**
 * `bastion run --json | head -1`: the reader goes away after one line. The CLI aborts the run (the
 * model's stream is abandoned, not played to the end), stops the host and exits 0 without a
 * stack trace; and without --verbose no log record reaches the terminal as raw JSON.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { startScriptedEndpoint, waitFor } from '@bastion/test-support';
import { closedAfterEachTest } from '../../../test/support/per-test.js';
import { CLI, scriptedRun } from './support/cli-process.js';

const startEndpoint = closedAfterEachTest(startScriptedEndpoint, (endpoint) => endpoint.close());

describe('the CLI when its reader goes away', () => {
  it('run --json whose stdout closes after the first line: the run is aborted, exit 0, no stack trace', async () => {
    const endpoint = await startEndpoint([
      { kind: 'text', pieces: Array.from({ length: 200 }, (_, index) => `piece ${index} `), delayMs: 50 },
    ]);
    const { args } = scriptedRun(endpoint);
    const child = spawn(process.execPath, [CLI, ...args, '--json', 'talk'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    let first = '';
    await new Promise<void>((resolve) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        first += chunk;
        if (first.includes('\n')) {
          // What `head -1` does: read one line, close the pipe.
          child.stdout.destroy();
          resolve();
        }
      });
    });
    expect(JSON.parse(first.split('\n')[0] ?? '')).toMatchObject({ type: 'run-started' });
    expect(await closed).toBe(0);
    expect(stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(stderr).toBe('');
    // The model's stream was given up, not played to the end.
    await waitFor(() => endpoint.abandonedStreams === 1, 10_000, 'the model stream to be abandoned');
    expect(endpoint.piecesSent).toBeLessThan(200);
  });
});
