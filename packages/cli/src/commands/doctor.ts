/**
 * `bastion doctor [--json] [--home DIR]`: what `bastion start` would run with on this machine —
 * platform, Node, whether the outer sandbox (srt) is available and which system packages are
 * missing with the command that installs them, whether userData's permissions are safe, and the
 * resulting posture, and the HOME read allowlist: what under HOME sandboxed commands and the
 * sidecar may read (everything else there is hidden), with each entry's source and whether it
 * exists, entries refused, and PATH directories under HOME the sandbox cannot see. It also runs SQLite's quick_check on sessions.db,
 * and names the MCP servers in mcp.json (or why the file cannot be used).
 * Exit 0 only when the full posture (sandbox srt, shell on) is available, userData is safe,
 * sessions.db is sound and mcp.json usable; 1 otherwise. It reads and never creates or changes anything (sessions.db
 * is opened read-only).
 */
import { lstatSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  checkSandboxAvailability,
  checkSessionsDatabase,
  decideSandboxPosture,
  findLooseUserDataEntries,
  hiddenPathEntries,
  HOME_READ_ALLOW_ENV,
  HostError,
  McpConfigStore,
  listHomeReads,
  resolveDaemonEntry,
  resolveUserDataPath,
  type HomeReadEntry,
} from '@bastion/host';
import type { StorageErrorCode } from '@bastion/protocol';
import { parseCommandLine } from '../usage.js';

export interface DoctorReport {
  platform: NodeJS.Platform;
  sandbox: { available: boolean; missing: string[] };
  home: { path: string; safe: boolean };
  /** sessions.db under quick_check; `code` and `problem` when it is not a sound database. */
  store: { ok: boolean; code?: StorageErrorCode; problem?: string };
  posture: { sandbox: 'srt' | 'none'; shell: boolean };
  /** What sandboxed processes may read under HOME; the rest of HOME is hidden. */
  homeReads: { home: string; allow: HomeReadEntry[]; hiddenOnPath: string[] };
  /** The MCP servers mcp.json names; `code` and `problem` when the file cannot be used (no server then runs). */
  mcp: { file: string; servers: string[]; code?: string; problem?: string };
}

/** The servers mcp.json names, or why it cannot be used. */
function inspectMcp(userData: string): DoctorReport['mcp'] {
  const store = new McpConfigStore(userData);
  try {
    return { file: store.path, servers: store.servers().map((server) => server.name) };
  } catch (error) {
    if (!(error instanceof HostError)) throw error;
    return { file: store.path, servers: [], code: error.code, problem: error.message };
  }
}

function homeReadLines(report: DoctorReport['homeReads']): string[] {
  const show = (path: string) => (path.startsWith(`${report.home}/`) ? `~${path.slice(report.home.length)}` : path);
  const width = Math.max(...report.allow.map((entry) => show(entry.path).length));
  return [
    `  home:      sandboxed commands and the sidecar read nothing in ${report.home} but the workspace, userData and:`,
    ...report.allow.map(
      (entry) =>
        `    ${show(entry.path).padEnd(width)}  ${entry.source.padEnd(23)}  ${
          entry.refused ? `REFUSED: ${entry.refused}` : entry.exists ? 'present' : 'absent'
        }`,
    ),
    ...report.hiddenOnPath.map((dir) => `    on PATH but hidden in the sandbox: ${show(dir)}`),
    `    add more with ${HOME_READ_ALLOW_ENV}=<path relative to HOME>[:…] in the environment of \`bastion start\``,
  ];
}

