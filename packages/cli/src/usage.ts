/** A command-line mistake: printed with the usage text, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const USAGE = `Usage:
  bastion start [--workspace DIR] [--home DIR] [--no-open] [--json] [--verbose] [--unsandboxed-shell]
  bastion doctor [--json] [--home DIR]

Options:
  --workspace DIR   project folder the agent may work in (default: the current folder)
  --home DIR        Bastion's own data folder (default: $BASTION_HOME or ~/.bastion)
  --no-open         print the launch URL instead of opening a browser
  --json            one JSON object a line on stdout (the first is the ready line)
  --verbose         copy every log record to stderr
  --unsandboxed-shell
                    DANGEROUS: when the outer sandbox is unavailable, run the agent's shell
                    anyway, unsandboxed (without it the shell is withheld); no effect when
                    the sandbox is available

doctor: platform, Node, sandbox packages (and how to install what is missing), userData
permissions and the posture \`start\` would run with; exit 0 only for the full posture.
`;
