/** A command-line mistake: printed with the usage text, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const USAGE = `Usage:
  bastion start [--workspace DIR] [--home DIR] [--no-open] [--json] [--verbose] [--unsandboxed-shell]
  bastion doctor [--json] [--home DIR]
  bastion run [--workspace DIR] [--home DIR] [--mode accept-edits|auto] [--provider ID] [--model ID] [--json] PROMPT

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

run: start Bastion, run one PROMPT in a new session and stream the answer and tool activity;
exit 0 when the run finishes, 1 when it fails. --mode auto lets commands run without asking
(informed consent); otherwise approvals are asked on the terminal, and denied without one.
--provider demo is an offline, deterministic demo model (no API key needed).

doctor: platform, Node, sandbox packages (and how to install what is missing), userData
permissions and the posture \`start\` would run with; exit 0 only for the full posture.
`;
