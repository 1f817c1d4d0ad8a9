/**
 * MCP servers as the host runs them: real servers (the test fixture over the SDK's own stdio
 * server, and @modelcontextprotocol/server-memory) in the real srt sandbox, and the host's channel
 * module on a real channel pair standing in for a sidecar that skips its own checks. Each refusal
 * is shown not to have reached the server: its `count` tool says how many calls reached it.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLogger,
  MCP_ENV_VALUE_MAX_CHARS,
  MCP_MAX_TOOLS_PER_SERVER,
  MCP_RESULT_MAX_BYTES,
  MCP_STDERR_TAIL_CHARS,
  mcpListingSchema,
  type LogRecord,
  type McpServerConfig,
} from '@bastion/protocol';
import { makeTempDir, waitFor } from '@bastion/test-support';
import { describeAttack } from '../../../../test/support/attack.js';
import { makeCommandWorld } from '../commands/command-harness.js';
import { processesWith } from '../sandbox/process-tree.js';
import { McpHub } from '../../src/mcp/mcp-hub.js';
import { MCP_FIXTURE, mcpFixture } from '../support/mcp-fixture.js';
import { PolicyStore } from '../../src/policy/policy-store.js';
import { acquireSrtSession, type SrtSession } from '../../src/sandbox/srt-session.js';
import { rawSidecar as rawSidecarOf } from './raw-sidecar.js';

const MEMORY_SERVER = fileURLToPath(
  new URL('../../../../node_modules/@modelcontextprotocol/server-memory/dist/index.js', import.meta.url),
);
const CANARY = 'CANARY-mcp-4d1c-do-not-leak';

/** An argument the fixture ignores, so this file's servers are told from every other's. */
const MARKER = `mcp-hub-test-${process.pid}`;
const fixture = mcpFixture(MARKER);

let srt: SrtSession;
let root: string;
let home: string;
let userData: string;
let workspace: string;
let records: LogRecord[];
let hub: McpHub;
const realHome = process.env.HOME;
const realTmp = process.env.TMPDIR;

