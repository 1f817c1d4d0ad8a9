/** What a command says when another Bastion owns the home: who holds it and how to reach it. Exit 2. */
import { HomeInUseError, startBastionHost, type BastionHost, type BastionHostOptions } from '@bastion/host';

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
    process.stderr.write(`bastion: ${error.message}\n`);
    process.stderr.write(`bastion: ${next}\n`);
    return undefined;
  }
}

/** `--home DIR` as the user should type it again, or nothing for the default home. */
export function homeFlag(explicit: string | undefined): string {
  return explicit === undefined ? '' : ` --home ${explicit}`;
}
