/**
 * Issue 16 §5: a bounded mixed soak through a real host and its sandboxed sidecar (the demo
 * model, so no network): sessions created and deleted, prompts that call list_dir, read_file,
 * search and run_command (read-only commands run at once; `touch` waits for an approval, answered
 * yes or no in turn), event-stream subscribers that connect and drop, and transcript reloads
 * (the messages pages and a replay of the stream from its start).
 *
 * The host runs in a process of its own (soak-host.mjs). After a warm-up and again at the end, the
 * load pauses and the bench reads, from /proc, the RSS of the host and of the sidecar's Node,
 * their open fds and the host's descendant processes. Targets: RSS growth ≤ 15 % for each
 * process, fds and processes back to their warm-up counts; after the host stops, none of its
 * processes alive, its listener closed and nothing left in its temporary directory (TMPDIR).
 *
 * BENCH_SOAK_SECONDS (default 120) and BENCH_SOAK_WARMUP_SECONDS (60) set the phases.
 * BENCH_SOAK_HEAP=<dir> also takes a heap snapshot of both processes at both points, keeps them in
 * <dir> and prints the object kinds whose self size grew most (the leak hunt). Taking a snapshot
 * pauses a process and raises its RSS, so the RSS figures of such a run are not comparable.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentEvent, Session } from '@bastion/protocol';
import { descendantPids, processStartTime } from '@bastion/host/testing';
import { makeTempDir } from '@bastion/test-support';
import { figure, type Benchmark, type BenchFigure } from './harness.js';
import { heapGrowth, takeHeapSnapshot } from './heap-growth.js';

const SOAK_MS = Number(process.env.BENCH_SOAK_SECONDS ?? 120) * 1000;
/** Long enough for the sidecar's old generation to fill its initial size once (SIDECAR_INITIAL_OLD_SPACE_MIB). */
const WARMUP_MS = Number(process.env.BENCH_SOAK_WARMUP_SECONDS ?? 60) * 1000;
/** A directory: heap snapshots are taken and kept there (for DevTools) and compared. */
const HEAP_OUT = process.env.BENCH_SOAK_HEAP;
const TAKE_HEAP = HEAP_OUT !== undefined && HEAP_OUT !== '';
/** Load workers running at once (each one request or run at a time). */
const WORKERS = 3;
/** Sessions kept; the oldest is deleted when a new one would exceed this. */
const SESSIONS_KEPT = 8;
const HOST_SCRIPT = fileURLToPath(new URL('./soak-host.mjs', import.meta.url));

interface Credentials {
  port: number;
  uiOrigin: string;
  password: string;
  sidecarPid: number;
}

interface Sample {
  hostRss: number;
  sidecarRss: number;
  hostFds: number;
  sidecarFds: number;
  processes: number;
}

function rssMiB(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? Number.NaN) / 1024;
}

const fdCount = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;
const comm = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
};

/** The state letter of /proc/<pid>/stat (R, S, D, Z, …), or '' once it is gone. */
function processState(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return '';
  }
}

/** The sidecar's Node inside its wrapped tree. */
function sidecarNode(sidecarPid: number): number {
  const found = [sidecarPid, ...descendantPids(sidecarPid)].find((pid) => comm(pid) === 'node');
  if (found === undefined) throw new Error('no node process in the sidecar tree');
  return found;
}

class SoakClient {
  constructor(private credentials: Credentials) {}

  update(credentials: Credentials): void {
    this.credentials = credentials;
  }

