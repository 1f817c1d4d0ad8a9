/**
 * `bastion policy list|add|remove` as real CLI processes on a temporary home: rules land in
 * policy.json (0600) under the workspace's real path or the global layer, `list` shows them with
 * the built-in rules, `remove` takes them out, and mistakes exit 2 without writing anything.
 */
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PolicyFile, PolicyListing } from '@bastion/protocol';
import { ensureUserData, HostAuditLog } from '@bastion/host';
import { makeTempDir } from '@bastion/test-support';
import { runCli } from './support/cli-process.js';

const cli = (args: string[]) => runCli(['policy', ...args]);

function world() {
  const root = makeTempDir('bastion-policy-cli-');
  const workspace = join(root, 'ws');
  mkdirSync(workspace);
  // The rules are keyed by the real path, whichever spelling the user gave.
  symlinkSync(workspace, join(root, 'ws-link'));
  return { root, home: join(root, 'home'), workspace, link: join(root, 'ws-link') };
}

describe('bastion policy', () => {
  it('add (project, by a symlinked spelling) then list --json: the rule is under the real path, 0600', async () => {
    const { home, workspace, link } = world();
    const added = await cli([
      'add',
      'deny',
      '--home',
      home,
      '--workspace',
      link,
      '--id',
      'no-push',
      '--reason',
      'not from here',
      '--',
      'git',
      'push',
      '--force',
    ]);
    expect(added.code).toBe(0);
    expect(added.stderr).toContain('added no-push');
    expect(statSync(join(home, 'host', 'policy.json')).mode & 0o777).toBe(0o600);
    const file = JSON.parse(readFileSync(join(home, 'host', 'policy.json'), 'utf8')) as PolicyFile;
    expect(file.projects[workspace]).toEqual([
      {
        id: 'no-push',
        decision: 'deny',
        tools: ['run_command'],
        command: 'git',
        argv_prefix: ['push', '--force'],
        reason: 'not from here',
      },
    ]);
    const listed = await cli(['list', '--home', home, '--workspace', workspace, '--json']);
    const listing = JSON.parse(listed.stdout) as PolicyListing;
    expect(listing.project?.rules.map((rule) => rule.id)).toEqual(['no-push']);
    expect(listing.builtin.map((rule) => rule.id)).toContain('builtin.rm-recursive-workspace-root');
  });

  it('add --global with --tool and --path, shown by the human list (its id and decision, then what it matches on the line below); remove takes it out, and removing it again exits 2 saying no such rule', async () => {
    const { home, workspace } = world();
    const added = await cli(['add', 'ask', '--global', '--home', home, '--tool', 'write_file', '--path', 'docs/**']);
    expect(added.code).toBe(0);
    const id = /added (\S+)/.exec(added.stderr)?.[1] ?? '';
    const listed = await cli(['list', '--home', home, '--workspace', workspace]);
    // Two lines a rule: where, id, decision and reason; then what it matches, indented.
    const lines = listed.stdout.split('\n');
    const at = lines.findIndex((line) => line.startsWith(`global   ${id} `));
    expect(lines[at]).toMatch(new RegExp(`^global   ${id} +ask +$`));
    expect(lines[at + 1]).toBe('         matches tools=write_file paths=docs/**');
    const builtin = lines.findIndex((line) => line.startsWith('builtin  builtin.rm-recursive-workspace-root '));
    expect(lines[builtin]).toMatch(/ hard-deny recursively removing the workspace root \(or a folder above it\)$/);
    expect(lines[builtin + 1]).toBe(
      '         matches tools=run_command argv="rm" with={-r|-R|--recursive|-*r*|-*R*} targets=workspace-root',
    );
    expect((await cli(['remove', id, '--global', '--home', home])).code).toBe(0);
    const after = JSON.parse(readFileSync(join(home, 'host', 'policy.json'), 'utf8')) as PolicyFile;
    expect(after.global).toEqual([]);
    const again = await cli(['remove', id, '--global', '--home', home]);
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(
      `bastion: no rule ${id} in the global rules; nothing was removed (bastion policy list shows the rules' ids)\n`,
    );
  });

  it.each([
    ['an unknown decision', ['add', 'maybe', '--', 'git']],
    ['a rule with no matcher', ['add', 'allow']],
    ['a command option without --', ['add', 'deny', 'git', 'push', '--force']],
    ['--workspace with --global', ['add', 'deny', '--global', '--workspace', '.', '--', 'git']],
  ])('refuses %s with exit 2 and writes no policy.json', async (_name, args) => {
    const { home } = world();
    const [action = '', ...rest] = args;
    const refused = await cli([action, '--home', home, ...rest]);
    expect(refused.code).toBe(2);
    expect(existsSync(join(home, 'host', 'policy.json'))).toBe(false);
  });

  it.each([['list'], ['add', 'deny', '--', 'git']])(
    'policy %j with a --workspace that is no folder exits 2 saying so, as every command does, and writes no policy.json',
    async (action, ...rest) => {
      const { root, home } = world();
      const missing = join(root, 'missing');
      const refused = await cli([action, '--home', home, '--workspace', missing, ...rest]);
      expect(refused.code).toBe(2);
      expect(refused.stderr.split('\n')[0]).toBe(`bastion: the workspace is not a folder: ${missing}`);
      expect(existsSync(join(home, 'host', 'policy.json'))).toBe(false);
    },
  );

  it.each([
    [['--tool', ''], '--tool needs a value (it was given an empty one)'],
    [['--path', '', '--tool', 'write_file'], '--path needs a value (it was given an empty one)'],
  ])('policy add allow %j exits 2 naming the option that is wrong, and writes no policy.json', async (flags, said) => {
    const { home } = world();
    const refused = await cli(['add', '--home', home, 'allow', ...flags]);
    expect(refused.code).toBe(2);
    expect(refused.stderr.split('\n')[0]).toBe(`bastion: ${said}`);
    expect(existsSync(join(home, 'host', 'policy.json'))).toBe(false);
  });

  it("an unknown action exits 2 naming it and policy's actions, then where policy's help is, and writes no policy.json", async () => {
    const { home } = world();
    const refused = await cli(['frob', '--home', home]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      'bastion: unknown policy command "frob" (list, add, remove or audit)\nRun "bastion policy --help" for its usage.\n',
    );
    expect(existsSync(join(home, 'host', 'policy.json'))).toBe(false);
  });

  it.each([
    [['add'], 'policy add needs a DECISION: allow, ask, deny, hard-deny'],
    [['remove'], 'policy remove needs a rule ID'],
    [['remove', 'one', 'two'], 'policy remove takes one rule ID'],
    [['list', 'extra'], 'policy list takes options only, not extra'],
    [['audit', 'extra'], 'policy audit takes options only, not extra'],
  ])(
    'policy %j exits 2 saying what that action lacks or has too much of, and writes no policy.json',
    async (args, said) => {
      const { home } = world();
      const refused = await cli([...args, '--home', home]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(new RegExp(`^bastion: ${said}\n\nUsage:\n`));
      expect(existsSync(join(home, 'host', 'policy.json'))).toBe(false);
    },
  );

  it('a built-in rule cannot be removed (exit 1, POLICY_RULE_BUILTIN)', async () => {
    const { home } = world();
    const refused = await cli(['remove', 'builtin.git-force-push', '--global', '--home', home]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('POLICY_RULE_BUILTIN');
  });

  it('audit prints the host audit log’s decisions, one line each, and how each question the host asked ended (and as JSON with --json)', async () => {
    const { home, workspace } = world();
    const audit = new HostAuditLog(ensureUserData(home).path);
    const call = {
      tool: 'run_command',
      workspace_root: workspace,
      command: { name: 'git', args: ['push'], cwd: workspace },
    };
    audit.record(call, { verdict: 'deny', rule_id: 'rule-1' });
    audit.record({ tool: 'read_file', workspace_root: workspace, paths: [join(workspace, 'a')] }, { verdict: 'none' });
    audit.recordAnswer(
      call,
      'rule-2',
      { result: 'always-allowed', channel: 'terminal', saved_rule_id: 'rule-3' },
      { stage: 'command' },
    );
    audit.recordAnswer(call, 'rule-2', { result: 'timed-out' }, { stage: 'command' });

    const human = await cli(['audit', '--home', home]);
    expect(human.code).toBe(0);
    const lines = human.stdout.trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/run_command\s+deny\s+rule-1 {2}\(git\)$/);
    expect(lines[1]).toMatch(/read_file\s+none\s+-$/);
    expect(lines[2]).toMatch(
      /run_command\s+ask\s+rule-2 {2}\(git\) {2}command {2}asked you: always allowed at the terminal \(saved rule-3\)$/,
    );
    expect(lines[3]).toMatch(/run_command\s+ask\s+rule-2 {2}\(git\) {2}command {2}asked you: not answered in time$/);
    const json = await cli(['audit', '--home', home, '--json']);
    expect(
      json.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual(audit.entries());
  });

  it('audit --session prints only the decisions the sidecar reported for that session, saying whose word the session is', async () => {
    const { home, workspace } = world();
    const audit = new HostAuditLog(ensureUserData(home).path);
    const call = (tool: string) => ({ tool, workspace_root: workspace });
    audit.record(call('read_file'), { verdict: 'none' }, { stage: 'check', session_id: 'ses_a', run_id: 'run_1' });
    audit.record(call('write_file'), { verdict: 'deny', rule_id: 'rule-b' }, { stage: 'check', session_id: 'ses_b' });
    audit.record(call('edit_file'), { verdict: 'none' }, { stage: 'check' });

    const human = await cli(['audit', '--session', 'ses_a', '--home', home]);
    expect(human.code).toBe(0);
    expect(human.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/read_file\s+none\s+- {2}check {2}session=ses_a \(sidecar's word\)$/),
    ]);
    expect(human.stderr).toContain('the decisions the sidecar reported for ses_a');
    const json = await cli(['audit', '--session', 'ses_b', '--json', '--home', home]);
    expect(
      json.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual([expect.objectContaining({ tool: 'write_file', session_id: 'ses_b', rule_id: 'rule-b' })]);
    const refused = await cli(['audit', '--session', '../x', '--home', home]);
    expect(refused.code).toBe(2);
  });
});
