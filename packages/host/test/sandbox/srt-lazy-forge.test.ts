/**
 * Issue 21: Bastion's srt patch (patches/) loads node-forge (about 600 KB of CommonJS, a third of
 * srt's load time) on first use instead of with srt: only srt's TLS termination and MITM CA use it,
 * and Bastion uses neither. Checked in a fresh Node process: importing srt and initializing nothing
 * leaves node-forge unloaded, and srt's CA code still loads it and makes a CA that validates.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const HOST_PACKAGE = fileURLToPath(new URL('../..', import.meta.url));

const PROBE = `
import { createRequire } from 'node:module';
const forgeLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('/node-forge/'));
await import('@anthropic-ai/sandbox-runtime');
const afterImport = forgeLoaded();
const { generateCa, validateCaPair } = await import('@anthropic-ai/sandbox-runtime/dist/sandbox/mitm-ca.js');
const ca = generateCa({ cn: 'bastion probe CA' });
const valid = validateCaPair(ca.certPem, ca.keyPem);
console.log(JSON.stringify({ afterImport, afterCa: forgeLoaded(), valid: valid.ok, pem: ca.certPem.startsWith('-----BEGIN CERTIFICATE-----') }));
`;

describe("srt's node-forge", () => {
  it('is not loaded by importing srt, and is loaded by its CA code, whose CA still validates', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', PROBE], {
      cwd: HOST_PACKAGE,
    });
    expect(JSON.parse(stdout)).toEqual({ afterImport: false, afterCa: true, valid: true, pem: true });
  });
});
