/** `bastion doctor` as a real CLI process, against the real srt dependency check. */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '@bastion/test-support';

const CLI = fileURLToPath(new URL('../dist/main.js', import.meta.url));

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function tempRoot(): string {
  const root = makeTempDir('bastion-doctor-');
  roots.push(root);
  return root;
}

function doctor(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): { code: number | null; report: Record<string, unknown>; stdout: string } {
  const result = spawnSync(process.execPath, [CLI, 'doctor', ...args], { env, encoding: 'utf8' });
  const stdout = result.stdout;
  return {
    code: result.status,
    report: args.includes('--json') ? (JSON.parse(stdout) as Record<string, unknown>) : {},
    stdout,
  };
}

/** A PATH with everything srt looks up except bubblewrap. */
function pathWithoutBubblewrap(root: string): string {
  const bin = join(root, 'bin');
  mkdirSync(bin);
  for (const tool of ['socat', 'rg', 'which', 'sh']) symlinkSync(`/usr/bin/${tool}`, join(bin, tool));
  return bin;
}

describe('bastion doctor', () => {
  it('reports the full posture on this machine and exits 0, in exactly the documented shape', () => {
    const root = tempRoot();
    const { code, report } = doctor(['--json', '--home', join(root, 'data')]);
    expect(report).toEqual({
      platform: 'linux',
      sandbox: { available: true, missing: [] },
      home: { path: join(root, 'data'), safe: true },
      store: { ok: true },
      posture: { sandbox: 'srt', shell: true },
      homeReads: { home: expect.any(String), allow: expect.any(Array), hiddenOnPath: expect.any(Array) },
      mcp: { file: join(root, 'data', 'host', 'mcp.json'), servers: [] },
    });
    expect(code).toBe(0);
  });

  it('names the MCP servers in mcp.json; one it cannot parse is named with its code, exits 1, and keeps its bytes', () => {
    const root = tempRoot();
    const data = join(root, 'data');
    mkdirSync(join(data, 'host'), { recursive: true, mode: 0o700 });
    const file = join(data, 'host', 'mcp.json');
    const servers = [
      { name: 'memory', command: 'node', args: ['server.js'] },
      { name: 'docs', command: 'docs-server', args: [] },
    ];
    writeFileSync(file, JSON.stringify({ version: 1, servers }), { mode: 0o600 });
    expect(doctor(['--json', '--home', data])).toMatchObject({
      code: 0,
      report: { mcp: { file, servers: ['memory', 'docs'] } },
    });
    expect(doctor(['--home', data]).stdout).toContain(`  mcp:       memory, docs in ${file}`);

    writeFileSync(file, '{"version": 1, "servers": [', { mode: 0o600 });
    const broken = doctor(['--json', '--home', data]);
    expect(broken).toMatchObject({ code: 1, report: { mcp: { servers: [], code: 'MCP_CONFIG_INVALID' } } });
    expect(doctor(['--home', data]).stdout).toContain('mcp.json needs attention: see above.');
    expect(readFileSync(file, 'utf8')).toBe('{"version": 1, "servers": [');
  });

  it('shows the HOME read allowlist: each entry with its source and presence, a BASTION_HOME_READ_ALLOW entry that re-opens a secret REFUSED, and PATH dirs under HOME the sandbox hides', () => {
    const home = tempRoot();
    mkdirSync(join(home, '.cargo', 'bin'), { recursive: true });
    mkdirSync(join(home, '.sdkman'));
    const env = {
      ...process.env,
      HOME: home,
      BASTION_HOME_READ_ALLOW: '.sdkman:.ssh',
      PATH: `${join(home, '.cargo', 'bin')}:${join(home, 'tools', 'bin')}:${process.env.PATH ?? ''}`,
    };
    const { report } = doctor(['--json', '--home', join(home, 'data')], env);
    const homeReads = report.homeReads as { allow: Record<string, unknown>[]; hiddenOnPath: string[] };
    expect(homeReads.allow).toEqual(
      expect.arrayContaining([
        { path: join(home, '.cargo', 'bin'), source: 'default', exists: true },
        { path: join(home, '.nvm'), source: 'default', exists: false },
        { path: join(home, '.sdkman'), source: 'BASTION_HOME_READ_ALLOW', exists: true },
        {
          path: join(home, '.ssh'),
          source: 'BASTION_HOME_READ_ALLOW',
          exists: false,
          refused: `re-opens the HOME secret "${join(home, '.ssh')}"`,
        },
      ]),
    );
    expect(homeReads.hiddenOnPath).toEqual([join(home, 'tools', 'bin')]);
    const text = doctor(['--home', join(home, 'data')], env).stdout;
    expect(text).toMatch(/~\/\.cargo\/bin +default +present/);
    expect(text).toMatch(/~\/\.ssh +BASTION_HOME_READ_ALLOW +REFUSED: re-opens the HOME secret/);
    expect(text).toContain('on PATH but hidden in the sandbox: ~/tools/bin');
  });

  it('with bubblewrap hidden from PATH, reports it missing, the posture without shell, and exits 1', () => {
    const root = tempRoot();
    const env = { ...process.env, PATH: pathWithoutBubblewrap(root) };
    const { code, report } = doctor(['--json', '--home', join(root, 'data')], env);
    expect(report).toMatchObject({
      sandbox: { available: false, missing: ['bubblewrap'] },
      posture: { sandbox: 'none', shell: false },
    });
    expect(code).toBe(1);
    const text = doctor(['--home', join(root, 'data')], env);
    expect(text.stdout).toContain('missing package: bubblewrap');
    expect(text.stdout).toContain('apt-get install -y bubblewrap');
    expect(text.code).toBe(1);
  });

  it(
    'flags a userData dir open to others, or a loose auth.json, as unsafe and exits 1 (and changes neither), its last line saying userData needs attention and that start makes it private',
    { timeout: 60_000 },
    () => {
      const root = tempRoot();
      const data = join(root, 'data');
      mkdirSync(data, { mode: 0o700 });
      chmodSync(data, 0o755);
      expect(doctor(['--json', '--home', data])).toMatchObject({
        code: 1,
        report: { home: { path: data, safe: false } },
      });

      chmodSync(data, 0o700);
      writeFileSync(join(data, 'auth.json'), '{}', { mode: 0o644 });
      chmodSync(join(data, 'auth.json'), 0o644);
      const { code, report } = doctor(['--json', '--home', data]);
      expect(report).toMatchObject({ home: { safe: false } });
      expect(code).toBe(1);
      const shown = doctor(['--home', data]).stdout;
      expect(shown).toContain('auth.json mode 644, want 600');
      // The last line names what needs attention and what repairs it.
      expect(shown.trimEnd().split('\n').at(-1)).toBe(
        'userData needs attention: see above (`bastion start` makes loose permissions private: 700, files 600).',
      );

      chmodSync(join(data, 'auth.json'), 0o600);
      expect(doctor(['--json', '--home', data])).toMatchObject({ code: 0, report: { home: { safe: true } } });
    },
  );
});
