/**
 * Test and bench support: a long session written straight into a userData's sessions.db through
 * the daemon's own SessionStore (before the host starts), as if it had been run: each turn is a
 * stored user prompt `prompt N`, a `reply N` text delta, every fourth turn a run_command call and
 * its result, and the run's end. Returns the session id and the number of parts written.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, SessionStore } from '@bastion/daemon/testing';

export function seedLongSession(userData: string, turns: number): { sessionId: string; parts: number } {
  mkdirSync(userData, { recursive: true, mode: 0o700 });
  const db = openDatabase(join(userData, 'sessions.db'));
  try {
    const store = new SessionStore(db);
    const session = store.sessions.create({ provider: 'demo', model: 'demo', workspace: null, title: 'Long session' });
    let parts = 0;
    for (let turn = 0; turn < turns; turn += 1) {
      const { runId } = store.runs.start(session.id, {
        provider: 'demo',
        model: 'demo',
        userContent: [{ role: 'user', content: [{ type: 'text', text: `prompt ${turn}` }] }],
      });
      store.runs.appendEvent(session.id, { type: 'text-delta', run_id: runId, text: `reply ${turn}` });
      parts += 3;
      if (turn % 4 === 0) {
        const call = { run_id: runId, tool_call_id: `call_${turn}`, tool_name: 'run_command' };
        store.runs.appendEvent(session.id, { type: 'tool-call', ...call, input: { command: 'ls', args: ['-la'] } });
        store.runs.appendEvent(session.id, {
          type: 'tool-result',
          ...call,
          output: { exit_code: 0, stdout: `file-${turn}.txt\n`, stderr: '', truncated: false },
          is_error: false,
        });
        parts += 2;
      }
      store.runs.finish(session.id, runId, 'finished', { type: 'run-finished', run_id: runId, finish_reason: 'stop' });
    }
    store.runs.commit();
    return { sessionId: session.id, parts };
  } finally {
    db.close();
  }
}
