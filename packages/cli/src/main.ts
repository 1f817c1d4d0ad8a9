#!/usr/bin/env node
/**
 * The `bastion` entry. For the commands that start a host (`start`, `run`) it begins the host's
 * start first (host-start-prelude.ts: the home's checks, the process's journaled temp root, then
 * srt's initialize inside it), so srt's wait for its bridge processes overlaps loading the rest of
 * the CLI and the host (cli.ts, a chunk of its own in the bundle). The host takes that prelude when
 * it was begun for the start it makes; one no host took is released once the command has finished.
 */
import { parseArgs } from 'node:util';
import { keepStopSignals } from './stop-signals.js';

const HOST_COMMANDS: ReadonlySet<string> = new Set(['start', 'run']);

/**
 * The userData a host command will be given, read from its arguments as loosely as needed to find
 * `--home` (undefined: none to begin for, as with `--help`). Should it ever read them differently
 * from the command's own parser, the host finds the prelude was begun for another start and
 * releases it (only the overlap is lost).
 */
function hostCommandHome(argv: readonly string[]): { home: string | undefined } | undefined {
  const [name, ...rest] = argv;
  if (!HOST_COMMANDS.has(name ?? '')) return undefined;
  const { values, tokens } = parseArgs({
    args: rest,
    strict: false,
    allowPositionals: true,
    tokens: true,
    options: { home: { type: 'string' } },
  });
  if (tokens.some((token) => token.kind === 'option' && (token.name === 'help' || token.name === 'h')))
    return undefined;
  return { home: typeof values.home === 'string' ? values.home : undefined };
}

async function main(argv: readonly string[]): Promise<void> {
  // `start` stops cleanly on the first stop signal from its first line: one that arrives while the
  // rest is still loading (srt's bridges are running by then) is kept for it.
  const handOver = argv[0] === 'start' ? keepStopSignals() : undefined;
  const hostHome = hostCommandHome(argv);
  const prelude = hostHome ? await import('@bastion/host/start-prelude') : undefined;
  if (prelude) {
    try {
      prelude.beginProcessHostStart({
        userData: prelude.resolveUserDataPath(hostHome?.home),
        ownsProcess: true,
        srt: process.platform === 'linux',
      });
    } catch {
      // A home refused by its path (empty, a file): the command meets the same refusal and reports it.
    }
  }
  const { runCli } = await import('./cli.js');
  await runCli([...argv], new URL('../package.json', import.meta.url));
  await prelude?.releaseUntakenHostStart();
  handOver?.();
}

// No top-level await: the build runs this entry as a script with V8's code cache (bundle-loader.ts).
void main(process.argv.slice(2));
