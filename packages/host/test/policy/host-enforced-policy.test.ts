/**
 * The watchdog is enforced in the host: a stand-in sidecar that never asks the policy
 * (misbehaving-sidecar.mjs, `skip-policy`) sends `command.request` frames straight to the real
 * host, claiming the person approved them. What the policy denies is refused with
 * COMMAND_POLICY_DENIED and never runs (the marker stays absent, the workspace keeps its files);
 * for an `ask` the host asks the person itself (its terminal prompt, played here by the test) and
 * the sidecar's claim counts for nothing: held and not run until the prompt says yes, refused on a
 * no; a control command the policy does not cover runs, so the test can tell "refused" from
 * "nothing happened".
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeAttack } from '../../../../test/support/attack.js';
import type { HostAsk } from '@bastion/protocol';
import type { HostAskPrompt } from '../../src/policy/host-asks.js';
import { HostAuditLog } from '../../src/policy/host-audit-log.js';
import { PolicyStore } from '../../src/policy/policy-store.js';
import { sidecarEnvironment, type SidecarLauncher } from '../../src/supervisor/sidecar-launcher.js';
import { waitFor, makeTempDir } from '@bastion/test-support';
import { startTempHost, type TempHost } from '../support/temp-host.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/misbehaving-sidecar.mjs', import.meta.url));

interface HostFrame {
  type: string;
  id: string;
  code: string | null;
}

const COMMANDS = [
  { id: 'cmd_denied', command: 'touch', args: ['denied-marker'], approved: true },
  { id: 'cmd_hard', command: 'rm', args: ['-rf', '.'], approved: true },
  { id: 'cmd_unapproved', command: 'touch', args: ['asked-marker'] },
  { id: 'cmd_asked_refused', command: 'touch', args: ['refused-marker'], approved: true },
  { id: 'cmd_asked_approved', command: 'touch', args: ['approved-marker'], approved: true },
  { id: 'cmd_control', command: 'touch', args: ['control-marker'] },
];
/** Held by the host until the test's stand-in person answers it (asked last: the terminal asks one at a time). */
const HELD = 'cmd_asked_approved';

/** The host's terminal prompt, played by the test: what it was asked, and the yes it gives on cue. */
const asked: HostAsk[] = [];
let sayYes: (() => void) | undefined;
const person: HostAskPrompt = (ask) => {
  asked.push(ask);
  if (ask.command?.args[0] === 'approved-marker') return new Promise((resolve) => (sayYes = () => resolve(true)));
  return Promise.resolve(false);
};

let host: TempHost;
let workspace: string;
let frames: HostFrame[];
let userData: string;

beforeAll(async () => {
  const root = makeTempDir('bastion-policy-host-');
  userData = join(root, 'home');
  workspace = join(root, 'workspace');
  mkdirSync(userData, { mode: 0o700 });
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'keep.txt'), 'kept\n');
  // The person's own rules for this project, written before the sidecar starts.
  const policy = new PolicyStore(userData);
  const project = { kind: 'project', root: workspace } as const;
  policy.add(project, { decision: 'deny', command: 'touch', argv_prefix: ['denied-marker'] });
  policy.add(project, { decision: 'allow', command: 'rm' });
  policy.add(project, { decision: 'ask', command: 'touch', argv_prefix: ['asked-marker'] });
  policy.add(project, { decision: 'ask', command: 'touch', argv_prefix: ['approved-marker'] });
  policy.add(project, { decision: 'ask', command: 'touch', argv_prefix: ['refused-marker'] });

  const launcher: SidecarLauncher = () =>
    Promise.resolve({
      command: process.execPath,
      args: [FIXTURE],
      env: { ...sidecarEnvironment(), FIXTURE_MODE: 'skip-policy', FIXTURE_COMMANDS: JSON.stringify(COMMANDS) },
    });
  host = await startTempHost({
    userData,
    workspaces: [workspace],
    launcher,
    capabilities: { sandbox: 'none', shell: true, platform: process.platform },
    askPrompt: person,
  });
  await waitFor(
    async () => {
      const answer = await host.client.request<HostFrame[]>('GET', '/frames');
      frames = answer.body;
      return (
        sayYes !== undefined &&
        COMMANDS.every(
          ({ id }) => id === HELD || frames.some((frame) => frame.id === id && frame.type !== 'command.output'),
        )
      );
    },
    20_000,
    'the host to answer every command but the held one, and to ask about that one',
  );
}, 60_000);

