import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger, HOST_ASK_MAX_PENDING, HOST_ASK_TIMEOUT_MS, type PolicyCall } from '@bastion/protocol';
import { makeTempDir } from '@bastion/test-support';
import { HostError } from '../errors.js';
import { HostAsks, type HostAskDetails } from './host-asks.js';
import { HostAuditLog } from './host-audit-log.js';
import { PolicyStore } from './policy-store.js';

const log = createLogger('test', () => undefined);
const never = () => new AbortController().signal;
/** Where the host asked, as its audit line says (the stage of the decision's line, the sidecar's session and run). */
const context = { stage: 'command', session_id: 'ses_asked', run_id: 'run_asked' } as const;

let userData: string;
let project: string;
let other: string;
let policy: PolicyStore;
let details: HostAskDetails;

beforeEach(() => {
  const root = makeTempDir('bastion-host-asks-');
  userData = join(root, 'home');
  project = join(root, 'project');
  other = join(root, 'other');
  for (const dir of [userData, project, other]) mkdirSync(dir, { mode: 0o700 });
  policy = new PolicyStore(userData);
  details = {
    tool: 'run_command',
    workspace_root: project,
    command: { name: 'touch', args: ['x'], cwd: project },
    rule_id: 'r1',
  };
});

/** The same call as `details`, in the project `root`. */
function callIn(root: string): PolicyCall {
  return { tool: 'run_command', workspace_root: root, command: { name: 'touch', args: ['x'], cwd: root } };
}

/** The code of the HostError `call` throws (a test failure when it throws nothing or something else). */
function refusalCode(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(HostError);
    return (error as HostError).code;
  }
  throw new Error('expected a HostError, nothing was thrown');
}

/** A page waiting on the asks, as the desktop app does, so the host counts it as someone to ask. */
function pageWaiting(asks: HostAsks): Promise<unknown> {
  return asks.wait(asks.list().revision);
}

