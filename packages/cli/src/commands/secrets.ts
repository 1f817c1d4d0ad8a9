/**
 * `bastion secrets set PROVIDER`: store an API key in auth.json through the sidecar (the only
 * owner of credentials) — the running Bastion's when one owns the home, else one of its own. The
 * key is read from the terminal without echo, or from stdin when it is piped; it never appears in
 * argv, the environment or any output. `bastion secrets delete PROVIDER` removes it the same way.
 */
import {
  BYOK_PROVIDER_IDS,
  providerIdSchema,
  SECRETS_MAX_KEY_CHARS,
  SECRETS_STORE_WAIT_MS,
  secretDeleteResponseSchema,
  secretKeySchema,
  secretSetResponseSchema,
  type WireErrorCode,
} from '@bastion/protocol';
import {
  askRunningHost,
  holderStatusSchema,
  HomeInUseError,
  resolveUserDataPath,
  secretsAnswerSchema,
  startBastionHost,
  terminalLine,
} from '@bastion/host';
import { readableHostWarnings } from '../host-warnings.js';
import { readPipedStdin } from '../piped-stdin.js';
import { parseCommandLine, unknownNameError, UsageError } from '../usage.js';

/**
 * Read a line from the TTY with echo off (raw mode), or all of piped stdin; undefined when the
 * person gives up at the terminal (Ctrl-C, or Ctrl-D, which would otherwise become part of the key).
 */
export async function readSecret(prompt: string): Promise<string | undefined> {
  const stdin = process.stdin;
  if (!stdin.isTTY) return (await readPipedStdin(SECRETS_MAX_KEY_CHARS + 2, 'the key on stdin is too long')).trim();
  // Echo goes off before the prompt shows: a key typed the moment the prompt appears would
  // otherwise be echoed, and a Ctrl-D there taken by the terminal as end of line, never reaching us.
  stdin.setRawMode(true);
  process.stderr.write(prompt);
  stdin.resume();
  stdin.setEncoding('utf8');
  try {
    return await new Promise<string | undefined>((done) => {
      let key = '';
      const onData = (text: string) => {
        for (const char of text) {
          if (char === '\r' || char === '\n') {
            stdin.off('data', onData);
            done(key.trim());
            return;
          }
          if (char === '\u0003' || char === '\u0004') {
            stdin.off('data', onData);
            done(undefined);
            return;
          }
          if (char === '\u007f' || char === '\b') key = key.slice(0, -1);
          else if (key.length <= SECRETS_MAX_KEY_CHARS) key += char;
        }
      };
      stdin.on('data', onData);
    });
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    process.stderr.write('\n');
  }
}