beforeAll(async () => {
  root = makeTempDir('bastion-mcp-');
  home = join(root, 'home');
  userData = join(root, 'userdata');
  workspace = join(root, 'workspace');
  for (const dir of [join(home, '.ssh'), userData, workspace]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_ed25519'), `${CANARY}\n`);
  // srt resolves its session's HOME secrets from HOME: point it at the temporary one first. Its
  // sockets and the servers' temp dirs go in the test's own temp dir (the host's would be its temp root).
  process.env.HOME = home;
  process.env.TMPDIR = join(root, 'tmp');
  mkdirSync(process.env.TMPDIR);
  srt = await acquireSrtSession();
  records = [];
  const log = createLogger('host', (record) => records.push(record));
  hub = new McpHub({ userData, home, log, srt });
}, 60_000);

afterAll(async () => {
  await hub?.close();
  await srt?.release();
  process.env.HOME = realHome;
  if (realTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = realTmp;
  rmSync(root, { recursive: true, force: true });
});

/** A sidecar end attached to the hub, sending raw `mcp.*` frames as a misbehaving sidecar could. */
function rawSidecar(policy = new PolicyStore(userData)) {
  return rawSidecarOf({ hub, workspace, policy });
}

const MEMORY: McpServerConfig = { name: 'memory', command: process.execPath, args: [MEMORY_SERVER] };

/** The fixture and memory servers the first test adds, added by an attack block run alone (npm run test:attacks). */
async function withServers(): Promise<void> {
  const named = hub.listing(workspace).servers.map((server) => server.name);
  if (!named.includes('fixture')) await hub.add(workspace, fixture('fixture'));
  if (!named.includes('memory')) await hub.add(workspace, MEMORY);
}

describe('MCP servers in the sandbox', () => {
  it('a server named in mcp.json starts in a workspace and lists its tools; the memory server answers read_graph', async () => {
    await hub.add(workspace, fixture('fixture'));
    await hub.add(workspace, MEMORY);
    const listing = hub.listing(workspace);
    expect(listing.servers.map((server) => [server.name, server.state])).toEqual([
      ['fixture', 'ready'],
      ['memory', 'ready'],
    ]);
    expect(listing.servers[0]?.tools.map((tool) => tool.name)).toContain('echo');
    expect(listing.servers[1]?.tools.map((tool) => tool.name)).toContain('read_graph');
    const sidecar = rawSidecar();
    try {
      const answer = await sidecar.call('memory', 'read_graph');
      expect(answer).toMatchObject({ type: 'mcp.result', is_error: false });
      expect(JSON.parse((answer as { text: string }).text)).toEqual({ entities: [], relations: [] });
    } finally {
      sidecar.close();
    }
  });
});

describeAttack('mcp-escape', 'an MCP server reaching out of its sandbox', () => {
  beforeAll(withServers, 60_000);

  it('a server cannot write the workspace: write_here fails with EROFS and planted.txt does not exist', async () => {
    const sidecar = rawSidecar();
    try {
      const answer = await sidecar.call('fixture', 'write_here');
      expect(answer).toMatchObject({ type: 'mcp.result', is_error: true, text: 'not written: EROFS' });
      expect(existsSync(join(workspace, 'planted.txt'))).toBe(false);
    } finally {
      sidecar.close();
    }
  });

  it("a server cannot read the home's SSH key nor Bastion's own mcp.json", async () => {
    const sidecar = rawSidecar();
    try {
      for (const path of [join(home, '.ssh', 'id_ed25519'), hub.file]) {
        const answer = await sidecar.call('fixture', 'read_file', { path });
        expect(answer).toMatchObject({ type: 'mcp.result', is_error: true });
        expect((answer as { text: string }).text).toMatch(/^not read: E/);
        expect(JSON.stringify(answer)).not.toContain(CANARY);
      }
      expect(readFileSync(hub.file, 'utf8')).toContain('"fixture"');
    } finally {
      sidecar.close();
    }
  });

  it('a server has no network: a fetch of a loopback server fails and that server sees no request', async () => {
    let requests = 0;
    const server = createServer((_request, response) => {
      requests += 1;
      response.end('reached');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const sidecar = rawSidecar();
    try {
      const answer = await sidecar.call('fixture', 'fetch_url', { url: `http://127.0.0.1:${port}/` });
      expect(answer).toMatchObject({ type: 'mcp.result', is_error: true });
      expect((answer as { text: string }).text).toMatch(/^not fetched/);
      expect(requests).toBe(0);
    } finally {
      sidecar.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("an MCP server's data folder", () => {
  it('is named to the server, kept across a restart, and is its own: another server’s folder and userData stay out of reach', async () => {
    const sidecar = rawSidecar();
    try {
      await hub.add(workspace, fixture('keeper'));
      const data = hub.listing(workspace).servers.find((server) => server.name === 'keeper')?.data ?? '';
      expect(data).toBe(join(userData, 'host', 'mcp-data', 'keeper'));
      const named = await sidecar.call('keeper', 'env', { name: 'BASTION_MCP_DATA' });
      expect(named).toMatchObject({ text: `BASTION_MCP_DATA=${realpathSync(data)}` });
      const note = join(data, 'note.txt');
      expect(await sidecar.call('keeper', 'write_file', { path: note, text: 'kept' })).toMatchObject({
        text: 'written',
      });
      await hub.restart(workspace, 'keeper');
      expect(await sidecar.call('keeper', 'read_file', { path: note })).toMatchObject({
        is_error: false,
        text: 'kept',
      });
      // The fixture server's own folder exists too: nothing the keeper writes there, or elsewhere in
      // userData, reaches the disk (inside the sandbox userData is an empty tmpfs, gone with it).
      const other = join(userData, 'host', 'mcp-data', 'fixture', 'planted.txt');
      for (const path of [other, join(userData, 'planted.txt'), join(userData, 'host', 'planted.txt')]) {
        await sidecar.call('keeper', 'write_file', { path, text: 'planted' });
        expect(existsSync(path)).toBe(false);
      }
    } finally {
      sidecar.close();
      await hub.remove(workspace, 'keeper');
    }
    expect(readFileSync(join(userData, 'host', 'mcp-data', 'keeper', 'note.txt'), 'utf8')).toBe('kept');
  });
});

describeAttack('mcp-escape', "a link planted where an MCP server's data folder goes", () => {
  it('the server does not start, says why in words, and nothing is written where the link points', async () => {
    const target = join(root, 'elsewhere');
    mkdirSync(target);
    mkdirSync(join(userData, 'host', 'mcp-data'), { recursive: true });
    symlinkSync(target, join(userData, 'host', 'mcp-data', 'linked'));
    try {
      await hub.add(workspace, fixture('linked'));
      const server = hub.listing(workspace).servers.find((candidate) => candidate.name === 'linked');
      expect(server).toMatchObject({ state: 'failed', tools: [] });
      expect(server?.error).toContain("is not a directory of Bastion's");
      expect(readdirSync(target)).toEqual([]);
    } finally {
      await hub.remove(workspace, 'linked');
    }
  });
});

describe('MCP results', () => {
  it("a result over MCP_RESULT_MAX_BYTES is cut to it and said so; a tool's isError is passed on", async () => {
    const sidecar = rawSidecar();
    try {
      const big = await sidecar.call('fixture', 'big', { bytes: MCP_RESULT_MAX_BYTES * 3 });
      expect(big).toMatchObject({ type: 'mcp.result', truncated: true, is_error: false });
      expect((big as { text: string }).text).toHaveLength(MCP_RESULT_MAX_BYTES);
      expect(await sidecar.call('fixture', 'fail')).toMatchObject({ is_error: true, text: 'it went wrong' });
    } finally {
      sidecar.close();
    }
  });
});

describeAttack('secret-egress', "a variable the user gave an MCP server, in the server's answer", () => {
  it('the server sees its token, but the answer the sidecar gets has it cut out, named, also while mcp.json is broken; a short value stays', async () => {
    const token = `tok-${'q7'.repeat(20)}`;
    await hub.add(workspace, { ...fixture('tokened'), env: { SERVICE_TOKEN: token, SHORT: 'abc' } });
    const sidecar = rawSidecar();
    try {
      const answer = await sidecar.call('tokened', 'env', { name: 'SERVICE_TOKEN' });
      expect(answer).toMatchObject({
        type: 'mcp.result',
        text: 'SERVICE_TOKEN=[redacted: SERVICE_TOKEN of the MCP server tokened]',
      });
      expect(JSON.stringify(answer)).not.toContain(token);
      expect(await sidecar.call('tokened', 'env', { name: 'SHORT' })).toMatchObject({ text: 'SHORT=abc' });
      // mcp.json broken while the server runs: its own definition still says what to cut.
      const saved = readFileSync(hub.file, 'utf8');
      writeFileSync(hub.file, '{"version": 1, "servers": [', { mode: 0o600 });
      try {
        expect(await sidecar.call('tokened', 'env', { name: 'SERVICE_TOKEN' })).toMatchObject({
          text: 'SERVICE_TOKEN=[redacted: SERVICE_TOKEN of the MCP server tokened]',
        });
      } finally {
        writeFileSync(hub.file, saved, { mode: 0o600 });
      }
      expect(JSON.stringify(records)).not.toContain(token);
    } finally {
      sidecar.close();
      await hub.remove(workspace, 'tokened');
    }
  });
});

describeAttack('policy-bypass', 'MCP calls from a sidecar that skipped its checks', () => {
  beforeAll(withServers, 60_000);

  it('a deny rule refuses a raw mcp.call with MCP_POLICY_DENIED and the server never gets the call', async () => {
    const policy = new PolicyStore(userData);
    const sidecar = rawSidecar(policy);
    const rule = policy.add(
      { kind: 'project', root: workspace },
      { decision: 'deny', tools: ['mcp__fixture__echo'], reason: 'no echo' },
    );
    try {
      const counted = await sidecar.call('fixture', 'count');
      const reached = Number((counted as { text: string }).text);
      expect(await sidecar.call('fixture', 'echo', { text: 'hi' })).toMatchObject({
        type: 'mcp.error',
        code: 'MCP_POLICY_DENIED',
        message: 'no echo',
      });
      // `count` answers how many calls reached the server before it: the denied echo is not one.
      expect(await sidecar.call('fixture', 'count')).toMatchObject({ text: String(reached + 1) });
    } finally {
      policy.remove({ kind: 'project', root: workspace }, rule.id);
      sidecar.close();
    }
  });

  it('an ask rule with nobody to ask refuses with MCP_POLICY_UNAPPROVED and the server never gets the call', async () => {
    const policy = new PolicyStore(userData);
    const sidecar = rawSidecar(policy);
    const rule = policy.add({ kind: 'global' }, { decision: 'ask', tools: ['mcp__fixture__echo'] });
    try {
      const reached = Number(((await sidecar.call('fixture', 'count')) as { text: string }).text);
      expect(await sidecar.call('fixture', 'echo', { text: 'hi' })).toMatchObject({ code: 'MCP_POLICY_UNAPPROVED' });
      expect(await sidecar.call('fixture', 'count')).toMatchObject({ text: String(reached + 1) });
    } finally {
      policy.remove({ kind: 'global' }, rule.id);
      sidecar.close();
    }
  });

  it('a workspace the sidecar was not granted, an unknown server or tool, and arguments that are no object are refused', async () => {
    const sidecar = rawSidecar();
    try {
      // Another folder, and the granted one spelt otherwise: the host compares the root as granted.
      for (const other of [join(root, 'home'), `${workspace}/../workspace`, `${workspace}/.`, `${workspace}/`]) {
        expect(await sidecar.call('fixture', 'echo', {}, other)).toMatchObject({ code: 'MCP_WORKSPACE_REFUSED' });
      }
      expect(await sidecar.call('nobody', 'echo')).toMatchObject({ code: 'MCP_SERVER_UNKNOWN' });
      expect(await sidecar.call('fixture', 'no_such_tool')).toMatchObject({ code: 'MCP_TOOL_UNKNOWN' });
      expect(await sidecar.call('fixture', 'echo', '["a"]')).toMatchObject({ code: 'MCP_ARGUMENTS_INVALID' });
      expect(await sidecar.call('fixture', 'echo', '{"text":')).toMatchObject({ code: 'MCP_ARGUMENTS_INVALID' });
    } finally {
      sidecar.close();
    }
  });
});

describeAttack('channel-abuse', 'MCP servers that break the protocol', () => {
  it('one that writes a line over 4 MiB, one that writes no JSON, one that exits and a missing program are failed, each said in words', async () => {
    await hub.add(workspace, fixture('huge', 'huge-line'));
    await hub.add(workspace, fixture('garbage', 'not-json'));
    await hub.add(workspace, fixture('quits', 'exit'));
    await hub.add(workspace, { name: 'missing', command: '/nonexistent/server', args: [] });
    const states = Object.fromEntries(hub.listing(workspace).servers.map((server) => [server.name, server]));
    expect(states.huge).toMatchObject({ state: 'failed', tools: [] });
    expect(states.huge?.error).toContain('a message over 4 MiB');
    expect(states.garbage).toMatchObject({ state: 'failed' });
    expect(states.garbage?.error).toContain('not JSON');
    expect(states.quits).toMatchObject({ state: 'failed' });
    expect(states.quits?.error).toContain('fixture: refusing to start');
    expect(states.missing?.error).toBe(
      'could not start: /nonexistent/server was not found in the sandbox: it is not installed, or it is in a folder of your home the sandbox hides (bastion doctor lists the ones it shows; BASTION_HOME_READ_ALLOW adds one)',
    );
    const sidecar = rawSidecar();
    try {
      expect(await sidecar.call('quits', 'echo')).toMatchObject({ code: 'MCP_SERVER_FAILED' });
    } finally {
      sidecar.close();
    }
    for (const name of ['huge', 'garbage', 'quits', 'missing']) await hub.remove(workspace, name);
  });
});

const REDACTED = (name: string, server: string) => `[redacted: ${name} of the MCP server ${server}]`;

describeAttack('secret-egress', 'an MCP server telling its own token other than in a tool’s text', () => {
  it('in its listing (a description, a schema, a tool named after it), a JSON-RPC error, structured content and a Basic authorization header (base64): cut out of what the sidecar gets, the status and the log', async () => {
    const token = `tok-${'w5'.repeat(20)}`;
    // JSON escapes a quote and a backslash: structured content carries this one escaped.
    const quoted = `pw-"${'r8'.repeat(8)}"\\end`;
    await hub.add(workspace, { ...fixture('leaky', 'leaky'), env: { SERVICE_TOKEN: token, QUOTED_TOKEN: quoted } });
    const sidecar = rawSidecar();
    try {
      const status = hub.listing(workspace).servers.find((server) => server.name === 'leaky');
      expect(status).toMatchObject({ state: 'ready' });
      expect(status?.tools.map((tool) => tool.name)).toEqual(['throw', 'die', 'structured', 'basic', 'die_copies']);
      expect(status?.tools[0]?.description).toBe(`uses ${REDACTED('SERVICE_TOKEN', 'leaky')} to work`);
      expect(status?.left_out).toEqual([expect.stringContaining(REDACTED('SERVICE_TOKEN', 'leaky'))]);
      const listed = await sidecar.list();
      const tools = listed.servers.find((server) => server.name === 'leaky')?.tools ?? [];
      expect(tools.map((tool) => tool.name)).toEqual(['throw', 'die', 'structured', 'basic', 'die_copies']);
      expect(JSON.parse(tools[0]?.input_schema ?? '{}')).toEqual({
        type: 'object',
        properties: {
          [REDACTED('SERVICE_TOKEN', 'leaky')]: { type: 'string', description: REDACTED('SERVICE_TOKEN', 'leaky') },
        },
      });
      const thrown = await sidecar.call('leaky', 'throw');
      expect(thrown).toMatchObject({ type: 'mcp.error', code: 'MCP_CALL_FAILED' });
      expect((thrown as { message: string }).message).toContain(
        `cannot work with ${REDACTED('SERVICE_TOKEN', 'leaky')}`,
      );
      const structured = await sidecar.call('leaky', 'structured');
      expect(structured).toMatchObject({ text: JSON.stringify({ secret: REDACTED('QUOTED_TOKEN', 'leaky') }) });
      const basic = await sidecar.call('leaky', 'basic');
      const encoded = Buffer.from(`svc:${token}`).toString('base64');
      // "svc:" and the token's first two bytes share base64 groups: the rest of the token is cut.
      expect(basic).toMatchObject({
        text: `Authorization: Basic ${encoded.slice(0, 8)}${REDACTED('SERVICE_TOKEN', 'leaky')}`,
      });
      const escaped = JSON.stringify(quoted).slice(1, -1);
      for (const seen of [status, listed, thrown, structured, basic, records]) {
        const text = JSON.stringify(seen);
        for (const secret of [token, quoted, escaped, encoded.slice(8, 24)]) expect(text).not.toContain(secret);
      }
    } finally {
      sidecar.close();
      await hub.remove(workspace, 'leaky');
    }
  });

  it('on stderr as it dies during a call: the call is answered MCP_CALL_FAILED (not left for its timeout), and its last words keep not even the half of the token their 2 KiB began in', async () => {
    const token = `tok-${'w5'.repeat(20)}`;
    await hub.add(workspace, { ...fixture('dying', 'leaky'), env: { SERVICE_TOKEN: token } });
    const sidecar = rawSidecar();
    try {
      const died = await sidecar.call('dying', 'die');
      expect(died).toMatchObject({ type: 'mcp.error', code: 'MCP_CALL_FAILED' });
      const failed = hub.listing(workspace).servers.find((server) => server.name === 'dying');
      expect(failed).toMatchObject({ state: 'failed' });
      expect(failed?.error).toMatch(/^it stopped; its last words: [^.]*MCP server dying\]\.\.\./);
      for (const seen of [died, failed, records]) expect(JSON.stringify(seen)).not.toContain(token.slice(-16));
    } finally {
      sidecar.close();
      await hub.remove(workspace, 'dying');
    }
  });
});

describeAttack('secret-egress', 'an MCP server whose kept stderr begins inside its token', () => {
  it('29 copies of a 204-character token, the kept tail beginning at its second character: the copies shrink to labels, and not one character of the token shows in the status', async () => {
    // No run of the token's characters is ordinary text: any 8 of them found would be a leak.
    const token = `Q${Array.from({ length: 203 }, (_, index) => 'ZXJKVW'[index % 6]).join('')}`;
    expect(token).toHaveLength(204);
    await hub.add(workspace, { ...fixture('cut-inside', 'leaky'), env: { SERVICE_TOKEN: token } });
    const sidecar = rawSidecar();
    try {
      const kept = MCP_STDERR_TAIL_CHARS + MCP_ENV_VALUE_MAX_CHARS;
      const died = await sidecar.call('cut-inside', 'die_copies', { kept });
      expect(died).toMatchObject({ type: 'mcp.error', code: 'MCP_CALL_FAILED' });
      const failed = hub.listing(workspace).servers.find((server) => server.name === 'cut-inside');
      expect(failed).toMatchObject({ state: 'failed' });
      expect(failed?.error).toMatch(
        /^it stopped; its last words: \[redacted: SERVICE_TOKEN of the MCP server cut-inside\]/,
      );
      const seen = JSON.stringify([died, failed, records]);
      for (let start = 0; start + 8 <= token.length; start += 1)
        expect(seen).not.toContain(token.slice(start, start + 8));
    } finally {
      sidecar.close();
      await hub.remove(workspace, 'cut-inside');
    }
  });
});

describeAttack('secret-read', "an MCP server's variables outside its sandbox", () => {
  it('are on no command line of any process while the server runs, though the server has them', async () => {
    const token = `tok-${'v4'.repeat(20)}`;
    await hub.add(workspace, { ...fixture('argv'), env: { SERVICE_TOKEN: token } });
    const sidecar = rawSidecar();
    try {
      expect(await sidecar.call('argv', 'env', { name: 'SERVICE_TOKEN' })).toMatchObject({
        text: `SERVICE_TOKEN=${REDACTED('SERVICE_TOKEN', 'argv')}`,
      });
      expect(processesWith(`${MCP_FIXTURE} normal ${MARKER}`).length).toBeGreaterThan(0);
      expect(processesWith(token)).toEqual([]);
    } finally {
      sidecar.close();
      await hub.remove(workspace, 'argv');
    }
  });

  it('do not reach the launcher the host runs outside the sandbox: LD_DEBUG_OUTPUT naming a folder outside it gets no file', async () => {
    const outside = join(root, 'launcher-debug');
    mkdirSync(outside);
    await hub.add(workspace, {
      ...fixture('launcher'),
      env: { LD_DEBUG: 'files', LD_DEBUG_OUTPUT: join(outside, 'ld') },
    });
    try {
      expect(hub.listing(workspace).servers.find((server) => server.name === 'launcher')?.state).not.toBe('starting');
      expect(readdirSync(outside)).toEqual([]);
    } finally {
      await hub.remove(workspace, 'launcher');
    }
  });
});

/** What the fixture's env_digest tool answers for `value`. */
function digestOf(name: string, value: string): string {
  return `${name} sha256:${createHash('sha256').update(value).digest('hex')} ${value.length}`;
}

/** Each file under `dir` (recursively) whose bytes hold `text`; files gone while looked at are skipped. */
function filesHolding(dir: string, text: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir, { recursive: true, encoding: 'utf8' });
  } catch {
    return [];
  }
  return entries
    .map((entry) => join(dir, entry))
    .filter((path) => {
      try {
        return readFileSync(path, 'utf8').includes(text);
      } catch {
        return false; // a directory, a socket, or gone meanwhile
      }
    });
}

describe('the variables the user gives an MCP server', () => {
  it('each reaches the server exactly: quotes, spaces, tabs, newlines (trailing too), $, backquotes, backslashes, unicode and an empty one', async () => {
    const env = {
      QUOTES: `it's "quoted" '' \\' end'`,
      SPACES: '  two  spaces\tand a tab ',
      DOLLARS: '$HOME ${PATH} $(id) `id` $1 $@ \\$ \\',
      UNICODE: 'é 中文 😀 \u200b',
      EMPTY: '',
      NEWLINES: 'line one\nline two\n\n',
    };
    await hub.add(workspace, { ...fixture('exact'), env });
    const sidecar = rawSidecar();
    try {
      for (const [name, value] of Object.entries(env)) {
        expect(await sidecar.call('exact', 'env_digest', { name })).toMatchObject({ text: digestOf(name, value) });
      }
    } finally {
      sidecar.close();
      await hub.remove(workspace, 'exact');
    }
  });

  it('32 values of MCP_ENV_VALUE_MAX_CHARS (over 400 KiB as quoted, more than a socket buffer holds) each reach the server exactly', async () => {
    // `'€` is 7 bytes quoted (`'\''` and three of UTF-8).
    const env = Object.fromEntries(
      Array.from({ length: 32 }, (_, index) => [
        `BIG_${index}`,
        `${String(index).padStart(2, '0')}${"'€".repeat((MCP_ENV_VALUE_MAX_CHARS - 2) / 2)}`,
      ]),
    );
    expect(Object.values(env).every((value) => value.length === MCP_ENV_VALUE_MAX_CHARS)).toBe(true);
    await hub.add(workspace, { ...fixture('big-env'), env });
    const sidecar = rawSidecar();
    try {
      expect(hub.listing(workspace).servers.find((server) => server.name === 'big-env')?.state).toBe('ready');
      for (const [name, value] of Object.entries(env)) {
        expect(await sidecar.call('big-env', 'env_digest', { name })).toMatchObject({ text: digestOf(name, value) });
      }
    } finally {
      sidecar.close();
      await hub.remove(workspace, 'big-env');
    }
  });
});

describeAttack('secret-read', "an MCP server's variables in the file system", () => {
  it('while a server given a canary starts, restarts and runs, no file under the temp root holds it: not as the host reads every file there each turn of its event loop, nor as a sandboxed command greps them in a loop (seeing the server’s temp dir)', async () => {
    const canary = `${CANARY}-env-${process.pid}`;
    const tempRoot = tmpdir();
    const world = makeCommandWorld({ srt, root: join(root, 'commands') });
    // The command loops until the test leaves `stop` in its workspace, then looks once more.
    const search = [
      'seen=0; rounds=0; echo started',
      'while [ ! -e stop ]; do',
      '  for dir in "$1"/bastion-mcp-*; do [ -d "$dir" ] && seen=1; done',
      '  grep -rlsF -D skip -- "$2" "$1"',
      '  rounds=$((rounds + 1))',
      'done',
      'grep -rlsF -D skip -- "$2" "$1"',
      'echo "rounds=$rounds seen=$seen"',
    ].join('\n');
    const run = world.run('sh', ['-c', search, 'sh', tempRoot, canary]);
    const found = new Set<string>();
    let polls = 0;
    let polling = true;
    const poller = (async () => {
      while (polling) {
        for (const file of filesHolding(tempRoot, canary)) found.add(file);
        polls += 1;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    try {
      await waitFor(() => run.text().includes('started'), 30_000, 'the searching command to start');
      await hub.add(workspace, { ...fixture('canary-env'), env: { SERVICE_TOKEN: canary } });
      const pollsAtReady = polls;
      await hub.restart(workspace, 'canary-env');
      const sidecar = rawSidecar();
      try {
        expect(await sidecar.call('canary-env', 'env_digest', { name: 'SERVICE_TOKEN' })).toMatchObject({
          text: digestOf('SERVICE_TOKEN', canary),
        });
      } finally {
        sidecar.close();
      }
      writeFileSync(join(world.workspace, 'stop'), '');
      expect(await run.done).toMatchObject({ type: 'command.end', exit_code: 0 });
      polling = false;
      await poller;
      // The command names each file grep finds it in: it named none, and looked while it ran.
      expect(run.text()).toMatch(/^started\nrounds=[1-9]\d* seen=1\n$/);
      expect(pollsAtReady).toBeGreaterThan(1);
      expect([...found]).toEqual([]);
    } finally {
      polling = false;
      await poller;
      await world.executor.close();
      await hub.remove(workspace, 'canary-env');
    }
  });
});

describeAttack('resource-exhaustion', 'MCP servers that try to exhaust the host', () => {
  it('one whose outputSchema backtracks catastrophically on its structured content: the call is answered, and the host never compiles nor runs the pattern', async () => {
    // A RegExp of the server's pattern that the host makes is counted, and one it runs is counted
    // and answers at once: really run, it would hold the host for minutes (2^32 steps), and this
    // test would fail only by a timeout that same stall keeps from firing.
    const PATTERN = '^(a+)+$';
    const seen = { made: 0, run: 0 };
    const test = Reflect.get<RegExp, 'test'>(RegExp.prototype, 'test');
    const exec = Reflect.get<RegExp, 'exec'>(RegExp.prototype, 'exec');
    const realRegExp = globalThis.RegExp;
    globalThis.RegExp = new Proxy(realRegExp, {
      construct(target, args: [string | RegExp, string?]) {
        if (String(args[0]) === PATTERN) seen.made += 1;
        return Reflect.construct(target, args);
      },
      apply(target, _this, args: [string | RegExp, string?]) {
        if (String(args[0]) === PATTERN) seen.made += 1;
        return Reflect.apply(target, undefined, args);
      },
    });
    RegExp.prototype.test = function (this: RegExp, text: string) {
      if (this.source !== PATTERN) return Reflect.apply(test, this, [text]);
      seen.run += 1;
      return false;
    };
    RegExp.prototype.exec = function (this: RegExp, text: string) {
      if (this.source !== PATTERN) return Reflect.apply(exec, this, [text]);
      seen.run += 1;
      return null;
    };
    const sidecar = rawSidecar();
    try {
      await hub.add(workspace, fixture('redos', 'redos'));
      expect(hub.listing(workspace).servers.find((server) => server.name === 'redos')).toMatchObject({
        state: 'ready',
      });
      const answer = await sidecar.call('redos', 'match');
      expect(seen).toEqual({ made: 0, run: 0 });
      expect(answer).toMatchObject({
        type: 'mcp.result',
        is_error: false,
        text: JSON.stringify({ s: `${'a'.repeat(32)}!` }),
      });
    } finally {
      globalThis.RegExp = realRegExp;
      Object.assign(RegExp.prototype, { test, exec });
      sidecar.close();
      await hub.remove(workspace, 'redos');
    }
  });

  it('one that stops reading its stdin and floods the host with ping requests is stopped and said so; the call in flight fails', async () => {
    await hub.add(workspace, {
      ...fixture('flood', 'ping-flood'),
      // 64 MiB of answers if it were all read: sixteen times the bound.
      args: [...fixture('flood', 'ping-flood').args, '4096'],
    });
    const sidecar = rawSidecar();
    try {
      expect(await sidecar.call('flood', 'flood')).toMatchObject({ type: 'mcp.error', code: 'MCP_CALL_FAILED' });
      const server = hub.listing(workspace).servers.find((candidate) => candidate.name === 'flood');
      expect(server).toMatchObject({ state: 'failed' });
      expect(server?.error).toContain('does not read what Bastion sends it');
      // Stopped, not just marked failed: its process goes (SIGTERM, then the sandbox ends it).
      await waitFor(
        () => processesWith(`${MCP_FIXTURE} ping-flood ${MARKER}`).length === 0,
        30_000,
        'the flooding server to end',
      );
    } finally {
      sidecar.close();
      await hub.remove(workspace, 'flood');
    }
  }, 60_000);

  it('one listing 200 tools: 64 offered, 63 of the rest named and the others counted, so the listing still fits its schema', async () => {
    await hub.add(workspace, fixture('many', 'many-tools'));
    try {
      const listing = mcpListingSchema.parse(hub.listing(workspace));
      const server = listing.servers.find((candidate) => candidate.name === 'many');
      expect(server?.tools).toHaveLength(MCP_MAX_TOOLS_PER_SERVER);
      expect(server?.left_out).toHaveLength(MCP_MAX_TOOLS_PER_SERVER);
      expect(server?.left_out[0]).toBe(`tool-64: more than ${MCP_MAX_TOOLS_PER_SERVER} tools`);
      expect(server?.left_out.at(-1)).toBe('73 more tools left out');
    } finally {
      await hub.remove(workspace, 'many');
    }
  });

  it('one that ignores SIGTERM and leaves a child in a session of its own: once removed, neither runs', async () => {
    const child = `${MARKER}-daemon-child`;
    await hub.add(workspace, {
      ...fixture('daemon', 'daemonize'),
      args: [...fixture('daemon', 'daemonize').args, child],
    });
    expect(hub.listing(workspace).servers.find((server) => server.name === 'daemon')?.state).toBe('ready');
    const daemon = `1000); ${child}`;
    expect(processesWith(daemon)).toHaveLength(1);
    await hub.remove(workspace, 'daemon');
    expect(processesWith(daemon)).toEqual([]);
    expect(processesWith(`${MCP_FIXTURE} daemonize ${MARKER}`)).toEqual([]);
  });
});

describe('mcp.json edits', () => {
  it('a variable whose value holds a NUL is refused and mcp.json keeps its bytes', async () => {
    const before = readFileSync(hub.file);
    await expect(
      hub.add(workspace, { ...fixture('nul'), env: { SERVICE_TOKEN: 'abc\0def-long-enough' } }),
    ).rejects.toMatchObject({
      code: 'MCP_SERVER_INVALID',
    });
    expect(readFileSync(hub.file)).toEqual(before);
  });
});

describe('MCP servers: tool names and stopping', () => {
  it('tools whose names no provider takes are left out, each named with why; the rest are offered', async () => {
    await hub.add(workspace, fixture('names', 'bad-names'));
    const server = hub.listing(workspace).servers.find((candidate) => candidate.name === 'names');
    expect(server).toMatchObject({ state: 'ready', tools: [{ name: 'fine', description: 'a fine tool' }] });
    expect(server?.left_out).toHaveLength(3);
    expect(server?.left_out[0]).toContain('has.dot');
    const offered = await hub.tools(workspace);
    expect(offered.find((candidate) => candidate.name === 'names')?.tools.map((tool) => tool.name)).toEqual(['fine']);
    await hub.remove(workspace, 'names');
  });

  it('removing a server stops its process; the host log names servers and counts, never a tool result', async () => {
    expect(processesWith(`${MCP_FIXTURE} normal ${MARKER}`).length).toBeGreaterThan(0);
    await hub.remove(workspace, 'fixture');
    expect(processesWith(`${MCP_FIXTURE} normal ${MARKER}`)).toEqual([]);
    expect(hub.listing(workspace).servers.map((server) => server.name)).toEqual(['memory']);
    const logged = JSON.stringify(records);
    expect(logged).toContain('"server":"fixture"');
    expect(logged).not.toContain('echo: hi');
    expect(logged).not.toContain(CANARY);
  });
});
