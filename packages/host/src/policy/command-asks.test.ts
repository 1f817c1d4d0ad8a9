import { describe, expect, it } from 'vitest';
import { createLogger, HOST_ASK_MAX_PENDING } from '@bastion/protocol';
import { CommandAsks, type CommandAskDetails } from './command-asks.js';

const details: CommandAskDetails = { command: 'touch', args: ['x'], cwd: '/w', workspace_root: '/w', rule_id: 'r1' };
const log = createLogger('test', () => undefined);
const never = () => new AbortController().signal;

/** A page waiting on the asks, as the desktop app does, so the host counts it as someone to ask. */
function pageWaiting(asks: CommandAsks): Promise<unknown> {
  return asks.wait(asks.list().revision);
}

describe('host-owned asks', () => {
  it('with no terminal and no desktop page waiting, nobody can be asked: unanswered at once, nothing held', async () => {
    const asks = new CommandAsks({ log });
    expect(asks.asks).toBe('nobody');
    await expect(asks.ask(details, never())).resolves.toBe('unanswered');
    expect(asks.list().asks).toEqual([]);
  });

  it('a waiting desktop page is woken with the held command, and only its answer through the host settles it', async () => {
    const asks = new CommandAsks({ log });
    const woken = pageWaiting(asks);
    expect(asks.asks).toBe('desktop');
    const outcome = asks.ask(details, never());
    const list = (await woken) as ReturnType<CommandAsks['list']>;
    expect(list.asks).toEqual([expect.objectContaining({ command: 'touch', args: ['x'], rule_id: 'r1' })]);
    const id = list.asks[0]?.id ?? '';
    expect(asks.answer('ask_not-this-one', true)).toBe(false);
    expect(asks.answer(id, true)).toBe(true);
    await expect(outcome).resolves.toBe('approved');
    expect(asks.answer(id, false)).toBe(false);
    expect(asks.list().asks).toEqual([]);
    asks.close();
  });

  it('a no from the page is a denial; an abort (the run stopped) and the host closing leave it unanswered', async () => {
    const asks = new CommandAsks({ log });
    void pageWaiting(asks);
    const denied = asks.ask(details, never());
    asks.answer(asks.list().asks[0]?.id ?? '', false);
    await expect(denied).resolves.toBe('denied');
    const controller = new AbortController();
    const aborted = asks.ask(details, controller.signal);
    controller.abort();
    await expect(aborted).resolves.toBe('unanswered');
    const closing = asks.ask(details, never());
    asks.close();
    await expect(closing).resolves.toBe('unanswered');
    expect(asks.asks).toBe('nobody');
  });

  it(`holds at most HOST_ASK_MAX_PENDING (${HOST_ASK_MAX_PENDING}) commands; one more is unanswered at once`, async () => {
    const asks = new CommandAsks({ log });
    void pageWaiting(asks);
    for (let i = 0; i < HOST_ASK_MAX_PENDING; i += 1) void asks.ask(details, never());
    await expect(asks.ask(details, never())).resolves.toBe('unanswered');
    expect(asks.list().asks).toHaveLength(HOST_ASK_MAX_PENDING);
    asks.close();
  });

  it('the terminal prompt, when there is one, is asked instead of the page, one question at a time', async () => {
    const order: string[] = [];
    const asks = new CommandAsks({
      log,
      prompt: async (ask) => {
        order.push(`start ${ask.args[0] ?? ''}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
        order.push(`end ${ask.args[0] ?? ''}`);
        return ask.args[0] === 'yes';
      },
    });
    expect(asks.asks).toBe('terminal');
    const [first, second] = await Promise.all([
      asks.ask({ ...details, args: ['yes'] }, never()),
      asks.ask({ ...details, args: ['no'] }, never()),
    ]);
    expect([first, second]).toEqual(['approved', 'denied']);
    expect(order).toEqual(['start yes', 'end yes', 'start no', 'end no']);
    expect(asks.list().asks).toEqual([]);
  });
});
