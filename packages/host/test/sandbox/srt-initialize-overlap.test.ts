/**
 * Issue 21: a host wraps and spawns its sidecar while srt's initialize is still starting its
 * proxies and host-side bridges (srt-session.ts `beginSrtSession`; the patched srt lets a wrap
 * with no proxy route go without waiting for them), and calls itself ready only once that
 * initialize has succeeded. The bridges are srt's `socat`, run by `@bastion/host/srt-socat`
 * through PATH, so this file puts a `socat` of its own first on PATH: one that waits for a gate
 * file before it runs the real one, or one that fails. Real srt, real sandboxed sidecar.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LogRecord } from '@bastion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir, waitFor } from '@bastion/test-support';
import { startTempHost, type TempHost } from '../support/temp-host.js';

const REAL_SOCAT = execFileSync('/bin/sh', ['-c', 'command -v socat'], { encoding: 'utf8' }).trim();
const PATH_BEFORE = process.env.PATH;

let host: TempHost | undefined;
afterEach(async () => {
  process.env.PATH = PATH_BEFORE;
  await host?.stop();
  host = undefined;
});

/** A directory holding a `socat` made of `body`, first on this process's PATH from now on. */
function socatShim(body: string): string {
  const dir = makeTempDir('bastion-socat-shim-');
  const shim = join(dir, 'socat');
  writeFileSync(shim, `#!/bin/sh\n${body}\n`);
  chmodSync(shim, 0o755);
  process.env.PATH = `${dir}:${PATH_BEFORE ?? ''}`;
  return dir;
}

const isStage = (record: LogRecord, stage: string) =>
  record.event === 'startup.stage' && record.source === 'host' && record.fields.stage === stage;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("the sidecar's start alongside srt's initialize", () => {
  it("the sidecar is wrapped and spawned while srt's bridges are held back, and the host is ready only after they come up", async () => {
    const dir = socatShim(
      [
        `echo bridge >> "${'$'}(dirname "$0")/calls"`,
        // Held until the test opens the gate (srt gives its bridges about 0.6 s, then tries again).
        `i=0; while [ ! -e "${'$'}(dirname "$0")/gate" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done`,
        `exec ${REAL_SOCAT} "$@"`,
      ].join('\n'),
    );
    const records: LogRecord[] = [];
    let ready = false;
    const starting = startTempHost({ logTap: (record) => records.push(record) }).then((started) => {
      ready = true;
      host = started;
      return started;
    });
    // Either may come first: the sidecar's launch does not wait for srt to ask for its bridges.
    await waitFor(
      () => records.some((record) => isStage(record, 'sidecar-launch')) && existsSync(join(dir, 'calls')),
      30_000,
      'the sidecar launched and a bridge asked for',
    );
    // The gate is shut, so no bridge is up: srt's initialize has not completed, nor the start.
    expect(ready).toBe(false);
    writeFileSync(join(dir, 'gate'), '');
    const started = await starting;
    expect(started.capabilities.sandbox).toBe('srt');
    // srt's first try came up (one bridge: its proxies share one port): the sidecar's spawn had not
    // waited for that try to time out, as a wrap waiting for srt's network would have.
    expect(readFileSync(join(dir, 'calls'), 'utf8')).toBe('bridge\n');
  });

  it('a failed srt initialize fails the start with SANDBOX_INIT and leaves no sidecar running', async () => {
    socatShim('exit 1');
    const records: LogRecord[] = [];
    const failure = await startTempHost({ logTap: (record) => records.push(record) }).then(
      (started) => {
        host = started;
        return undefined;
      },
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ code: 'SANDBOX_INIT' });
    // The sidecar had been spawned meanwhile, and is gone.
    const pids = records
      .filter((record) => record.event === 'sidecar.spawned')
      .map((record) => record.fields.pid as number);
    expect(pids.length).toBeGreaterThan(0);
    await waitFor(() => pids.every((pid) => !alive(pid)));
  });
});
