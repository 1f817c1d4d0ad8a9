/** What a command says when another Bastion owns the home: who holds it and how to reach it. Exit 2. */
import { HomeInUseError } from '@bastion/host';

/** Print the holder and `next` (what to do instead); the exit code, or undefined for another error. */
export function reportHomeInUse(error: unknown, next: string): number | undefined {
  if (!(error instanceof HomeInUseError)) return undefined;
  process.stderr.write(`bastion: ${error.message}\n`);
  process.stderr.write(`bastion: ${next}\n`);
  return 2;
}

/** `--home DIR` as the user should type it again, or nothing for the default home. */
export function homeFlag(explicit: string | undefined): string {
  return explicit === undefined ? '' : ` --home ${explicit}`;
}
