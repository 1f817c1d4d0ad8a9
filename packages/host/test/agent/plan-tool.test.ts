/**
 * `update_plan` on the real host and sidecar, against the scripted loopback endpoint: the model is
 * offered the tool and told when to use it; a plan comes back counted and changes nothing in the
 * workspace; a malformed plan is a tool error the model sees, and the run goes on.
 */
import { readdirSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import type { AgentEvent } from '@bastion/protocol';
import { scriptedWorlds } from '../support/scripted-agent.js';

const worlds = scriptedWorlds('sk-plan-test-key');
afterEach(() => worlds.stop());

const results = (events: AgentEvent[]) =>
  events.flatMap((event) => (event.type === 'tool-result' && event.tool_name === 'update_plan' ? [event] : []));

it('a plan is offered as a tool, counted in its result, and leaves the workspace as it was', async () => {
  const steps = [
    { step: 'Read the parser', status: 'completed' },
    { step: 'Fix the off-by-one', status: 'in_progress' },
    { step: 'Run the tests', status: 'pending' },
  ];
  const { agent, host, endpoint } = await worlds.start([
    { kind: 'tool-call', name: 'update_plan', input: { steps } },
    { kind: 'text', pieces: ['Planned.'] },
  ]);
  const before = readdirSync(host.workspace);
  const outcome = await agent.say('Fix the parser');
  expect(outcome.events.at(-1)?.type).toBe('run-finished');
  const [result] = results(outcome.events);
  expect(result).toMatchObject({ is_error: false, output: { steps: 3, completed: 1 } });
  expect(readdirSync(host.workspace)).toEqual(before);
  const offered = (endpoint.seen[0]?.body as { tools?: { function: { name: string } }[] }).tools ?? [];
  expect(offered.map((tool) => tool.function.name)).toContain('update_plan');
  expect(endpoint.seen[0]?.system).toContain('keep a short plan with update_plan');
});

it('a plan with an unknown status or no steps is a tool error the model is told of; the run goes on to its answer', async () => {
  const { agent, endpoint } = await worlds.start([
    { kind: 'tool-call', name: 'update_plan', input: { steps: [{ step: 'Fix it', status: 'doing' }] } },
    { kind: 'tool-call', name: 'update_plan', input: { steps: [] } },
    { kind: 'text', pieces: ['Done without a plan.'] },
  ]);
  const outcome = await agent.say('Fix it');
  expect(outcome.events.at(-1)?.type).toBe('run-finished');
  expect(results(outcome.events).map((event) => event.is_error)).toEqual([true, true]);
  // The third request carries both failed calls' results back to the model.
  const toolMessages = (endpoint.seen[2]?.body.messages ?? []).filter((message) => message.role === 'tool');
  expect(toolMessages).toHaveLength(2);
});
