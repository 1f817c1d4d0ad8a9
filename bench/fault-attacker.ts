/**
 * The attacking side of bench/faults.bench.ts, in its own process so its CPU does not slow the
 * listener under test: keeps `ATTACKERS` connections of each kind open on the port given, and
 * re-opens each one `REOPEN_MS` after the server cuts it, until killed.
 */
import { openAttack, type ListenerAttack } from '../packages/host/test/support/listener-attacks.js';

const port = Number(process.argv[2]);
const ATTACKERS = Number(process.argv[3] ?? 32);
const REOPEN_MS = 1_000;

function keepOpen(kind: ListenerAttack): void {
  void openAttack(kind, port, { giveUpMs: 120_000 }).outcome.then(() => setTimeout(() => keepOpen(kind), REOPEN_MS));
}

for (const kind of ['slow-loris', 'huge-header', 'many-headers'] as const)
  for (let i = 0; i < ATTACKERS; i++) keepOpen(kind);
process.stdout.write('attacking\n');