export async function secretsCommand(argv: string[]): Promise<number> {
  const parsed = parseCommandLine({ args: argv, allowPositionals: true, options: { home: { type: 'string' } } });
  const [action, provider, ...extra] = parsed.positionals;
  if (action !== undefined && action !== 'set' && action !== 'delete')
    throw unknownNameError('secrets command', action, ['set', 'delete'], { listKnown: true });
  if ((action !== 'set' && action !== 'delete') || provider === undefined || extra.length > 0)
    throw new UsageError('secrets takes: set PROVIDER, or delete PROVIDER');
  // Checked here as the running host and the agent check them, so a bad one is the same usage
  // error whichever of them would have been asked, and a key is not asked for in vain.
  if (!providerIdSchema.safeParse(provider).success) {
    throw new UsageError(
      `not a provider id: ${terminalLine(provider)} (lower-case letters, digits, '.', '_' and '-'); give one of ${[...BYOK_PROVIDER_IDS].join(', ')} or the id of an endpoint you added`,
    );
  }
  const userData = resolveUserDataPath(parsed.values.home);
  let request: SecretsRequest = { op: 'secrets.delete', provider };
  if (action === 'set') {
    const key = await readSecret(`API key for ${provider} (input hidden): `);
    // Not a command-line mistake: said without the usage, which would bury the one line that matters.
    if (key === undefined) {
      process.stderr.write('bastion: cancelled; no key was stored\n');
      return 130;
    }
    if (key.length === 0) {
      process.stderr.write(
        process.stdin.isTTY
          ? 'bastion: no key typed; nothing was stored\n'
          : `bastion: no key on standard input; nothing was stored (pipe the key in, or run bastion secrets set ${provider} at a terminal to type it)\n`,
      );
      return 2;
    }
    if (!secretKeySchema.safeParse(key).success) {
      throw new UsageError(
        `that is not an API key: a key is printable characters without spaces, at most ${SECRETS_MAX_KEY_CHARS}; nothing was stored`,
      );
    }
    request = { op: 'secrets.set', provider, key };
  }
  const answer = await secretsCall(userData, request);
  const failed = `bastion: could not ${action === 'set' ? 'store' : 'delete'} the key`;
  if (answer.code === 'SECRETS_PROVIDER_UNKNOWN') {
    process.stderr.write(
      `${failed}: SECRETS_PROVIDER_UNKNOWN: no provider ${terminalLine(provider)} takes a key here; give one of ${[...BYOK_PROVIDER_IDS].join(', ')} or the id of an endpoint you added (bastion models lists them)\n`,
    );
    return 2;
  }
  if (answer.status !== 200) {
    // The code and message are the sidecar's (or the running host's relay of them): shown inert.
    process.stderr.write(`${failed}: ${terminalLine(`${answer.code ?? answer.status}: ${answer.message ?? ''}`)}\n`);
    return answer.code === 'SECRETS_BAD_REQUEST' ? 2 : 1;
  }
  const via = answer.via === undefined ? '' : ` through the running Bastion (pid ${answer.via})`;
  process.stderr.write(
    request.op === 'secrets.set'
      ? `bastion: stored the key for ${provider} in auth.json (mode 0600)${via}\n`
      : answer.deleted === true
        ? `bastion: deleted the key for ${provider} from auth.json${via}\n`
        : `bastion: no key for ${provider} was stored; auth.json is unchanged${via}\n`,
  );
  return 0;
}

type SecretsRequest = { op: 'secrets.set'; provider: string; key: string } | { op: 'secrets.delete'; provider: string };

interface SecretsAnswer {
  status: number;
  code?: WireErrorCode | undefined;
  message?: string | undefined;
  /** For a delete: whether there was a key. */
  deleted?: boolean | undefined;
  /** The pid of the running host the request went through, if one owned the home. */
  via?: number;
}

/**
 * Store or delete the key through the Bastion that owns the home, if one runs (its sidecar is the
 * only writer of auth.json), else through a host of our own; a host that stops meanwhile is retried.
 */
async function secretsCall(userData: string, request: SecretsRequest): Promise<SecretsAnswer> {
  const deadline = Date.now() + SECRETS_STORE_WAIT_MS;
  for (;;) {
    let holder;
    let through;
    try {
      holder = await askRunningHost(userData, { op: 'status' }, holderStatusSchema);
      if (holder) through = await askRunningHost(userData, request, secretsAnswerSchema);
    } catch (error) {
      // The holder stopped while we talked to it. Storing or deleting the same key again is idempotent, so ask again.
      if (isHolderGone(error) && Date.now() < deadline) continue;
      throw error;
    }
    if (holder) {
      if (through) {
        const { status, code, message, deleted } = through;
        return { status, code, message, deleted, via: holder.pid };
      }
      continue;
    }
    let host;
    try {
      host = await startBastionHost({
        command: 'secrets',
        userData,
        ownsProcess: true,
        ...readableHostWarnings(userData),
      });
    } catch (error) {
      // Taken by a host that is starting or stopping (another `run` or `secrets set`): ask again.
      if (error instanceof HomeInUseError && Date.now() < deadline) continue;
      throw error;
    }
    try {
      const { provider } = request;
      if (request.op === 'secrets.set') {
        const set = await host.client.call(
          'POST',
          '/secrets/set',
          { provider, key: request.key },
          secretSetResponseSchema,
        );
        return set.ok
          ? { status: set.status }
          : { status: set.status, code: set.error.code, message: set.error.message };
      }
      const gone = await host.client.call('POST', '/secrets/delete', { provider }, secretDeleteResponseSchema);
      return gone.ok
        ? { status: gone.status, deleted: gone.body.deleted }
        : { status: gone.status, code: gone.error.code, message: gone.error.message };
    } finally {
      await host.stop();
    }
  }
}

function isHolderGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}
