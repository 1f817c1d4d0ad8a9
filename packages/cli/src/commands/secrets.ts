/**
 * `bastion secrets set PROVIDER`: store an API key in auth.json through the sidecar (the only
 * owner of credentials). The key is read from the terminal without echo, or from stdin when it is
 * piped; it never appears in argv, the environment or any output.
 */
import { parseArgs } from 'node:util';
import { SECRETS_MAX_KEY_CHARS, type WireError } from '@bastion/protocol';
import { resolveUserDataPath, startBastionHost } from '@bastion/host';
import { UsageError } from '../usage.js';

/** Read a line from the TTY with echo off (raw mode), or all of piped stdin. */
export async function readSecret(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of stdin as AsyncIterable<Buffer>) {
      total += chunk.byteLength;
      if (total > SECRETS_MAX_KEY_CHARS + 2) throw new UsageError('the key on stdin is too long');
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8').trim();
  }
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  try {
    return await new Promise<string>((done, fail) => {
      let key = '';
      const onData = (text: string) => {
        for (const char of text) {
          if (char === '\r' || char === '\n') {
            stdin.off('data', onData);
            done(key.trim());
            return;
          }
          if (char === '\u0003') {
            stdin.off('data', onData);
            fail(new UsageError('cancelled'));
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
  let parsed;
  try {
    parsed = parseArgs({ args: argv, strict: true, allowPositionals: true, options: { home: { type: 'string' } } });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const [action, provider, ...extra] = parsed.positionals;
  if (action !== 'set' || provider === undefined || extra.length > 0)
    throw new UsageError('usage: bastion secrets set PROVIDER');
  const key = await readSecret(`API key for ${provider} (input hidden): `);
  if (key.length === 0) throw new UsageError('no key given');
  const host = await startBastionHost({ userData: resolveUserDataPath(parsed.values.home) });
  try {
    const answer = await host.client.request<Partial<WireError>>('POST', '/secrets/set', { provider, key });
    if (answer.status !== 200) {
      process.stderr.write(
        `bastion: could not store the key: ${answer.body.code ?? answer.status}: ${answer.body.message ?? ''}\n`,
      );
      return answer.body.code === 'SECRETS_PROVIDER_UNKNOWN' || answer.body.code === 'SECRETS_BAD_REQUEST' ? 2 : 1;
    }
    process.stderr.write(`bastion: stored the key for ${provider} in auth.json (mode 0600)\n`);
    return 0;
  } finally {
    await host.stop();
  }
}