/** userData is safe when it is a directory of ours and nothing in it has group/other bits (`start` would repair them). */
export function inspectUserData(path: string): { safe: boolean; problems: string[] } {
  const problems: string[] = [];
  const uid = process.getuid?.();
  let dir;
  try {
    dir = lstatSync(path);
  } catch {
    return { safe: true, problems: ['not created yet (`bastion start` creates it with mode 0700)'] };
  }
  if (!dir.isDirectory()) return { safe: false, problems: ['is not a directory'] };
  if (uid !== undefined && dir.uid !== uid) problems.push('owned by another user');
  for (const { entry, kind, mode } of findLooseUserDataEntries(path)) {
    const name = entry === '.' ? '' : `${entry} `;
    problems.push(`${name}mode ${mode.toString(8)}, want ${kind === 'directory' ? '700' : '600'}`);
  }
  try {
    if (!lstatSync(join(path, 'auth.json')).isFile()) problems.push('auth.json is not a regular file');
  } catch {
    // No auth.json yet: nothing to expose.
  }
  return { safe: problems.length === 0, problems };
}

export function doctorCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandLine({
    args: argv,
    options: { json: { type: 'boolean', default: false }, home: { type: 'string' } },
  });
  const platform = process.platform;
  const availability = checkSandboxAvailability(platform);
  const posture = decideSandboxPosture({ platform, availability, unsandboxedShell: false });
  const userData = resolveUserDataPath(values.home);
  const home = inspectUserData(userData);
  const store = checkSessionsDatabase(userData, { thorough: true });
  const report: DoctorReport = {
    platform,
    sandbox: { available: availability.available, missing: [...availability.missing] },
    home: { path: userData, safe: home.safe },
    store: store.ok ? { ok: true } : { ok: false, code: store.code, problem: store.message },
    posture: { sandbox: posture.capabilities.sandbox, shell: posture.capabilities.shell },
    homeReads: { home: homedir(), allow: [], hiddenOnPath: [] },
    mcp: inspectMcp(userData),
  };
  report.homeReads.allow = listHomeReads({ home: report.homeReads.home, daemonEntry: resolveDaemonEntry() });
  report.homeReads.hiddenOnPath = hiddenPathEntries(
    report.homeReads.home,
    process.env.PATH ?? '',
    report.homeReads.allow,
  );
  const mcpUsable = report.mcp.code === undefined;
  const full = report.posture.sandbox === 'srt' && report.posture.shell && report.home.safe && store.ok && mcpUsable;

  if (values.json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return Promise.resolve(full ? 0 : 1);
  }
  const lines = [
    'Bastion doctor',
    `  platform:  ${platform} (${process.arch})`,
    `  node:      ${process.version}`,
    availability.available
      ? '  sandbox:   available (srt)'
      : `  sandbox:   UNAVAILABLE: ${availability.problems.join('; ')}`,
    ...availability.missing.map((name) => `    missing package: ${name}`),
    ...(availability.install ? [`    install with:    ${availability.install}`] : []),
    `  userData:  ${userData} — ${home.safe ? 'safe' : 'UNSAFE'}${home.problems.length > 0 ? ` (${home.problems.join('; ')})` : ''}`,
    store.ok
      ? `  sessions:  ${store.exists ? 'sessions.db passes quick_check' : 'no sessions.db yet'}`
      : `  sessions:  ${store.code}: ${store.message}`,
    `  posture:   \`bastion start\` would run with sandbox ${report.posture.sandbox}, shell ${report.posture.shell ? 'on' : 'withheld'}`,
    ...(posture.capabilities.reason ? [`             (${posture.capabilities.reason})`] : []),
    mcpUsable
      ? `  mcp:       ${report.mcp.servers.length === 0 ? 'no MCP server in' : `${report.mcp.servers.join(', ')} in`} ${report.mcp.file}${report.mcp.servers.length > 0 && !availability.available ? ' (they run only in the sandbox)' : ''}`
      : `  mcp:       ${report.mcp.code}: ${report.mcp.problem} — no MCP server runs until it is fixed or removed`,
    ...homeReadLines(report.homeReads),
    full
      ? 'All good.'
      : !store.ok
        ? 'sessions.db needs attention: see above.'
        : !mcpUsable
          ? 'mcp.json needs attention: see above.'
          : !report.home.safe
            ? 'userData needs attention: see above (`bastion start` makes loose permissions private: 700, files 600).'
            : 'Not the full posture: see above.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return Promise.resolve(full ? 0 : 1);
}
