#!/usr/bin/env node
/**
 * The `bastion` entry: the rest of the CLI and the host (cli.ts, a chunk of its own in the bundle)
 * load after the stop-signal hand-over is in place. srt is initialized by the host, after it has
 * claimed its own temp root (host-temp-root.ts): srt makes its sockets in TMPDIR, and only inside
 * that root does the next start find and remove what a killed host left.
 */
import { keepStopSignals } from './stop-signals.js';

const argv = process.argv.slice(2);
// `start` stops cleanly on the first stop signal from its first line: one that arrives while the
// rest is still loading (srt's bridges are running by then) is kept for it.
const handOver = argv[0] === 'start' ? keepStopSignals() : undefined;
const { runCli } = await import('./cli.js');
await runCli(argv, new URL('../package.json', import.meta.url));
handOver?.();
