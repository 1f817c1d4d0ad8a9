/**
 * `bastion open [--home DIR] [--no-open] [--json]`: a fresh single-use launch link (60 s) from the
 * Bastion running on that home, through its 0600 control socket — reopen a closed tab without
 * restarting. It opens the system browser when there is one, else prints the link.
 */
import { askRunningHost, launchAnswerSchema, openSystemBrowser, resolveUserDataPath } from '@bastion/host';
import { homeFlag } from '../home-in-use.js';
import { parseCommandLine } from '../usage.js';

export async function openCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandLine({
    args: argv,
    options: {
      home: { type: 'string' },
      'no-open': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const userData = resolveUserDataPath(values.home);
  const answer = await askRunningHost(userData, { op: 'open' }, launchAnswerSchema);
  if (!answer) {
    process.stderr.write(
      `bastion: no Bastion is running on ${userData}; start it with: bastion start${homeFlag(values.home)}\n`,
    );
    return 1;
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ event: 'launch', launch: answer.launch })}\n`);
    return 0;
  }
  const opened = !values['no-open'] && (await openSystemBrowser(answer.launch));
  process.stdout.write(
    opened
      ? 'bastion: opened the UI in your browser\n'
      : `Open ${answer.launch}\n(this link works once, within 60 seconds)\n`,
  );
  return 0;
}
