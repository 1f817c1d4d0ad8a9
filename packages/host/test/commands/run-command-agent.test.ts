/**
 * run_command end to end: the real host (srt posture), the real sidecar, the demo model, the real
 * perimeter and event stream, the per-command sandbox. Approvals are answered through
 * `POST /agent/run { approval_answer }`; every refusal proves the command never ran (a marker file
 * stays absent), and every secret-reading attempt proves the canary reached no event and no log.
 */
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAttack } from '../../../../test/support/attack.js';
import type { Session } from '@bastion/protocol';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { makeTempDir, waitFor } from '@bastion/test-support';
import {
  AgentDriver,
  approvalRequestOf,
  expectCanaryNowhere as expectCanaryNowhereIn,
  textOf,
  toolResultOf,
} from './agent-stream.js';
import { octalEscapedPath, processesWith } from './command-harness.js';

const CANARY = 'CANARY-91d2c7aa-agent-path';

let host: TempHost;
let home: string;

/** A `$ ` message whose argument reaches the command verbatim (POSIX single quotes). */
function shellMessage(command: string, args: string[]): string {
  return `$ ${[command, ...args].map((word) => `'${word.replaceAll("'", `'\\''`)}'`).join(' ')}`;
}

function expectCanaryNowhere(raw: string): void {
  expectCanaryNowhereIn(host, raw, CANARY);
}

beforeAll(async () => {
  home = makeTempDir('bastion-agent-home-');
  mkdirSync(join(home, '.ssh'), { mode: 0o700 });
  writeFileSync(join(home, '.ssh', 'id_rsa'), `${CANARY}-ssh\n`);
  host = await startTempHost({ home });
  expect(host.capabilities).toMatchObject({ sandbox: 'srt', shell: true });
  writeFileSync(join(host.userData, 'auth.json'), `{"canary":"${CANARY}-auth"}\n`, { mode: 0o600 });
  writeFileSync(join(host.workspace, 'hello.txt'), 'hello\n');
}, 60_000);

afterAll(async () => {
  await host?.stop();
});

async function acceptEdits(): Promise<AgentDriver> {
  return AgentDriver.create(host, { workspace: host.workspace });
}

describe('run_command in accept-edits: supervised approvals', () => {
  it('asks before `touch`, and Allow runs it', async () => {
    const agent = await acceptEdits();
    const asked = await agent.say('$ touch made-by-agent');
    expect(asked.events.at(-1)).toMatchObject({ type: 'run-finished', finish_reason: 'approval-pending' });
    const request = approvalRequestOf(asked);
    expect(request.tool_name).toBe('run_command');
    expect(existsSync(join(host.workspace, 'made-by-agent'))).toBe(false);

    const allowed = await agent.answer({
      approval_id: request.approval_id,
      tool_call_id: request.tool_call_id,
      approved: true,
    });
    expect(allowed.status).toBe(202);
    expect(toolResultOf(allowed).output).toMatchObject({ exit_code: 0, timed_out: false });
    expect(existsSync(join(host.workspace, 'made-by-agent'))).toBe(true);
  });

  it('Deny: the command never runs and the model says it was denied', async () => {
    const agent = await acceptEdits();
    const request = approvalRequestOf(await agent.say('$ touch denied-marker'));
    const denied = await agent.answer({
      approval_id: request.approval_id,
      tool_call_id: request.tool_call_id,
      approved: false,
      reason: 'not today',
    });
    expect(textOf(denied)).toContain('denied');
    expect(textOf(denied)).toContain('not today');
    expect(existsSync(join(host.workspace, 'denied-marker'))).toBe(false);
  });

  it('runs `ls` without asking', async () => {
    const agent = await acceptEdits();
    const listed = await agent.say('$ ls');
    expect(listed.events.some((event) => event.type === 'tool-approval-request')).toBe(false);
    const output = toolResultOf(listed).output as { exit_code: number; stdout: string };
    expect(output.exit_code).toBe(0);
    expect(output.stdout).toContain('hello.txt');
  });

  it('asks for an interpreter and for a path-shaped `./ls`', async () => {
    const agent = await acceptEdits();
    for (const message of ["$ sh -c 'ls'", '$ ./ls', '$ /bin/ls']) {
      const asked = await agent.say(message);
      const request = approvalRequestOf(asked);
      await agent.answer({ approval_id: request.approval_id, tool_call_id: request.tool_call_id, approved: false });
    }
  });
});

