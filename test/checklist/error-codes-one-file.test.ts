/**
 * Every error code is in one file: each code a package's source raises or answers with (a
 * `code: '…'` field, an error constructed with a code, a refusal helper's code) is a quoted member
 * of packages/protocol/src/error-codes.ts, and every code with an HTTP status is in its map.
 * A code added at a throw site and nowhere else fails here (and, where the site is typed, in tsc).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isWireErrorCode } from '@bastion/protocol';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ERROR_CODES_FILE = join(ROOT, 'packages/protocol/src/error-codes.ts');

/** Where a source names a code it raises: a field, a constructed error, a refusal helper's argument. */
const RAISED_CODE =
  /(?:\bcode: |Error\(|Failure\(|\brefuse\(|\bfail\(|Refusal\()'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{4,})'/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry === 'node_modules' || entry === 'dist' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry) && !/\.test\.tsx?$/.test(entry) && path !== ERROR_CODES_FILE ? [path] : [];
  });
}

const listed = new Set(
  [...readFileSync(ERROR_CODES_FILE, 'utf8').matchAll(/'([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1] ?? ''),
);
const raised = readdirSync(join(ROOT, 'packages')).flatMap((pkg) =>
  sourceFiles(join(ROOT, 'packages', pkg, 'src')).flatMap((path) =>
    [...readFileSync(path, 'utf8').matchAll(RAISED_CODE)].map((match) => ({
      code: match[1] ?? '',
      at: relative(ROOT, path),
    })),
  ),
);

describe('every error code is in error-codes.ts', () => {
  it('finds the codes the packages raise', () => {
    expect(new Set(raised.map(({ code }) => code)).size).toBeGreaterThan(150);
  });

  it('each code a source raises is a member of one of its unions', () => {
    expect(raised.filter(({ code }) => !listed.has(code))).toEqual([]);
  });

  it('each listed code but the channel’s and the bridge’s own has its HTTP status in WIRE_ERROR_STATUS', () => {
    const unmapped = [...listed].filter(
      (code) =>
        !isWireErrorCode(code) && !code.startsWith('CHANNEL_') && code !== 'UNREACHABLE' && code !== 'HTTP_ERROR',
    );
    expect(unmapped).toEqual([]);
  });
});
