/**
 * MCP servers' tools in agent runs, on the real host and sidecar: the model is offered
 * `mcp__SERVER__TOOL` with the server's own schema; the demo model calls one (`mcp SERVER TOOL
 * {json}`) and the session's mode gates it: `auto` runs it, `accept-edits` asks first,
 * `read-only` refuses it. A policy rule denies it before the server is reached. The fixture's
 * `count` tool says how many calls reached the server, so a refusal is shown to have reached none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCRIPTED_MODEL } from '@bastion/test-support';
import { AgentDriver, approvalRequestOf, textOf, toolResultOf } from '../commands/agent-stream.js';
import { McpConfigStore } from '../../src/mcp/mcp-config-store.js';
import { processesWith } from '../sandbox/process-tree.js';
import { startScriptedHost, type ScriptedHost } from '../support/scripted-agent.js';
import { MCP_FIXTURE } from '../support/mcp-fixture.js';

/** An argument the fixture ignores, so this file's servers are told from every other's. */
const MARKER = `mcp-agent-test-${process.pid}`;

let world: ScriptedHost;

beforeAll(async () => {
  world = await startScriptedHost([{ kind: 'text', pieces: ['Looked at the tools.'] }], 'sk-mcp-agent-test');
  new McpConfigStore(world.host.userData).add({
    name: 'fixture',
    command: process.execPath,
    args: [MCP_FIXTURE, 'normal', MARKER],
  });
}, 60_000);

afterAll(async () => {
  await world?.host.stop();
  await world?.endpoint.close();
});

const session = (mode: string) => AgentDriver.create(world.host, { provider: 'demo', model: 'demo', mode });

/** How many calls reached the fixture server so far, asked through an `auto` session. */
async function callsReached(): Promise<number> {
  const outcome = await (await session('auto')).say('mcp fixture count {}');
  const output = toolResultOf(outcome).output as { text: string };
  return Number(output.text);
}

describe("MCP servers' tools in runs", () => {
  it("the model is offered each ready server's tools as mcp__SERVER__TOOL with the server's input schema", async () => {
    const agent = await AgentDriver.create(world.host, { provider: 'local', model: SCRIPTED_MODEL });
    const outcome = await agent.say('What can you use?');
    expect(outcome.events.at(-1)?.type).toBe('run-finished');
    const offered = (
      world.endpoint.seen[0]?.body as {
        tools?: { function: { name: string; description: string; parameters: unknown } }[];
      }
    ).tools;
    const echo = offered?.find((tool) => tool.function.name === 'mcp__fixture__echo');
    expect(echo?.function.parameters).toMatchObject({ type: 'object', properties: { text: { type: 'string' } } });
    expect(echo?.function.description).toContain('says back its text');
    expect(echo?.function.description).toContain('MCP server "fixture"');
  });

  it('in auto mode the call runs at the server and its text is the tool result', async () => {
    const outcome = await (await session('auto')).say('mcp fixture echo {"text":"hello"}');
    expect(toolResultOf(outcome)).toMatchObject({
      tool_name: 'mcp__fixture__echo',
      is_error: false,
      output: { ok: true, server: 'fixture', tool: 'echo', text: 'echo: hello', is_error: false },
    });
    expect(textOf(outcome)).toContain('echo of the MCP server fixture answered: "echo: hello"');
  });

  it('in accept-edits mode the call waits for approval, and a denial never reaches the server', async () => {
    const before = await callsReached();
    const agent = await session('accept-edits');
    const asked = await agent.say('mcp fixture echo {"text":"ask me"}');
    const request = approvalRequestOf(asked);
    expect(request.tool_name).toBe('mcp__fixture__echo');
    await agent.answer({ approval_id: request.approval_id, tool_call_id: request.tool_call_id, approved: false });
    // `count` answers the calls before it: the one just made by callsReached itself is `before`'s own.
    expect(await callsReached()).toBe(before + 1);
  });

  it('in read-only mode the call is refused MODE_READ_ONLY and never reaches the server', async () => {
    const before = await callsReached();
    const outcome = await (await session('read-only')).say('mcp fixture echo {"text":"no"}');
    expect(toolResultOf(outcome).output).toMatchObject({ ok: false, code: 'MODE_READ_ONLY' });
    expect(await callsReached()).toBe(before + 1);
  });

  it("a project's deny rule on the tool refuses it in auto mode, and the server never gets the call", async () => {
    const rule = world.host.policy.add(
      { kind: 'project', root: world.host.workspace },
      { decision: 'deny', tools: ['mcp__fixture__echo'], reason: 'no echo here' },
    );
    try {
      const before = await callsReached();
      const outcome = await (await session('auto')).say('mcp fixture echo {"text":"denied"}');
      expect(JSON.stringify(toolResultOf(outcome).output)).toContain('POLICY_DENIED');
      expect(await callsReached()).toBe(before + 1);
    } finally {
      world.host.policy.remove({ kind: 'project', root: world.host.workspace }, rule.id);
    }
  });

  it('once the host stops, no server process of its is left running', async () => {
    expect(processesWith(MARKER).length).toBeGreaterThan(0);
    await world.host.stop();
    expect(processesWith(MARKER)).toEqual([]);
  });
});
