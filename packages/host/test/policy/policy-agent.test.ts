/**
 * The watchdog hook end to end: the real host (srt posture), the real sidecar, the demo model and
 * the real event stream, with rules added to the host's policy.json while it runs. Each refusal
 * proves the tool never acted (a marker stays absent, a file keeps its bytes, its content reaches
 * no event).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditPage, HostAsk } from '@bastion/protocol';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { AgentDriver, approvalRequestOf, toolResultOf } from '../commands/agent-stream.js';

const SECRET_TEXT = 'CANARY-4f0c-policy-denied-read';

let host: TempHost;
const hostAsked: HostAsk[] = [];

beforeAll(async () => {
  host = await startTempHost({
    // The host's own terminal prompt, played by the test: yes to what it is asked.
    askPrompt: (ask) => {
      hostAsked.push(ask);
      return Promise.resolve(true);
    },
  });
  expect(host.capabilities).toMatchObject({ sandbox: 'srt', shell: true });
  writeFileSync(join(host.workspace, 'keep.txt'), 'kept\n');
  mkdirSync(join(host.workspace, 'secret'));
  writeFileSync(join(host.workspace, 'secret', 'token.txt'), `${SECRET_TEXT}\n`);
  const project = { kind: 'project', root: host.workspace } as const;
  host.policy.add(project, { id: 'no-touch-denied', decision: 'deny', command: 'touch', argv_prefix: ['denied'] });
  host.policy.add(project, { id: 'rm-ok', decision: 'allow', command: 'rm' });
  host.policy.add(project, { id: 'ask-touch', decision: 'ask', command: 'touch', argv_prefix: ['asked'] });
  host.policy.add(project, { id: 'touch-ok', decision: 'allow', command: 'touch', argv_prefix: ['allowed'] });
  host.policy.add(project, { id: 'no-secret', decision: 'deny', tools: ['read_file'], paths: ['secret/**'] });
}, 60_000);

afterAll(async () => {
  await host?.stop();
});

const auto = () => AgentDriver.create(host, { workspace: host.workspace, mode: 'auto', consent_by: 'policy test' });
const acceptEdits = () => AgentDriver.create(host, { workspace: host.workspace });

describe('the policy hook in auto mode (it narrows auto, never widens it)', () => {
  it('a project deny holds in auto: `touch denied` is refused with POLICY_DENIED, nobody is asked, nothing is made', async () => {
    const run = await (await auto()).say('$ touch denied');
    expect(run.events.some((event) => event.type === 'tool-approval-request')).toBe(false);
    expect(toolResultOf(run).output).toMatchObject({ ok: false, code: 'POLICY_DENIED' });
    expect(existsSync(join(host.workspace, 'denied'))).toBe(false);
  });

  it('the built-in hard-deny beats a project allow in auto: `rm -rf .` is refused and the workspace keeps its files', async () => {
    const run = await (await auto()).say('$ rm -rf .');
    expect(toolResultOf(run).output).toMatchObject({ ok: false, code: 'POLICY_DENIED' });
    expect(JSON.stringify(toolResultOf(run).output)).toContain('builtin.rm-recursive-workspace-root');
    expect(readFileSync(join(host.workspace, 'keep.txt'), 'utf8')).toBe('kept\n');
  });

  it('the hard-deny holds for the root named as an option: `rm -r -f -- -x/`, `-x` a link to the root, is refused and the workspace keeps its files', async () => {
    symlinkSync(host.workspace, join(host.workspace, '-x'));
    try {
      const run = await (await auto()).say('$ rm -r -f -- -x/');
      expect(toolResultOf(run).output).toMatchObject({ ok: false, code: 'POLICY_DENIED' });
      expect(JSON.stringify(toolResultOf(run).output)).toContain('builtin.rm-recursive-workspace-root');
      expect(readFileSync(join(host.workspace, 'keep.txt'), 'utf8')).toBe('kept\n');
    } finally {
      rmSync(join(host.workspace, '-x'));
    }
  });

  it('an `ask` rule asks even in auto — once, by the host, not the agent — and the host’s yes runs the command', async () => {
    const agent = await auto();
    const asked = await agent.say('$ touch asked');
    expect(asked.events.some((event) => event.type === 'tool-approval-request')).toBe(false);
    expect(hostAsked).toEqual([
      expect.objectContaining({
        tool: 'run_command',
        command: { name: 'touch', args: ['asked'], cwd: host.workspace },
        rule_id: 'ask-touch',
        session_id: agent.session.id,
      }),
    ]);
    expect(toolResultOf(asked).output).toMatchObject({ exit_code: 0 });
    expect(existsSync(join(host.workspace, 'asked'))).toBe(true);
  });
});

describe('an allow rule never widens the mode or the sandbox', () => {
  it('read-only still refuses a command a project rule allows (MODE_READ_ONLY), asks nothing, makes nothing', async () => {
    host.policy.add(
      { kind: 'project', root: host.workspace },
      { id: 'touch-ro-ok', decision: 'allow', command: 'touch', argv_prefix: ['ro-marker'] },
    );
    const agent = await AgentDriver.create(host, { workspace: host.workspace, mode: 'read-only' });
    const run = await agent.say('$ touch ro-marker');
    expect(run.events.some((event) => event.type === 'tool-approval-request')).toBe(false);
    expect(toolResultOf(run).output).toMatchObject({ ok: false, code: 'MODE_READ_ONLY' });
    expect(existsSync(join(host.workspace, 'ro-marker'))).toBe(false);
  });

  it('the sandbox still refuses a write outside the workspace that a rule allows, in auto: the file is never made', async () => {
    host.policy.add(
      { kind: 'project', root: host.workspace },
      { id: 'touch-outside-ok', decision: 'allow', command: 'touch', argv_prefix: ['../outside-marker'] },
    );
    const run = await (await auto()).say('$ touch ../outside-marker');
    // It ran, allowed, and the sandbox's read-only view outside the workspace refused the write.
    expect(toolResultOf(run).output).toMatchObject({
      exit_code: 1,
      stderr: expect.stringContaining('Read-only file system'),
    });
    expect(existsSync(join(host.workspace, '..', 'outside-marker'))).toBe(false);
  });
});

describe('the policy hook in accept-edits', () => {
  it('an allow rule answers the mode’s prompt in advance: `touch allowed` runs without asking', async () => {
    const run = await (await acceptEdits()).say('$ touch allowed');
    expect(run.events.some((event) => event.type === 'tool-approval-request')).toBe(false);
    expect(toolResultOf(run).output).toMatchObject({ exit_code: 0 });
    expect(existsSync(join(host.workspace, 'allowed'))).toBe(true);
  });

  it('control: a command no rule covers still asks as the mode says (`touch other`)', async () => {
    const run = await (await acceptEdits()).say('$ touch other');
    expect(approvalRequestOf(run).tool_name).toBe('run_command');
    expect(existsSync(join(host.workspace, 'other'))).toBe(false);
  });

  it('a file tool is checked before it runs: reading secret/token.txt is POLICY_DENIED and its content reaches no event', async () => {
    const run = await (await acceptEdits()).say('read secret/token.txt');
    expect(toolResultOf(run)).toMatchObject({ tool_name: 'read_file', output: { ok: false, code: 'POLICY_DENIED' } });
    expect(run.raw).not.toContain(SECRET_TEXT);
    const control = await (await acceptEdits()).say('read keep.txt');
    expect(toolResultOf(control).output).toMatchObject({ content: 'kept\n' });
  });

  it('every decision is in the session’s audit log (verdict, rule, mode, outcome; the command name only)', async () => {
    const agent = await auto();
    await agent.say('$ touch denied');
    const audit = await host.client.request<AuditPage>('GET', `/sessions/${agent.session.id}/audit`);
    expect(audit.status).toBe(200);
    expect(audit.body.entries).toEqual([
      expect.objectContaining({
        tool_name: 'run_command',
        command_name: 'touch',
        mode: 'auto',
        verdict: 'deny',
        rule_id: 'no-touch-denied',
        rule_layer: 'project',
        approval: 'not-asked',
        outcome: 'policy-denied',
      }),
    ]);
    const denied = await acceptEdits();
    const request = approvalRequestOf(await denied.say('$ touch other-denied-by-user'));
    await denied.answer({ approval_id: request.approval_id, tool_call_id: request.tool_call_id, approved: false });
    const deniedAudit = await host.client.request<AuditPage>('GET', `/sessions/${denied.session.id}/audit`);
    expect(deniedAudit.body.entries).toEqual([
      expect.objectContaining({ tool_call_id: request.tool_call_id, approval: 'denied', outcome: 'denied-by-user' }),
    ]);
    expect(JSON.stringify(deniedAudit.body)).not.toContain('other-denied-by-user');
  });

  it('the decisions are logged with tool, verdict and rule id, never an argument', () => {
    const decisions = host.records.filter((record) => record.event === 'tool.decision');
    expect(decisions.map((record) => record.fields.rule_id)).toEqual(
      expect.arrayContaining(['no-touch-denied', 'no-secret', 'touch-ok']),
    );
    const logged = JSON.stringify(host.records);
    expect(logged).not.toContain('secret/token.txt');
    expect(logged).not.toContain(SECRET_TEXT);
  });
});

describe('tool results never carry a credential Bastion holds', () => {
  it('a file holding the stored OpenAI key is read with the key redacted: in the tool result, every event and the stored transcript', async () => {
    const key = `sk-held-${'k7'.repeat(20)}`;
    expect((await host.client.request('POST', '/secrets/set', { provider: 'openai', key })).status).toBe(200);
    writeFileSync(join(host.workspace, 'leak.txt'), `token=${key}\n`);
    const agent = await acceptEdits();
    const run = await agent.say('read leak.txt');
    expect(toolResultOf(run).output).toMatchObject({
      content: "token=[redacted: Bastion's openai credential]\n",
    });
    expect(run.raw).not.toContain(key);
    const transcript = await host.client.request('GET', `/sessions/${agent.session.id}/messages`);
    expect(transcript.status).toBe(200);
    expect(JSON.stringify(transcript.body)).toContain('redacted');
    expect(JSON.stringify(transcript.body)).not.toContain(key);
  });

  it('the key in base64 (a Basic authorization header) and base64url is redacted too: in the tool result, every event and the stored transcript', async () => {
    const key = `sk-held-${'q4'.repeat(20)}`;
    expect((await host.client.request('POST', '/secrets/set', { provider: 'openai', key })).status).toBe(200);
    const basic = Buffer.from(`user:${key}`).toString('base64');
    const url = Buffer.from(`>${key}`).toString('base64url');
    writeFileSync(join(host.workspace, 'encoded.txt'), `Authorization: Basic ${basic}\nid=${url}\n`);
    const agent = await acceptEdits();
    const run = await agent.say('read encoded.txt');
    const marker = "[redacted: Bastion's openai credential]";
    // The groups the key shares with the text around it stay: "user:" and its first byte, its last
    // two; ">" and its first two, its last one.
    expect(toolResultOf(run).output).toMatchObject({
      content: `Authorization: Basic ${basic.slice(0, 8)}${marker}${basic.slice(-4)}\nid=${url.slice(0, 4)}${marker}${url.slice(-2)}\n`,
    });
    const transcript = JSON.stringify(
      (await host.client.request('GET', `/sessions/${agent.session.id}/messages`)).body,
    );
    for (const encoded of [basic.slice(8, 60), url.slice(4, 56)]) {
      expect(run.raw).not.toContain(encoded);
      expect(transcript).not.toContain(encoded);
    }
  });
});