  get #headers(): Record<string, string> {
    const { port, uiOrigin, password } = this.credentials;
    return {
      host: `127.0.0.1:${port}`,
      origin: uiOrigin,
      referer: `${uiOrigin}/desktop/`,
      authorization: `Basic ${Buffer.from(`bastion:${password}`).toString('base64')}`,
    };
  }

  json<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.credentials.port,
          method,
          path,
          agent: false,
          setHost: false,
          headers: { ...this.#headers, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ status: res.statusCode ?? 0, body: (text ? JSON.parse(text) : undefined) as T });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** Read the session's stream after `after` until `stop` says so (or `maxMs` passes); returns the events. */
  stream(
    sessionId: string,
    after: number,
    stop: (event: AgentEvent, id: number) => boolean,
    maxMs: number,
  ): Promise<{ id: number; event: AgentEvent }[]> {
    return new Promise((resolve, reject) => {
      const events: { id: number; event: AgentEvent }[] = [];
      const req = request({
        host: '127.0.0.1',
        port: this.credentials.port,
        path: `/agent/stream/${sessionId}`,
        agent: false,
        setHost: false,
        headers: { ...this.#headers, 'last-event-id': String(after) },
      });
      const timer = setTimeout(() => finish(), maxMs);
      const finish = () => {
        clearTimeout(timer);
        req.destroy();
        resolve(events);
      };
      req.on('error', (error) => (events.length > 0 ? finish() : reject(error)));
      req.on('response', (res) => {
        if (res.statusCode !== 200) {
          clearTimeout(timer);
          res.resume();
          reject(new Error(`stream answered ${res.statusCode}`));
          return;
        }
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (text: string) => {
          buffer += text;
          for (let split = buffer.indexOf('\n\n'); split >= 0; split = buffer.indexOf('\n\n')) {
            const block = buffer.slice(0, split);
            buffer = buffer.slice(split + 2);
            const id = /^id: ?(\d+)$/m.exec(block)?.[1];
            const data = /^data: ?(.*)$/m.exec(block)?.[1];
            if (id === undefined || data === undefined) continue;
            const event = JSON.parse(data) as AgentEvent;
            events.push({ id: Number(id), event });
            if (stop(event, Number(id))) {
              finish();
              return;
            }
          }
        });
        res.on('end', finish);
      });
      req.end();
    });
  }
}

interface SoakSession {
  id: string;
  lastEventId: number;
  busy: boolean;
}

const PROMPTS = ['ls', 'read README.md', 'search needle', '$ ls -la', '$ cat notes.txt', 'hello', '$ touch made.txt'];
const isEnd = (event: AgentEvent) => event.type === 'run-finished' || event.type === 'run-error';

/** The mixed load: one action at a time per worker, until `until`. */
class SoakLoad {
  readonly #client: SoakClient;
  readonly #sessions: SoakSession[] = [];
  #step = 0;
  runs = 0;
  approvals = 0;
  failures = 0;
  /** The first few failures' messages, for the report. */
  readonly failureReasons: string[] = [];

  constructor(client: SoakClient) {
    this.#client = client;
  }

  async run(until: number): Promise<void> {
    await Promise.all(
      Array.from({ length: WORKERS }, async () => {
        while (Date.now() < until) {
          try {
            await this.#act(this.#step++);
          } catch (error) {
            this.failures += 1;
            if (this.failureReasons.length < 5) this.failureReasons.push(String(error));
          }
        }
      }),
    );
  }

  /**
   * A command run to its end in a fresh session. The host then holds a pre-started sandbox for the
   * next command (a few processes and pipes), so a sample taken after this sees one whatever the
   * mixed load did last.
   */
  async commandRun(): Promise<void> {
    await this.#newSession();
    const session = this.#sessions.at(-1) as SoakSession;
    session.busy = true;
    try {
      await this.#prompt(session, '$ ls -la');
    } finally {
      session.busy = false;
    }
  }

  /** One action; the session it uses is marked busy, so no other worker deletes it meanwhile. */
  async #act(step: number): Promise<void> {
    const kind = step % 10;
    if (kind === 0 || this.#sessions.length === 0) return this.#newSession();
    const session = this.#pick(step);
    if (!session) return undefined;
    session.busy = true;
    try {
      if (kind <= 5) return await this.#prompt(session, PROMPTS[step % PROMPTS.length] as string);
      // a subscriber that drops after a moment
      if (kind <= 7) await this.#client.stream(session.id, session.lastEventId, () => false, 150);
      else await this.#reload(session);
      return undefined;
    } finally {
      session.busy = false;
    }
  }