afterAll(async () => {
  await host?.stop();
});

const endOf = (id: string) => frames.find((frame) => frame.id === id && frame.type !== 'command.output');

describeAttack('policy-bypass', 'host-enforced policy: a sidecar that skips the policy check', () => {
  it('a command a project rule denies is refused with COMMAND_POLICY_DENIED though it claims approval, and never runs', () => {
    expect(endOf('cmd_denied')).toMatchObject({ type: 'command.error', code: 'COMMAND_POLICY_DENIED' });
    expect(existsSync(join(workspace, 'denied-marker'))).toBe(false);
  });

  it('`rm -rf .` of the workspace root is refused by the built-in hard-deny over a project allow, and the workspace keeps its files', () => {
    expect(endOf('cmd_hard')).toMatchObject({ type: 'command.error', code: 'COMMAND_POLICY_DENIED' });
    expect(readFileSync(join(workspace, 'keep.txt'), 'utf8')).toBe('kept\n');
  });

  it('an `ask` command the person refuses at the host’s own prompt gets COMMAND_POLICY_UNAPPROVED and never runs', () => {
    expect(endOf('cmd_unapproved')).toMatchObject({ type: 'command.error', code: 'COMMAND_POLICY_UNAPPROVED' });
    expect(existsSync(join(workspace, 'asked-marker'))).toBe(false);
  });

  it('the sidecar’s claim that the person approved counts for nothing: refused by the host’s prompt, it is refused and never runs', () => {
    expect(endOf('cmd_asked_refused')).toMatchObject({ type: 'command.error', code: 'COMMAND_POLICY_UNAPPROVED' });
    expect(existsSync(join(workspace, 'refused-marker'))).toBe(false);
  });

  it('an `ask` command claiming approval is held, not run, until the host’s own prompt says yes; then it runs', async () => {
    // The host asked about the command it will run: the program, its arguments and the real directories.
    expect(asked.find((ask) => ask.command?.args[0] === 'approved-marker')).toMatchObject({
      tool: 'run_command',
      command: { name: 'touch', cwd: workspace },
      workspace_root: workspace,
    });
    expect(endOf(HELD)).toBeUndefined();
    expect(existsSync(join(workspace, 'approved-marker'))).toBe(false);
    sayYes?.();
    await waitFor(
      async () => {
        frames = (await host.client.request<HostFrame[]>('GET', '/frames')).body;
        return endOf(HELD) !== undefined;
      },
      10_000,
      'the held command to end',
    );
    expect(endOf(HELD)).toMatchObject({ type: 'command.end' });
    expect(existsSync(join(workspace, 'approved-marker'))).toBe(true);
  });

  it('control: a command no rule covers runs, so the refusals above are the policy’s', () => {
    expect(endOf('cmd_control')).toMatchObject({ type: 'command.end' });
    expect(existsSync(join(workspace, 'control-marker'))).toBe(true);
  });

  it('the host logs each policy refusal with the rule id and never the arguments', () => {
    const policyRecords = host.records.filter((record) => record.event === 'command.policy');
    expect(policyRecords.map((record) => record.fields.rule_id)).toEqual(
      expect.arrayContaining(['builtin.rm-recursive-workspace-root']),
    );
    const logged = JSON.stringify(host.records);
    for (const marker of ['denied-marker', 'asked-marker', 'approved-marker', 'refused-marker'])
      expect(logged).not.toContain(marker);
  });

  it('the host’s own audit log (host/audit.jsonl) holds each decision it enforced, though this sidecar keeps no audit rows at all, with no argument content', () => {
    const entries = new HostAuditLog(userData).entries();
    expect(entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ tool: 'run_command', command: 'touch', verdict: 'deny' }),
        expect.objectContaining({
          command: 'rm',
          verdict: 'hard-deny',
          rule_id: 'builtin.rm-recursive-workspace-root',
        }),
        expect.objectContaining({ command: 'touch', verdict: 'ask' }),
      ]),
    );
    const text = readFileSync(join(userData, 'host', 'audit.jsonl'), 'utf8');
    for (const marker of ['denied-marker', 'asked-marker', 'approved-marker', '-rf'])
      expect(text).not.toContain(marker);
  });
});
