/** A command-line mistake: printed with the usage text, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const USAGE = `Usage:
  bastion start [--workspace DIR] [--home DIR] [--no-open] [--json] [--verbose]

Options:
  --workspace DIR   project folder the agent may work in (default: the current folder)
  --home DIR        Bastion's own data folder (default: $BASTION_HOME or ~/.bastion)
  --no-open         print the launch URL instead of opening a browser
  --json            one JSON object a line on stdout (the first is the ready line)
  --verbose         copy every log record to stderr
`;
