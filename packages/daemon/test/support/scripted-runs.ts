/**
 * Test support for files whose runs write the workspace on a script (undo, a session's changes):
 * the daemon with the scripted provider, stopped and cleaned after each test, a session on it,
 * and `runScript`, which plays tool calls as one run and waits for that run's own end.
 */
import { afterEach, expect } from 'vitest';
import type { AgentEvent, Session } from '@bastion/protocol';
import type { UndoLimits } from '../../src/undo/undo-store.js';
import type { WorkspaceWriter } from '../../src/workspaces/workspace-writer.js';
import { startInProcessDaemon, type InProcessDaemon } from './in-process-daemon.js';
import { scriptedProvider, type ScriptedTurn } from './scripted-provider.js';

export function scriptedRuns() {
  const { provider, turns, prompts } = scriptedProvider();
  let daemon: InProcessDaemon | undefined;
  /** Runs already seen to end: a stream replays the session from its start. */
  const ended = new Set<string>();
  afterEach(async () => {
    turns.length = 0;
    prompts.length = 0;
    ended.clear();
    await daemon?.stop();
    daemon?.cleanup();
    daemon = undefined;
  });

  /** A run's end not seen before. */
  const isNewEnd = (event: AgentEvent) =>
    (event.type === 'run-finished' || event.type === 'run-error') &&
    !ended.has(event.run_id) &&
    ended.add(event.run_id) !== undefined;

  /** The daemon (with `undoLimits` when given) and a session on the scripted model. */
  async function start(
    undoLimits?: Partial<UndoLimits>,
    wrapWriter?: (writer: WorkspaceWriter) => WorkspaceWriter,
  ): Promise<{ d: InProcessDaemon; session: Session }> {
    daemon = await startInProcessDaemon({
      providers: [provider],
      ...(undoLimits ? { undoLimits } : {}),
      ...(wrapWriter ? { wrapWriter } : {}),
    });
    const created = await daemon.request<Session>('POST', '/sessions', { provider: 'mock', model: 'scripted' });
    expect(created.status).toBe(201);
    return { d: daemon, session: created.body };
  }

  /** Play `script` as one run (each call, then a closing text), wait for its end, and answer its id; every call must succeed. */
  async function runScript(d: InProcessDaemon, sessionId: string, script: ScriptedTurn[]): Promise<string> {
    turns.push(...script, { text: 'done' });
    const ending = d.collect(sessionId, isNewEnd);
    const started = await d.request<{ run_id: string }>('POST', '/agent/run', { session_id: sessionId, message: 'go' });
    expect(started.status).toBe(202);
    const events = await ending;
    expect(events.at(-1)?.event.type).toBe('run-finished');
    for (const { event } of events) if (event.type === 'tool-result') expect(event.is_error).toBe(false);
    return started.body.run_id;
  }

  return { turns, prompts, isNewEnd, start, runScript };
}
