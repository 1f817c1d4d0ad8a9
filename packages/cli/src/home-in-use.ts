/** What a command says when another Bastion owns the home: who holds it, why that stops it, and what to do. Exit 2. */
import {
  HomeInUseError,
  startBastionHost,
  terminalLine,
  type BastionHost,
  type BastionHostOptions,
} from '@bastion/host';

/**
 * Start a host that owns the home; when another Bastion owns it, print the holder and `next` (what
 * to do instead) and resolve undefined — the command then exits 2.
 */
export async function startOwningHost(options: BastionHostOptions, next: string): Promise<BastionHost | undefined> {
  try {
    // A CLI process runs one host: it may own the process's temp dir.
    return await startBastionHost({ ...options, ownsProcess: true });
  } catch (error) {
    if (!(error instanceof HomeInUseError)) throw error;
    const { holder } = error;
    const who = holder
      ? ` (pid ${holder.pid}, \`bastion ${terminalLine(holder.command)}\`, UI ${terminalLine(holder.ui)})`
      : '';
    process.stderr.write(
      `bastion: Bastion is already running for this data folder${who}: ${terminalLine(error.userData)}\n`,
    );
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
