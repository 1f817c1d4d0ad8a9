/** What a command says when another Bastion owns the home: who holds it, why that stops it, and what to do. Exit 2. */
import {
  HomeInUseError,
  startBastionHost,
  terminalLine,
  type BastionHost,
  type BastionHostOptions,
  type HolderStatus,
} from '@bastion/host';
import { readableHostWarnings } from './host-warnings.js';
import { atLocalTime, timeAgo } from './local-time.js';

/**
 * Start a host that owns the home; when another Bastion owns it, print the holder and `next` (what
 * to do instead) and resolve undefined — the command then exits 2. Its warnings are told as
 * sentences (host-warnings.ts), but for the events in `told`, which the command says itself.
 */
export async function startOwningHost(
  options: BastionHostOptions,
  next: string,
  told: readonly string[] = [],
): Promise<BastionHost | undefined> {
  try {
    // A CLI process runs one host: it may own the process's temp dir. --verbose copies every record instead.
    const warnings = options.verbose === true ? {} : readableHostWarnings(options.userData, told);
    return await startBastionHost({ ...options, ...warnings, ownsProcess: true });
  } catch (error) {
    if (!(error instanceof HomeInUseError)) throw error;
    process.stderr.write(`bastion: Bastion is already running for this data folder: ${terminalLine(error.userData)}\n`);
    if (error.holder) process.stderr.write(`bastion: ${holderLine(error.holder, new Date())}\n`);
    // Two hosts on one home would each run a daemon writing its sessions.db, approvals and undo journal.
    process.stderr.write(
      'bastion: one Bastion at a time owns a data folder (its sessions database, approvals and undo records)\n',
    );
    process.stderr.write(`bastion: ${next}\n`);
    return undefined;
  }
}

/** `--home DIR` as the user should type it again, or nothing for the default home. */
export function homeFlag(explicit: string | undefined): string {
  return explicit === undefined ? '' : ` --home ${explicit}`;
}

/**
 * Which Bastion holds the home, so the person can find it: "it started at 06:41 (3 h ago) as
 * `bastion start` in /work/app: pid 1234, UI http://127.0.0.1:41234/desktop/". The UI's address
 * holds no ticket (the host's status never gives one). A host from before the start time was told
 * is named without it.
 */
function holderLine(holder: HolderStatus, now: Date): string {
  const command = `\`bastion ${terminalLine(holder.command)}\``;
  const what =
    holder.started_at === undefined
      ? `it runs ${command}`
      : `it started ${atLocalTime(holder.started_at, now)} (${timeAgo(holder.started_at, now)}) as ${command}`;
  const where = holder.workspace === undefined ? '' : ` in ${terminalLine(holder.workspace)}`;
  return `${what}${where}: pid ${holder.pid}, UI ${terminalLine(holder.ui)}`;
}