describeAttack('approval-forgery', 'run_command approvals: refused with distinct codes, nothing runs', () => {
  const marker = () => join(host.workspace, 'forged-marker');

  async function pending(): Promise<{ agent: AgentDriver; approval_id: string; tool_call_id: string }> {
    const agent = await acceptEdits();
    const request = approvalRequestOf(await agent.say('$ touch forged-marker'));
    return { agent, approval_id: request.approval_id, tool_call_id: request.tool_call_id };
  }

  it('a new message while an approval is pending: 409 APPROVAL_PENDING', async () => {
    const { agent } = await pending();
    const refused = await agent.run({ message: '$ ls' });
    expect(refused).toMatchObject({ status: 409, body: { code: 'APPROVAL_PENDING' } });
    expect(existsSync(marker())).toBe(false);
  });

  it('an unknown approval id: APPROVAL_UNKNOWN', async () => {
    const { agent, tool_call_id } = await pending();
    const refused = await agent.answer({ approval_id: 'aprv_forged000000', tool_call_id, approved: true });
    expect(refused).toMatchObject({ status: 404, body: { code: 'APPROVAL_UNKNOWN' } });
    expect(existsSync(marker())).toBe(false);
  });

  it('a mismatched tool call id: APPROVAL_TOOL_CALL_MISMATCH', async () => {
    const { agent, approval_id } = await pending();
    const refused = await agent.answer({ approval_id, tool_call_id: 'demo-call-999', approved: true });
    expect(refused).toMatchObject({ status: 409, body: { code: 'APPROVAL_TOOL_CALL_MISMATCH' } });
    expect(existsSync(marker())).toBe(false);
  });

  it("another session's approval: APPROVAL_OTHER_SESSION", async () => {
    const { approval_id, tool_call_id } = await pending();
    const other = await acceptEdits();
    const refused = await other.answer({ approval_id, tool_call_id, approved: true });
    expect(refused).toMatchObject({ status: 403, body: { code: 'APPROVAL_OTHER_SESSION' } });
    expect(existsSync(marker())).toBe(false);
  });

  it('a second answer after a Deny: APPROVAL_ALREADY_ANSWERED', async () => {
    const { agent, approval_id, tool_call_id } = await pending();
    await agent.answer({ approval_id, tool_call_id, approved: false });
    const refused = await agent.answer({ approval_id, tool_call_id, approved: true });
    expect(refused).toMatchObject({ status: 409, body: { code: 'APPROVAL_ALREADY_ANSWERED' } });
    expect(existsSync(marker())).toBe(false);
  });

  it('an answer after abort: APPROVAL_CANCELLED', async () => {
    const { agent, approval_id, tool_call_id } = await pending();
    const aborted = await host.client.request('POST', '/agent/abort', { session_id: agent.session.id });
    expect(aborted.status).toBe(200);
    const refused = await agent.answer({ approval_id, tool_call_id, approved: true });
    expect(refused).toMatchObject({ status: 409, body: { code: 'APPROVAL_CANCELLED' } });
    expect(existsSync(marker())).toBe(false);
  });
});

