/**
 * Issue 18 §3 and issue 16 §5: a 500-turn session through the real host and sidecar against the
 * scripted loopback endpoint (every model byte through the host-routed transport), on an endpoint
 * whose context window (8 192 tokens) the session outgrows many times over, so older turns are
 * compacted again and again.
 *  - Bastion's overhead per turn: the wall time from `POST /agent/run` to the run's last event,
 *    minus the time the endpoint spent answering that turn's requests; the median over turns
 *    490–500 against the median over turns 5–15 (around turn 10). Target ≤ 1.2×.
 *  - bytes sent per turn: the largest step request of the last 250 turns against the window's
 *    size in characters (tokens × 4, Bastion's estimate). Target ≤ 1×: bounded after compaction.
 */
import { CONTEXT_CHARS_PER_TOKEN } from '@bastion/protocol';
import { figure, median, type Benchmark } from './harness.js';
import { AgentDriver } from '../packages/host/test/commands/agent-stream.js';
import {
  defineScriptedProvider,
  SCRIPTED_MODEL,
  startScriptedEndpoint,
  type ScriptedRequest,
  type ScriptedTurn,
  removeTempDirs,
} from '@bastion/test-support';
import { startTempHost } from '../packages/host/test/support/temp-host.js';

const TURNS = 500;
const WINDOW = 8_192;
/** Turns each side of the comparison: around turn 10 (after the first run has loaded the AI SDK) and the last ones. */
const EARLY = { from: 5, to: 15 };
const LATE = { from: 490, to: 500 };
/** Windows whose medians the log line shows, to see the trend between. */
const TREND = [10, 100, 200, 300, 400, 500];

const isSummaryCall = (request: ScriptedRequest) => request.system?.startsWith('You summarise') === true;

function prompt(turn: number): string {
  return `Turn ${turn}: look at module ${turn % 37} and tell me what changed. ${'Some context for the task. '.repeat(12)}`;
}

export const longSessionBenchmark: Benchmark = {
  id: 'long-session',
  title: 'a 500-turn session with compaction: per-turn overhead (turn 500 vs turn 10) and bytes sent per turn',
  async run() {
    const endpoint = await startScriptedEndpoint((index, request): ScriptedTurn =>
      isSummaryCall(request)
        ? { kind: 'text', pieces: [`Summary ${index}: the user went through modules one by one; nothing is pending.`] }
        : { kind: 'text', pieces: [`Module ${index % 37} changed in two places; `, 'both are covered by tests.'] },
    );
    const host = await startTempHost({ allowEndpoints: [endpoint.baseUrl] });
    try {
      await defineScriptedProvider(host, endpoint, 'sk-bench-long-session', { context_window: WINDOW });
      const agent = await AgentDriver.create(host, { provider: 'local', model: SCRIPTED_MODEL });
      const overheadMs: number[] = [];
      const stepBytes: number[] = [];
      let compactions = 0;
      let firstCompaction = TURNS;
      for (let turn = 1; turn <= TURNS; turn += 1) {
        const before = endpoint.seen.length;
        const started = performance.now();
        const outcome = await agent.say(prompt(turn));
        const wall = performance.now() - started;
        if (outcome.events.at(-1)?.type !== 'run-finished') throw new Error(`turn ${turn} did not finish`);
        const compacted = outcome.events.filter((event) => event.type === 'context-compacted').length;
        if (compacted > 0 && compactions === 0) firstCompaction = turn - 1;
        compactions += compacted;
        const requests = endpoint.seen.slice(before);
        const serverMs = requests.reduce(
          (sum, request) => sum + ((request.answeredAt ?? request.receivedAt) - request.receivedAt),
          0,
        );
        overheadMs.push(wall - serverMs);
        stepBytes.push(
          Math.max(0, ...requests.filter((request) => !isSummaryCall(request)).map((request) => request.bytes)),
        );
      }
      const early = median(overheadMs.slice(EARLY.from - 1, EARLY.to));
      const late = median(overheadMs.slice(LATE.from - 1, LATE.to));
      const lateBytes = Math.max(...stepBytes.slice(TURNS / 2));
      const budget = WINDOW * CONTEXT_CHARS_PER_TOKEN;
      const trend = TREND.map((turn) => `${turn}: ${median(overheadMs.slice(turn - 6, turn + 5)).toFixed(1)}`);
      console.log(
        `long-session: ${TURNS} turns, ${compactions} compactions; overhead median (ms) around turn ${trend.join(', ')}; largest step request after turn ${TURNS / 2}: ${lateBytes} bytes (first turn ${stepBytes[0]}, before the first compaction ${Math.max(...stepBytes.slice(0, firstCompaction))})`,
      );
      return [
        figure(
          `per-turn overhead at turn ${LATE.from}–${LATE.to} vs ${EARLY.from}–${EARLY.to} (median, model time excluded)`,
          'ms',
          late,
          early,
          '≤ 1.2× turn 10',
          (ratio) => ratio <= 1.2,
        ),
        figure(
          `largest request of turns ${TURNS / 2 + 1}–${TURNS} vs the ${WINDOW}-token window (× ${CONTEXT_CHARS_PER_TOKEN} chars)`,
          'bytes',
          lateBytes,
          budget,
          '≤ 1× the window',
          (ratio) => ratio <= 1,
        ),
      ];
    } finally {
      await host.stop();
      await endpoint.close();
      removeTempDirs();
    }
  },
};