describe('host-owned asks', () => {
  it('with no terminal and no desktop page waiting, nobody can be asked: unanswered at once, nothing held', async () => {
    const asks = new HostAsks({ log, policy });
    expect(asks.asks).toBe('nobody');
    await expect(asks.ask(details, never(), context)).resolves.toBe('unanswered');
    expect(asks.list().asks).toEqual([]);
  });

  it('a waiting desktop page is woken with the held call, and only its answer through the host settles it', async () => {
    const asks = new HostAsks({ log, policy });
    const woken = pageWaiting(asks);
    expect(asks.asks).toBe('desktop');
    const outcome = asks.ask(details, never(), context);
    const list = (await woken) as ReturnType<HostAsks['list']>;
    expect(list.asks).toEqual([
      expect.objectContaining({ tool: 'run_command', command: details.command, rule_id: 'r1' }),
    ]);
    const id = list.asks[0]?.id ?? '';
    expect(asks.answer('ask_not-this-one', 'allow')).toEqual({ answered: false });
    expect(asks.answer(id, 'allow')).toEqual({ answered: true });
    await expect(outcome).resolves.toBe('approved');
    expect(asks.answer(id, 'deny')).toEqual({ answered: false });
    expect(asks.list().asks).toEqual([]);
    asks.close();
  });

  it('a no from the page is a denial; an abort (the run stopped) and the host closing leave it unanswered', async () => {
    const asks = new HostAsks({ log, policy });
    void pageWaiting(asks);
    const denied = asks.ask(details, never(), context);
    asks.answer(asks.list().asks[0]?.id ?? '', 'deny');
    await expect(denied).resolves.toBe('denied');
    const controller = new AbortController();
    const aborted = asks.ask(details, controller.signal, context);
    controller.abort();
    await expect(aborted).resolves.toBe('unanswered');
    const closing = asks.ask(details, never(), context);
    asks.close();
    await expect(closing).resolves.toBe('unanswered');
    expect(asks.asks).toBe('nobody');
  });

  it(`holds at most HOST_ASK_MAX_PENDING (${HOST_ASK_MAX_PENDING}) calls; one more is unanswered at once`, async () => {
    const asks = new HostAsks({ log, policy });
    void pageWaiting(asks);
    for (let i = 0; i < HOST_ASK_MAX_PENDING; i += 1) void asks.ask(details, never(), context);
    await expect(asks.ask(details, never(), context)).resolves.toBe('unanswered');
    expect(asks.list().asks).toHaveLength(HOST_ASK_MAX_PENDING);
    asks.close();
  });

  it('the terminal prompt, when there is one, is asked instead of the page, one question at a time', async () => {
    const order: string[] = [];
    const asks = new HostAsks({
      log,
      policy,
      prompt: async (ask) => {
        const word = ask.command?.args[0] ?? '';
        order.push(`start ${word}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
        order.push(`end ${word}`);
        return word === 'yes';
      },
    });
    expect(asks.asks).toBe('terminal');
    const withArg = (arg: string): HostAskDetails => ({
      ...details,
      command: { name: 'touch', args: [arg], cwd: project },
    });
    const [first, second] = await Promise.all([
      asks.ask(withArg('yes'), never(), context),
      asks.ask(withArg('no'), never(), context),
    ]);
    expect([first, second]).toEqual(['approved', 'denied']);
    expect(order).toEqual(['start yes', 'end yes', 'start no', 'end no']);
    expect(asks.list().asks).toEqual([]);
  });
});

describe('"Always allow" on the host’s own question', () => {
  it('the host offers the exact-argv-prefix rule for the held call’s project, made from the call it holds', () => {
    const asks = new HostAsks({ log, policy });
    void pageWaiting(asks);
    void asks.ask(details, never(), context);
    expect(asks.list().asks[0]?.always_allow).toEqual({
      decision: 'allow',
      tools: ['run_command'],
      command: 'touch',
      argv_prefix: ['x'],
      reason: 'always allowed from an approval prompt',
    });
    asks.close();
  });

  it('`always-allow` from the page saves that rule to policy.json (0600) for this project only, then the call goes on', async () => {
    // The ask comes from a global rule: the project's allow, saved now, decides before it.
    policy.add({ kind: 'global' }, { id: 'ask-touch', decision: 'ask', command: 'touch' });
    const asks = new HostAsks({ log, policy });
    void pageWaiting(asks);
    const outcome = asks.ask(details, never(), context);
    const answered = asks.answer(asks.list().asks[0]?.id ?? '', 'always-allow');
    await expect(outcome).resolves.toBe('approved');
    expect(answered.rule).toMatchObject({ decision: 'allow', command: 'touch', argv_prefix: ['x'] });
    expect(policy.listing(project).project?.rules).toEqual([answered.rule]);
    expect(statSync(policy.path).mode & 0o777).toBe(0o600);
    // The next identical call is allowed in this project, still asked in another.
    expect(policy.evaluate(callIn(project))).toMatchObject({ verdict: 'allow', layer: 'project' });
    expect(policy.evaluate(callIn(other))).toMatchObject({ verdict: 'ask', rule_id: 'ask-touch' });
    asks.close();
  });

  it('a hard-deny still wins over a rule "Always allow" saved', async () => {
    const asks = new HostAsks({ log, policy, prompt: (_ask, _signal, save) => Promise.resolve(save() !== undefined) });
    await expect(asks.ask(details, never(), context)).resolves.toBe('approved');
    expect(policy.evaluate(callIn(project))).toMatchObject({ verdict: 'allow', layer: 'project' });
    policy.add(
      { kind: 'global' },
      { id: 'never-touch-x', decision: 'hard-deny', command: 'touch', argv_prefix: ['x'] },
    );
    expect(policy.evaluate(callIn(project))).toMatchObject({ verdict: 'hard-deny', rule_id: 'never-touch-x' });
  });

  it('not offered when a rule of the project itself asks (an ask beats an allow in one layer); `always-allow` is then refused and the call stays held', async () => {
    policy.add({ kind: 'project', root: project }, { id: 'ask-here', decision: 'ask', command: 'touch' });
    const asks = new HostAsks({ log, policy });
    void pageWaiting(asks);
    const outcome = asks.ask(details, never(), context);
    const held = asks.list().asks[0];
    expect(held).toBeDefined();
    expect(held?.always_allow).toBeUndefined();
    expect(refusalCode(() => asks.answer(held?.id ?? '', 'always-allow'))).toBe('POLICY_ALWAYS_ALLOW_UNAVAILABLE');
    expect(asks.list().asks.map((ask) => ask.id)).toEqual([held?.id]);
    expect(policy.listing(project).project?.rules.map((rule) => rule.id)).toEqual(['ask-here']);
    asks.answer(held?.id ?? '', 'deny');
    await expect(outcome).resolves.toBe('denied');
  });

  it('a rule that cannot be saved (policy.json unusable) leaves the page’s call held, with the store’s code', () => {
    const asks = new HostAsks({ log, policy });
    void pageWaiting(asks);
    void asks.ask(details, never(), context);
    const held = asks.list().asks[0];
    expect(held?.always_allow).toBeDefined();
    mkdirSync(join(userData, 'host'), { recursive: true });
    // A directory where policy.json should be: neither readable as the file nor replaceable by it.
    mkdirSync(policy.path);
    expect(refusalCode(() => asks.answer(held?.id ?? '', 'always-allow'))).toMatch(/^PRIVATE_FILE_/);
    expect(asks.list().asks.map((ask) => ask.id)).toEqual([held?.id]);
    asks.close();
  });
});

describe('each question’s end is in the host’s audit log', () => {
  let audit: HostAuditLog;
  let audited: PolicyStore;
  beforeEach(() => {
    // The host's own directory, as a host's start makes it.
    mkdirSync(join(userData, 'host'), { mode: 0o700 });
    audit = new HostAuditLog(userData);
    audited = new PolicyStore(userData, { audit });
  });

  /** The answer lines the log holds, oldest first. */
  const answers = () => audit.entries().map((entry) => entry.answer);

  it('records each end on the page — yes, always allowed (the rule saved), no, the run stopped, the host stopping — beside the call’s stage, session and run, with no argument', async () => {
    const asks = new HostAsks({ log, policy: audited });
    void pageWaiting(asks);
    const answerHeld = (answer: 'allow' | 'deny' | 'always-allow') =>
      asks.answer(asks.list().asks[0]?.id ?? '', answer);
    const once = asks.ask(details, never(), context);
    answerHeld('allow');
    await expect(once).resolves.toBe('approved');
    const always = asks.ask(details, never(), context);
    const saved = answerHeld('always-allow').rule;
    await expect(always).resolves.toBe('approved');
    // The rule saved allows the next one at once: a rule of another id asks again.
    audited.add({ kind: 'global' }, { id: 'ask-again', decision: 'ask', command: 'touch' });
    const denied = asks.ask({ ...details, rule_id: 'ask-again' }, never(), context);
    answerHeld('deny');
    await expect(denied).resolves.toBe('denied');
    const controller = new AbortController();
    const stopped = asks.ask(details, controller.signal, context);
    controller.abort();
    await expect(stopped).resolves.toBe('unanswered');
    const closing = asks.ask(details, never(), context);
    asks.close();
    await expect(closing).resolves.toBe('unanswered');
    expect(answers()).toEqual([
      { result: 'approved', channel: 'desktop' },
      { result: 'always-allowed', channel: 'desktop', saved_rule_id: saved?.id },
      { result: 'denied', channel: 'desktop' },
      { result: 'run-stopped' },
      { result: 'host-stopped' },
    ]);
    const [first] = audit.entries();
    expect(first).toEqual({
      at: expect.any(String),
      tool: 'run_command',
      command: 'touch',
      verdict: 'ask',
      rule_id: 'r1',
      stage: 'command',
      session_id: 'ses_asked',
      run_id: 'run_asked',
      answer: { result: 'approved', channel: 'desktop' },
    });
    expect(readFileSync(audit.path, 'utf8')).not.toContain('"x"');
  });

  it('records nobody to ask and a question left unanswered past HOST_ASK_TIMEOUT_MS', async () => {
    vi.useFakeTimers();
    try {
      const asks = new HostAsks({ log, policy: audited });
      await expect(asks.ask(details, never(), context)).resolves.toBe('unanswered');
      void pageWaiting(asks);
      const waiting = asks.ask(details, never(), context);
      await vi.advanceTimersByTimeAsync(HOST_ASK_TIMEOUT_MS);
      await expect(waiting).resolves.toBe('unanswered');
      expect(answers()).toEqual([{ result: 'not-asked' }, { result: 'timed-out' }]);
      asks.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('records each end at the terminal: yes, yes with always allow, no, and a prompt that failed', async () => {
    const replies: (() => Promise<boolean>)[] = [];
    const asks = new HostAsks({
      log,
      policy: audited,
      prompt: (_ask, _signal, save) => {
        const reply = replies.shift();
        if (reply) return reply();
        save();
        return Promise.resolve(true);
      },
    });
    replies.push(() => Promise.resolve(true));
    await expect(asks.ask(details, never(), context)).resolves.toBe('approved');
    replies.push(() => Promise.resolve(false));
    await expect(asks.ask(details, never(), context)).resolves.toBe('denied');
    replies.push(() => Promise.reject(new Error('the terminal closed')));
    await expect(asks.ask(details, never(), context)).resolves.toBe('unanswered');
    await expect(asks.ask(details, never(), context)).resolves.toBe('approved');
    const saved = audited.listing(project).project?.rules[0];
    expect(answers()).toEqual([
      { result: 'approved', channel: 'terminal' },
      { result: 'denied', channel: 'terminal' },
      { result: 'not-answered', channel: 'terminal' },
      { result: 'always-allowed', channel: 'terminal', saved_rule_id: saved?.id },
    ]);
  });

  it('a yes whose end cannot be recorded (the log unwritable) refuses the call', async () => {
    const asks = new HostAsks({ log, policy: audited });
    void pageWaiting(asks);
    const outcome = asks.ask(details, never(), context);
    // A directory where the log should be: the answer line cannot be appended.
    mkdirSync(audit.path, { recursive: true });
    asks.answer(asks.list().asks[0]?.id ?? '', 'allow');
    await expect(outcome).resolves.toBe('unanswered');
    asks.close();
  });
});