  /** A transcript reload: the messages pages, the session list, the whole stream replayed. */
  async #reload(session: SoakSession): Promise<void> {
    let cursor: string | null = null;
    do {
      const page: { body: { next: string | null } } = await this.#client.json(
        'GET',
        `/sessions/${session.id}/messages?limit=200${cursor ? `&cursor=${cursor}` : ''}`,
      );
      cursor = page.body.next;
    } while (cursor !== null);
    await this.#client.json('GET', '/sessions');
    const last = session.lastEventId;
    if (last > 0) await this.#client.stream(session.id, 0, (_event, id) => id >= last, 10_000);
  }

  #pick(step: number): SoakSession | undefined {
    for (let i = 0; i < this.#sessions.length; i++) {
      const session = this.#sessions[(step + i) % this.#sessions.length] as SoakSession;
      if (!session.busy) return session;
    }
    return undefined;
  }

  async #newSession(): Promise<void> {
    const created = await this.#client.json<Session>('POST', '/sessions', { provider: 'demo', model: 'demo' });
    if (created.status !== 201) throw new Error(`session not created: ${created.status}`);
    this.#sessions.push({ id: created.body.id, lastEventId: 0, busy: false });
    if (this.#sessions.length > SESSIONS_KEPT) {
      const oldest = this.#sessions.findIndex((session) => !session.busy);
      const [gone] = this.#sessions.splice(oldest, 1);
      if (gone) await this.#client.json('DELETE', `/sessions/${gone.id}`);
    }
  }

  async #prompt(session: SoakSession, message: string): Promise<void> {
    let body: Record<string, unknown> = { session_id: session.id, message };
    for (let turn = 0; turn < 3; turn++) {
      const started = await this.#client.json('POST', '/agent/run', body);
      if (started.status !== 202) throw new Error(`run refused: ${started.status}`);
      const events = await this.#client.stream(session.id, session.lastEventId, isEnd, 30_000);
      session.lastEventId = events.at(-1)?.id ?? session.lastEventId;
      this.runs += 1;
      const asked = events.find((entry) => entry.event.type === 'tool-approval-request')?.event;
      if (asked?.type !== 'tool-approval-request') return;
      this.approvals += 1;
      body = {
        session_id: session.id,
        approval_answer: {
          approval_id: asked.approval_id,
          tool_call_id: asked.tool_call_id,
          approved: this.approvals % 2 === 0,
        },
      };
    }
  }
}

function sample(hostPid: number, sidecarPid: number): Sample {
  return {
    hostRss: rssMiB(hostPid),
    sidecarRss: rssMiB(sidecarPid),
    hostFds: fdCount(hostPid),
    sidecarFds: fdCount(sidecarPid),
    processes: descendantPids(hostPid).length,
  };
}

function ask(child: ChildProcess, message: string): Promise<Credentials> {
  const answer = once(child, 'message') as Promise<[Credentials]>;
  child.send(message);
  return answer.then(([value]) => value);
}

/**
 * The load paused: let the last streams close, and V8's memory reducer (which starts 8 s after
 * the allocation rate drops) give back what it will, before reading /proc.
 */
const settle = () => new Promise((resolve) => setTimeout(resolve, 12_000));

async function snapshots(dir: string, label: string, hostPid: number, sidecarPid: number): Promise<string[]> {
  return [
    await takeHeapSnapshot(hostPid, dir, `host-${label}`),
    await takeHeapSnapshot(sidecarPid, join(dir, 'sidecar'), `sidecar-${label}`),
  ];
}

function socketsOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export const soakBenchmark: Benchmark = {
  id: 'soak',
  title:
    'a bounded mixed soak (sessions, tool runs incl. run_command, approvals, subscribers, reloads) through host + sandboxed sidecar',
  async run(): Promise<BenchFigure[]> {
    const root = makeTempDir('bastion-soak-');
    // The host's own temporary directory, so what it leaves is told apart from other work's.
    const hostTmp = join(root, 'tmp');
    mkdirSync(hostTmp);
    const userData = join(root, 'home');
    const workspace = join(root, 'workspace');
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, 'README.md'), '# Soak\nneedle in a haystack\n');
    writeFileSync(join(workspace, 'notes.txt'), 'notes\n'.repeat(200));
    const heapDir = join(userData, 'heap');
    if (TAKE_HEAP) mkdirSync(join(heapDir, 'sidecar'), { recursive: true, mode: 0o700 });

    const child = fork(HOST_SCRIPT, [userData, workspace, ...(TAKE_HEAP ? [join(heapDir, 'sidecar')] : [])], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, TMPDIR: hostTmp },
      execArgv: TAKE_HEAP ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${heapDir}`] : [],
    });
    const exited = once(child, 'exit');
    await once(child, 'message');
    const hostPid = child.pid as number;
    const client = new SoakClient(await ask(child, 'credentials'));
    const load = new SoakLoad(client);
    try {
      await load.run(Date.now() + WARMUP_MS);
      await load.commandRun();
      await settle();
      const credentials = await ask(child, 'credentials');
      client.update(credentials);
      const sidecarPid = sidecarNode(credentials.sidecarPid);
      const warm = sample(hostPid, sidecarPid);
      const warmHeaps = TAKE_HEAP ? await snapshots(heapDir, 'warm', hostPid, sidecarPid) : [];
      const runsAtWarm = load.runs;

      await load.run(Date.now() + SOAK_MS);
      await load.commandRun();
      await settle();
      const after = await ask(child, 'credentials');
      if (after.sidecarPid !== credentials.sidecarPid) throw new Error('the sidecar restarted during the soak');
      const end = sample(hostPid, sidecarPid);
      const endHeaps = TAKE_HEAP ? await snapshots(heapDir, 'end', hostPid, sidecarPid) : [];
      if (HEAP_OUT) {
        mkdirSync(HEAP_OUT, { recursive: true });
        for (const path of [...warmHeaps, ...endHeaps]) copyFileSync(path, join(HEAP_OUT, basename(path)));
      }
      for (const [index, name] of ['host', 'sidecar'].entries()) {
        if (!TAKE_HEAP) break;
        console.log(`  ${name} heap, self size by kind, largest growth (warm → end):`);
        for (const line of heapGrowth(warmHeaps[index] as string, endHeaps[index] as string, 12))
          console.log(`    ${line}`);
      }

      const processes = [hostPid, ...descendantPids(hostPid)].map((pid) => ({ pid, start: processStartTime(pid) }));
      child.send('stop');
      await exited;
      // a pid still there with the same start time is the same process
      // the same pid with the same start time, not a zombie (exited, waiting for its parent to reap it)
      const alive = processes.filter(
        ({ pid, start }) => start !== undefined && processStartTime(pid) === start && processState(pid) !== 'Z',
      );
      const listening = await socketsOpen(credentials.port);
      const leftInTmp = readdirSync(hostTmp);

      console.log(
        `  soak: ${load.runs - runsAtWarm} runs measured (${load.runs} in all), ${load.approvals} approvals, ${load.failures} failed actions`,
      );
      console.log(`  warm-up: ${JSON.stringify(warm)}`);
      console.log(`  end:     ${JSON.stringify(end)}`);
      if (load.failureReasons.length > 0) console.log(`  failures: ${load.failureReasons.join('; ')}`);
      if (alive.length > 0)
        console.log(`  alive after stop: ${alive.map(({ pid }) => `${pid} ${comm(pid)}`).join(', ')}`);
      if (leftInTmp.length > 0) console.log(`  left in the host's TMPDIR: ${leftInTmp.join(', ')}`);
      const growth = (name: string, at: number, base: number) =>
        figure(`RSS ${name}: end vs after warm-up`, 'MiB', at, base, '≤ 1.15×', (ratio) => ratio <= 1.15);
      const flat = (name: string, at: number, base: number) =>
        figure(name, 'count', at, base, '= warm-up', () => at === base);
      return [
        growth('host', end.hostRss, warm.hostRss),
        growth('sidecar', end.sidecarRss, warm.sidecarRss),
        flat('open fds host: end vs after warm-up', end.hostFds, warm.hostFds),
        flat('open fds sidecar: end vs after warm-up', end.sidecarFds, warm.sidecarFds),
        flat('host descendant processes: end vs after warm-up', end.processes, warm.processes),
        figure('processes alive after stop', 'count', alive.length, 0, '0', () => alive.length === 0),
        figure('listener open after stop', 'count', listening ? 1 : 0, 0, '0', () => !listening),
        figure(
          "entries left in the host's TMPDIR after stop",
          'count',
          leftInTmp.length,
          0,
          '0',
          () => leftInTmp.length === 0,
        ),
        figure('failed soak actions', 'count', load.failures, 0, '0', () => load.failures === 0),
      ];
    } finally {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(root, { recursive: true, force: true });
    }
  },
};