describe('run_command in auto: informed consent, and secrets stay out', () => {
  let agent: AgentDriver;

  beforeAll(async () => {
    agent = await acceptEdits();
    const switched = await host.client.request<Session>('PATCH', `/sessions/${agent.session.id}`, {
      mode: 'auto',
      consent_by: 'e2e-tester',
    });
    expect(switched.status).toBe(200);
    expect(switched.body.mode).toBe('auto');
    expect(switched.body.auto_consent).toMatchObject({ by: 'e2e-tester' });
    expect(Number.isNaN(Date.parse(switched.body.auto_consent?.at ?? ''))).toBe(false);
  });

  it('runs a mutating command without asking', async () => {
    const ran = await agent.say('$ touch made-in-auto');
    expect(ran.events.some((event) => event.type === 'tool-approval-request')).toBe(false);
    expect(existsSync(join(host.workspace, 'made-in-auto'))).toBe(true);
  });

  it('a program on no path the sandbox shows: the result says so in words; a program that fails on its own gets no such notice', async () => {
    const missing = toolResultOf(await agent.say('$ no-such-program-4f2a --version')).output;
    expect(missing).toMatchObject({
      exit_code: 1,
      notices: [
        'bastion: no-such-program-4f2a was not found in the sandbox: it is not installed, or it is in a folder of your home the sandbox hides (bastion doctor lists the ones it shows; BASTION_HOME_READ_ALLOW adds one)',
      ],
    });
    const failing = toolResultOf(await agent.say("$ sh -c 'echo apply-seccomp >&2; exit 1'")).output;
    expect(failing).toMatchObject({ exit_code: 1 });
    expect((failing as { notices?: unknown }).notices).toBeUndefined();
  });

  it('a command that failed for want of the network: the result says so in words; one that prints those words and succeeds, or fails otherwise, gets no such notice', async () => {
    const lookup =
      "require('dns').lookup('registry.example', (error) => { console.error(String(error)); process.exit(1); })";
    const offline = toolResultOf(await agent.say(shellMessage('node', ['-e', lookup]))).output;
    expect(offline).toMatchObject({
      exit_code: 1,
      stderr: expect.stringMatching(/EAI_AGAIN|ENOTFOUND/) as string,
      notices: [
        'bastion: node seems to have needed the network, which sandboxed commands do not have (only Bastion itself reaches the model provider): run it yourself outside Bastion (e.g. to install dependencies), then ask the agent to go on',
      ],
    });
    const quoted = toolResultOf(await agent.say("$ sh -c 'echo getaddrinfo EAI_AGAIN in a log line'")).output;
    expect(quoted).toMatchObject({ exit_code: 0 });
    expect((quoted as { notices?: unknown }).notices).toBeUndefined();
    const failing = toolResultOf(await agent.say("$ sh -c 'echo no such option >&2; exit 2'")).output;
    expect(failing).toMatchObject({ exit_code: 2 });
    expect((failing as { notices?: unknown }).notices).toBeUndefined();
  });

  it('aborting the run mid-command ends the command and its process tree', async () => {
    const tag = `${6000 + Math.floor(Math.random() * 1000)}.4545`;
    const started = await host.client.request('POST', '/agent/run', {
      session_id: agent.session.id,
      message: `$ sleep ${tag}`,
    });
    expect(started.status).toBe(202);
    await waitFor(() => processesWith(tag).length > 0, 30_000, 'the sandboxed sleep to start');
    const aborted = await host.client.request('POST', '/agent/abort', { session_id: agent.session.id });
    expect(aborted).toMatchObject({ status: 200, body: { aborted: true } });
    const ended = await Promise.race([
      agent.readToEnd(),
      new Promise<never>((_resolve, reject) =>
        setTimeout(() => reject(new Error('the aborted run did not end within 20 s')), 20_000),
      ),
    ]);
    expect(ended.events.at(-1)).toMatchObject({ type: 'run-error', code: 'RUN_ABORTED' });
    await waitFor(() => processesWith(tag).length === 0, 20_000, 'every process of the aborted command to end');
  });

  it('`cat <userData>/auth.json` is refused by validation (SHELL_ARG_PROTECTED), without the path', async () => {
    const ran = await agent.say(shellMessage('cat', [join(host.userData, 'auth.json')]));
    const output = toolResultOf(ran).output as { ok: boolean; code: string; message: string };
    expect(output).toMatchObject({ ok: false, code: 'SHELL_ARG_PROTECTED' });
    expect(output.message).not.toContain(host.userData);
    expectCanaryNowhere(ran.raw);
  });

  it('`sh -c` reading auth.json by a computed path is denied by the kernel profile', async () => {
    const script = `cat "$(printf "${octalEscapedPath(host.userData)}")/auth.json"`;
    const ran = await agent.say(shellMessage('sh', ['-c', script]));
    const output = toolResultOf(ran).output as { exit_code: number };
    expect(output.exit_code).not.toBe(0);
    expectCanaryNowhere(ran.raw);
  });

  it('`python3 -c` reading auth.json by a computed path is denied by the kernel profile', async () => {
    const hex = Buffer.from(host.userData).toString('hex');
    const script = `import os;print(open(os.path.join(bytes.fromhex("${hex}").decode(),"auth.json")).read())`;
    const ran = await agent.say(shellMessage('/usr/bin/python3', ['-c', script]));
    const output = toolResultOf(ran).output as { exit_code: number };
    expect(output.exit_code).not.toBe(0);
    expectCanaryNowhere(ran.raw);
  });

  it('`cat ~/.ssh/id_rsa` is denied', async () => {
    const ran = await agent.say(shellMessage('cat', [join(home, '.ssh', 'id_rsa')]));
    expect((toolResultOf(ran).output as { exit_code: number }).exit_code).not.toBe(0);
    expectCanaryNowhere(ran.raw);
  });

  it('reading auth.json through a symlink in the workspace fails at both layers', async () => {
    symlinkSync(join(host.userData, 'auth.json'), join(host.workspace, 'looks-harmless.json'));
    // Path-shaped: the daemon resolves the symlink and refuses.
    const validated = await agent.say('$ cat ./looks-harmless.json');
    expect(toolResultOf(validated).output).toMatchObject({ ok: false, code: 'SHELL_ARG_PROTECTED' });
    // A bare name is not path-shaped, so it reaches the sandbox, whose profile denies the target.
    const kernel = await agent.say('$ cat looks-harmless.json');
    expect((toolResultOf(kernel).output as { exit_code: number }).exit_code).not.toBe(0);
    expectCanaryNowhere(validated.raw + kernel.raw);
  });
});

describe('run_command is absent when the posture has no shell (fail closed)', () => {
  it('on a platform without the sandbox, `$ touch` is answered by the demo without any tool call', async () => {
    const closed = await startTempHost({ home, platform: 'win32' });
    try {
      expect(closed.capabilities).toMatchObject({ sandbox: 'none', shell: false });
      const agent = await AgentDriver.create(closed, { workspace: closed.workspace });
      const answered = await agent.say('$ touch no-shell-marker');
      expect(
        answered.events.some((event) => event.type === 'tool-call' || event.type === 'tool-approval-request'),
      ).toBe(false);
      expect(textOf(answered)).toContain('shell is not available');
      expect(existsSync(join(closed.workspace, 'no-shell-marker'))).toBe(false);
    } finally {
      await closed.stop();
    }
  });
});
