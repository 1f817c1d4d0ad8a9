/**
 * Reviewer checklist 6 — provider traffic has no path but the transport. The daemon's built
 * output is scanned for any module that can open an outbound connection, and the sidecar's
 * global fetch is proven disabled. A new import of such a module fails this test. The build
 * includes the sidecar's bundle (dist/main.cjs and dist/chunks/, CommonJS-shaped scripts: an
 * import there is a `require` bound to a name, its members that name's properties), so the
 * dependencies it carries are scanned too.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIST = fileURLToPath(new URL('../../packages/daemon/dist/', import.meta.url));

/** Modules that can reach the network from the daemon, whatever names are imported from them. */
const FORBIDDEN_MODULES = [
  'https',
  'node:https',
  'undici',
  'node:tls',
  'tls',
  'node:dgram',
  'dgram',
  'node:dns',
  'dns',
  'ws',
];
/** Modules the daemon may import only for the named, non-connecting members. */
const RESTRICTED_MEMBERS: Record<string, readonly string[]> = {
  'node:http': ['createServer', 'Server', 'IncomingMessage', 'ServerResponse'],
  'node:net': ['Socket'],
  // @hono/node-server, in the bundle: a class it tests requests against and the header-name constants.
  'node:http2': ['Http2ServerRequest', 'constants'],
  http2: ['Http2ServerRequest', 'constants'],
};

function builtFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.c?js$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

interface ImportSite {
  file: string;
  module: string;
  members: string[];
}

function importsOf(file: string): ImportSite[] {
  const text = readFileSync(file, 'utf8');
  const sites: ImportSite[] = [];
  const staticImport = /import\s+(?:([\w$*\s{},]+?)\s+from\s+)?['"]([^'"]+)['"]/g;
  for (const match of text.matchAll(staticImport)) {
    const clause = match[1] ?? '';
    const members = [...clause.replace(/.*\{|\}.*/gs, '').split(',')]
      .map((m) => m.trim().split(/\s+as\s+/)[0] ?? '')
      .filter(Boolean);
    const namespace = /\*\s+as\s+\w+|^\s*\w+\s*$/.test(clause) ? ['*'] : [];
    sites.push({ file, module: match[2] ?? '', members: clause.includes('{') ? members : namespace });
  }
  // A script's `var import_x = require("x")` (or `__toESM(require("x"))`): the members are what
  // is read off that name; the name used any other way (passed on, spread) counts as all of them.
  const bound = /^var ([\w$]+) = (?:__toESM\()?require\("([^"]+)"\)\)?;$/gm;
  const boundAt = new Set<number>();
  for (const match of text.matchAll(bound)) {
    const name = match[1] ?? '';
    boundAt.add((match.index ?? 0) + match[0].indexOf('require('));
    const uses = [
      ...text.matchAll(new RegExp(`(?<![\\w$.])${name.replace(/\$/g, '\\$')}(?![\\w$])(\\.[\\w$]+)?`, 'g')),
    ];
    // The binding itself is one use with no member.
    const members = uses.slice(1).map((use) => (use[1] ? use[1].slice(1) : '*'));
    sites.push({ file, module: match[2] ?? '', members: [...new Set(members)] });
  }
  for (const match of text.matchAll(/(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    const at = (match.index ?? 0) + match[0].indexOf(match[0].startsWith('import') ? 'import(' : 'require(');
    if (!boundAt.has(at)) sites.push({ file, module: match[1] ?? '', members: ['*'] });
  }
  return sites;
}

describe('checklist: the daemon has no network route but the host transport', () => {
  const sites = builtFiles(DIST).flatMap(importsOf);

  it('scans a real build (the check can fail: the daemon does import node:http for its socketless server)', () => {
    expect(sites.length).toBeGreaterThan(20);
    expect(sites.some((site) => site.module === 'node:http')).toBe(true);
  });

  it('imports no module that opens outbound connections', () => {
    const offending = sites.filter((site) => FORBIDDEN_MODULES.includes(site.module));
    expect(offending).toEqual([]);
  });

  it('imports only non-connecting members of node:http, node:net and http2', () => {
    const offending = sites.filter((site) => {
      const allowed = RESTRICTED_MEMBERS[site.module];
      return allowed !== undefined && site.members.some((member) => !allowed.includes(member));
    });
    expect(offending).toEqual([]);
  });

  it('disables the global fetch in the sidecar, so no library can fall back to an ambient route', () => {
    const probe = `
      const { disableAmbientFetch } = await import(${JSON.stringify(join(DIST, 'no-ambient-fetch.js'))});
      disableAmbientFetch();
      try { await fetch('http://127.0.0.1:9/'); console.log('REACHED'); }
      catch (error) { console.log(error.code); }
      try { globalThis.fetch = async () => 'replaced'; } catch { /* strict mode */ }
      console.log(typeof (await fetch('http://127.0.0.1:9/').catch((e) => e.code)));`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' });
    expect(result.stdout.trim().split('\n')).toEqual(['AMBIENT_FETCH_DISABLED', 'string']);
  });
});
