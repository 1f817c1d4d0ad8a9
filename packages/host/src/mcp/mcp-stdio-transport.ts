/**
 * The MCP client's side of one server's stdio, as the SDK's `Transport`: JSON-RPC messages a line
 * each. Written here rather than the SDK's StdioClientTransport because the server is untrusted
 * code in the sandbox and the host reads what it writes: a line is bounded (MCP_MESSAGE_MAX_BYTES;
 * a longer one ends the server), every message is checked against the SDK's JSON-RPC schema
 * before the client sees it, and stderr is kept only as a short tail to say why a server failed.
 * What the host writes is bounded too: a server that sends requests (a ping the client answers,
 * a request it refuses) while it reads none of the answers would have the host hold them all, so
 * more than MCP_MESSAGE_MAX_BYTES unread ends it.
 */
import type { ChildProcess } from 'node:child_process';
import { MCP_ENV_VALUE_MAX_CHARS, MCP_MESSAGE_MAX_BYTES, MCP_STDERR_TAIL_CHARS } from '@bastion/protocol';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const NEWLINE = 0x0a;
/**
 * Kept of stderr: the tail shown and the longest variable value before it, so that the owner can
 * cut a value the server printed before it cuts the tail. That alone does not keep a value the
 * kept text begins inside from showing in part — whole values it redacts shrink to labels, so
 * the tail may reach back to that partial one — so the owner drops such a beginning first
 * (stderrTailCut says there is one to look for).
 */
const STDERR_KEPT_CHARS = MCP_STDERR_TAIL_CHARS + MCP_ENV_VALUE_MAX_CHARS;

export class McpStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #child: ChildProcess;
  /** Bytes of the line being read, before its newline. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #stderrTail = '';
  /** Whether stderr said more than the tail keeps: the tail then begins wherever the cut fell. */
  #stderrCut = false;
  #closed = false;
  /** Why the transport ended, in words, when the server broke the protocol. */
  #broken: string | undefined;

  constructor(child: ChildProcess) {
    this.#child = child;
  }

  start(): Promise<void> {
    const child = this.#child;
    child.stdout?.on('data', (chunk: Buffer) => this.#read(chunk));
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      const joined = this.#stderrTail + chunk;
      if (joined.length > STDERR_KEPT_CHARS) this.#stderrCut = true;
      this.#stderrTail = joined.slice(-STDERR_KEPT_CHARS);
    });
    child.stdin?.on('error', () => undefined);
    child.once('close', () => this.#end());
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child.stdin;
    if (this.#closed || !stdin || stdin.destroyed) throw new Error('the server is not running');
    if (stdin.writableLength > MCP_MESSAGE_MAX_BYTES) {
      const why = 'the server does not read what Bastion sends it';
      this.#break(why);
      throw new Error(why);
    }
    const line = `${JSON.stringify(message)}\n`;
    await new Promise<void>((resolve, reject) => {
      stdin.write(line, (error) => (error ? reject(error) : resolve()));
    });
  }

  close(): Promise<void> {
    this.#child.stdin?.end();
    return Promise.resolve();
  }

  /** The end of what the server wrote to stderr (STDERR_KEPT_CHARS), for a status in words once cut to MCP_STDERR_TAIL_CHARS. */
  get stderrTail(): string {
    return this.#stderrTail;
  }

  /** Whether the start of stderr was let go: stderrTail may then begin inside a value the server printed. */
  get stderrTailCut(): boolean {
    return this.#stderrCut;
  }

  /** Set when the server broke the protocol and was stopped for it. */
  get broken(): string | undefined {
    return this.#broken;
  }

  #read(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline < 0) break;
      const piece = chunk.subarray(start, newline);
      start = newline + 1;
      if (this.#pendingBytes + piece.byteLength > MCP_MESSAGE_MAX_BYTES)
        return this.#break('the server wrote a message over 4 MiB');
      const line = this.#pending.length === 0 ? piece : Buffer.concat([...this.#pending, piece]);
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#deliver(line);
      if (this.#closed) return;
    }
    const rest = chunk.subarray(start);
    if (rest.byteLength === 0) return;
    if (this.#pendingBytes + rest.byteLength > MCP_MESSAGE_MAX_BYTES)
      return this.#break('the server wrote a message over 4 MiB');
    this.#pending.push(rest);
    this.#pendingBytes += rest.byteLength;
  }

  #deliver(line: Buffer): void {
    const text = line.toString('utf8').trim();
    if (text === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return this.#break('the server wrote a line that is not JSON on its stdout');
    }
    const message = JSONRPCMessageSchema.safeParse(value);
    if (!message.success) return this.#break('the server wrote a message that is not JSON-RPC on its stdout');
    this.onmessage?.(message.data);
  }

  /** The server broke the protocol (`why`, in words): stop reading it; the owner kills it (onerror, then onclose). */
  #break(why: string): void {
    if (this.#broken !== undefined) return;
    this.#broken = why;
    this.#child.stdout?.removeAllListeners('data');
    this.onerror?.(new Error(this.#broken));
    this.#child.stdin?.end();
    this.#end();
  }

  #end(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}
