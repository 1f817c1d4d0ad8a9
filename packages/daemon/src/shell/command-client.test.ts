import { describe, expect, it } from 'vitest';
import { COMMAND_MAX_OUTPUT_BYTES, type HostToSidecarFrame, type SidecarToHostFrame } from '@bastion/protocol';
import { connectedChannelPair, type HostEnd } from '../../../../test/support/channel-pair.js';
import { CommandClient } from './command-client.js';

/** A real channel pair; the far end plays the host and answers with `respond`. */
function connect(respond: (frame: SidecarToHostFrame, host: HostEnd) => void) {
  const { host, sidecar } = connectedChannelPair();
  const seen: SidecarToHostFrame[] = [];
  host.on('command.request', (frame) => {
    seen.push(frame);
    respond(frame, host);
  });
  host.on('command.abort', (frame) => {
    seen.push(frame);
    respond(frame, host);
  });
  return { client: new CommandClient(sidecar), seen };
}

const request = {
  command: 'echo',
  args: ['hi'],
  cwd: '/w',
  workspaceRoot: '/w',
  scratchDir: '/h/scratch/ses_x',
  timeoutMs: 1000,
};
const bytes = (text: string | Buffer): Uint8Array => Buffer.from(text);

/** The host's command.end for `id`: exited with `exitCode`, not timed out, not truncated. */
function commandEnd(id: string, exitCode: number, durationMs: number): HostToSidecarFrame {
  const end = { exit_code: exitCode, signal: null, timed_out: false, truncated: false, duration_ms: durationMs };
  return { v: 1, type: 'command.end', id, ...end };
}

describe('CommandClient', () => {
  it('sends command.request and assembles output and end', async () => {
    const { client, seen } = connect((frame, host) => {
      if (frame.type !== 'command.request') return;
      host.send({ v: 1, type: 'command.output', id: frame.id, stream: 'stdout', data: bytes('h') });
      host.send({ v: 1, type: 'command.output', id: frame.id, stream: 'stderr', data: bytes('warn') });
      host.send({ v: 1, type: 'command.output', id: frame.id, stream: 'stdout', data: bytes('i\n') });
      host.send(commandEnd(frame.id, 0, 12.6));
    });
    const result = await client.run(request);
    expect(result).toEqual({
      exit_code: 0,
      signal: null,
      stdout: 'hi\n',
      stderr: 'warn',
      truncated: false,
      timed_out: false,
      duration_ms: 13,
    });
    expect(seen[0]).toMatchObject({
      type: 'command.request',
      command: 'echo',
      args: ['hi'],
      scratch_dir: '/h/scratch/ses_x',
      timeout_ms: 1000,
    });
    expect(client.inFlight).toBe(0);
  });

  it('aborting sends command.abort and resolves SHELL_ABORTED once the host confirms', async () => {
    const controller = new AbortController();
    const { client, seen } = connect((frame, host) => {
      if (frame.type === 'command.request') controller.abort();
      if (frame.type === 'command.abort') host.send({ v: 1, type: 'command.aborted', id: frame.id });
    });
    expect(await client.run(request, controller.signal)).toMatchObject({ ok: false, code: 'SHELL_ABORTED' });
    expect(seen.map((frame) => frame.type)).toEqual(['command.request', 'command.abort']);
  });

  it("passes the host's known refusal codes through and hides unknown ones", async () => {
    let code = 'COMMAND_CWD_REFUSED';
    const { client } = connect((frame, host) => {
      if (frame.type === 'command.request') host.send({ v: 1, type: 'command.error', id: frame.id, code });
    });
    expect(await client.run(request)).toMatchObject({ ok: false, code: 'COMMAND_CWD_REFUSED' });
    code = 'SOMETHING_ODD';
    expect(await client.run(request)).toMatchObject({ ok: false, code: 'SHELL_HOST_REFUSED' });
  });

  it('keeps at most 1 MiB even if the host sent more, and flags it', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const { client } = connect((frame, host) => {
      if (frame.type !== 'command.request') return;
      for (let i = 0; i < COMMAND_MAX_OUTPUT_BYTES / chunk.byteLength + 2; i += 1) {
        host.send({ v: 1, type: 'command.output', id: frame.id, stream: 'stdout', data: bytes(chunk) });
      }
      host.send(commandEnd(frame.id, 0, 1));
    });
    const result = await client.run(request);
    expect(result).toMatchObject({ truncated: true });
    expect('stdout' in result && result.stdout.length).toBe(COMMAND_MAX_OUTPUT_BYTES);
  });

  it('ignores frames for ids it never sent', async () => {
    const { client } = connect((frame, host) => {
      if (frame.type !== 'command.request') return;
      host.send({ v: 1, type: 'command.output', id: 'cmd_unknown', stream: 'stdout', data: bytes('stray') });
      host.send(commandEnd(frame.id, 1, 1));
    });
    expect(await client.run(request)).toMatchObject({ exit_code: 1, stdout: '' });
  });
});
