#!/usr/bin/env node
/**
 * The `bastion` entry. For the commands that start a host (`start`, `run`), srt's initialize,
 * which mostly waits for its bridge processes to come up, starts before the rest of the CLI and
 * the host are loaded (cli.ts, a chunk of its own in the bundle), so the two overlap. The host
 * takes the same srt session (srt-session.ts keeps one per process); this early hold is given
 * back when the command has finished, and the last release resets srt.
 */
import { acquireSrtSession } from '@bastion/host/srt-session';
import { keepStopSignals } from './stop-signals.js';

const HOST_COMMANDS: ReadonlySet<string> = new Set(['start', 'run']);

const argv = process.argv.slice(2);
// `start` stops cleanly on the first stop signal from its first line: one that arrives while the
// rest is still loading (srt's bridges are running by then) is kept for it.
const handOver = argv[0] === 'start' ? keepStopSignals() : undefined;
// A failure here is the host's to report: it acquires the session again and gets the error then.
const early = HOST_COMMANDS.has(argv[0] ?? '') ? acquireSrtSession().catch(() => undefined) : undefined;
const { runCli } = await import('./cli.js');
await runCli(argv, new URL('../package.json', import.meta.url));
await (await early)?.release();
handOver?.();
