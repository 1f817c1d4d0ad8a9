/**
 * The sidecar's heap settings under streamed bodies (SIDECAR_NODE_OPTIONS): a sidecar-sized heap
 * reading large provider bodies must not run full collections paced by the bytes. Under V8's
 * default heap growing the same 512 MiB cost a heap this small 23 full mark-compacts (measured),
 * one every ~32 MiB. The stand-in sidecar is started exactly like a real one (sidecarArgv).
 */
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { runTransportChild, writeBytes } from './transport-harness.js';
import { startServer } from '@bastion/test-support';

const MiB = 1024 * 1024;
const BODY = 128 * MiB;
const ROUNDS = 4;
const SIDECAR = fileURLToPath(new URL('./fixtures/gc-count-sidecar.mjs', import.meta.url));

it('4 × 128 MiB streamed into the sidecar: fewer full garbage collections there than bodies', async () => {
  const server = await startServer((_req, res) => writeBytes(res, BODY));
  try {
    const { code, report } = await runTransportChild(SIDECAR, [`${server.origin}/body`, String(ROUNDS)], server.origin);
    expect(code).toBe(0);
    const { bytes, full } = report as { bytes: number; full: number };
    console.info(`sidecar heap: ${full} full collections while streaming ${bytes / MiB} MiB`);
    expect(bytes).toBe(BODY * ROUNDS);
    expect(full).toBeLessThan(ROUNDS);
  } finally {
    await server.close();
  }
});
