/**
 * Issue 15/19: `write_file` now that the host performs the sidecar's workspace writes. The
 * daemon's real write_file tool (mode check, containment, the diff) in both runs; what differs is
 * who writes. Baseline: the same atomic write called in the tool's own process, as the daemon
 * did before (workspace-files.ts's descriptor walk, temp file, fsync, rename, journal). Bastion:
 * the tool's `workspace.write` + `workspace.chunk` frames through the real codec to the host's
 * attachWorkspaceWrites, which resolves and checks the path again, evaluates the policy (with its
 * audit log line) and writes. Both channel ends are in this process over in-memory pipes: the
 * real sidecar adds one stdio pipe hop each way. p50 of a 1 KiB and a 768 KiB write.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createLogger, WORKSPACE_MAX_WRITE_BYTES } from '@bastion/protocol';
import {
  createFileTools,
  HostWorkspaceWriter,
  openDatabase,
  SessionStore,
  WorkspaceRoots,
  type WorkspaceWriter,
} from '@bastion/daemon/testing';
import {
  attachWorkspaceWrites,
  HostAuditLog,
  PolicyStore,
  ProtectedLinkIndex,
  protectedLinkTargets,
  resolveWritable,
  TempFileJournal,
  writeWorkspaceFile,
} from '@bastion/host/testing';
import { connectedChannelPair } from '../test/support/channel-pair.js';
import { makeTempDir } from '../packages/daemon/test/support/temp-dir.js';
import { figure, percentile, type Benchmark } from './harness.js';

const RUNS = Number(process.env.BENCH_FILE_WRITE_RUNS ?? 200);
/** The larger workspace's tree: this many folders of FILES_PER_FOLDER files (about 5 000 entries, a mid-sized repository). */
const FOLDERS = 500;
const FILES_PER_FOLDER = 9;
const LINK_SCAN_RUNS = 30;

/** Fill `workspace` with FOLDERS folders of FILES_PER_FOLDER small files. */
function plantTree(workspace: string): void {
  for (let folder = 0; folder < FOLDERS; folder += 1) {
    const path = join(workspace, 'src', `m${folder % 25}`, `d${folder}`);
    mkdirSync(path, { recursive: true });
    for (let file = 0; file < FILES_PER_FOLDER; file += 1) writeFileSync(join(path, `f${file}.ts`), 'export {};\n');
  }
}

/** p50 of `run` over LINK_SCAN_RUNS calls after two warm-ups. */
function p50OfSync(run: () => void): number {
  const samples: number[] = [];
  for (let i = 0; i < LINK_SCAN_RUNS + 2; i += 1) {
    const started = performance.now();
    run();
    if (i >= 2) samples.push(performance.now() - started);
  }
  return percentile(samples, 50);
}

type Execute = (input: unknown, options: unknown) => Promise<unknown>;

async function p50Of(execute: Execute, content: string): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < RUNS + 10; i += 1) {
    const started = performance.now();
    const result = (await execute({ path: `out/file-${i % 8}.txt`, content }, { toolCallId: 'b', messages: [] })) as {
      ok?: boolean;
    };
    if (result.ok === false) throw new Error('write_file refused');
    if (i >= 10) samples.push(performance.now() - started);
  }
  return percentile(samples, 50);
}

export const fileWriteBenchmark: Benchmark = {
  id: 'file-write',
  title: 'write_file performed by the host over channel frames vs the same write in the tool’s process',
  async run() {
    const dir = makeTempDir('bastion-bench-file-write-');
    try {
      const userData = join(dir, 'userdata');
      const workspace = join(dir, 'workspace');
      const hostDir = join(userData, 'host');
      for (const path of [hostDir, workspace]) mkdirSync(path, { recursive: true, mode: 0o700 });
      const journal = new TempFileJournal(hostDir);
      const db = openDatabase(join(dir, 'sessions.db'));
      const store = new SessionStore(db);
      const sessionId = store.sessions.create({
        provider: 'demo',
        model: 'demo',
        workspace,
        mode: 'auto',
        consentBy: 'bench',
      }).id;
      // Each writer with an index of its own, as the host keeps one: both check the links alike.
      const inProcessLinks = new ProtectedLinkIndex();
      const inProcess: WorkspaceWriter = {
        write: (target, content) =>
          Promise.resolve(
            writeWorkspaceFile(resolveWritable(target.root, target.requested, { links: inProcessLinks }), content, {
              journal,
            }),
          ),
        remove: () => Promise.reject(new Error('unused')),
        removeEmptyDirectory: () => Promise.reject(new Error('unused')),
      };
      const { host, sidecar } = connectedChannelPair();
      attachWorkspaceWrites(
        { channel: host, config: { workspaces: [workspace] } },
        {
          userData,
          policy: new PolicyStore(userData, { audit: new HostAuditLog(userData) }),
          journal,
          links: new ProtectedLinkIndex(),
          log: createLogger('bench', () => undefined),
        },
      );
      const toolOf = (writer: WorkspaceWriter) =>
        createFileTools({ roots: new WorkspaceRoots([workspace], writer), workspace, sessionId, store }).write_file
          .execute as unknown as Execute;
      const before = toolOf(inProcess);
      const after = toolOf(new HostWorkspaceWriter(sidecar));
      const figures = [];
      for (const [label, content] of [
        ['1 KiB', 'x'.repeat(1024)],
        ['768 KiB', 'x'.repeat(WORKSPACE_MAX_WRITE_BYTES)],
      ] as const) {
        const baseline = await p50Of(before, content);
        const bastion = await p50Of(after, content);
        figures.push(
          figure(
            `write_file p50, ${label} (ms)`,
            'ms',
            bastion,
            baseline,
            '≤ +1 ms over the in-process write',
            (_ratio, b, base) => b - base <= 1,
          ),
        );
      }
      // A mid-sized repository: the same 1 KiB write, and what the host's check for links to
      // protected names costs there, a fresh scan against one its index serves again.
      plantTree(workspace);
      figures.push(
        figure(
          `write_file p50, 1 KiB, ${FOLDERS * (FILES_PER_FOLDER + 1)}-entry workspace (ms)`,
          'ms',
          await p50Of(after, 'x'.repeat(1024)),
          await p50Of(before, 'x'.repeat(1024)),
          '≤ +1 ms over the in-process write',
          (_ratio, b, base) => b - base <= 1,
        ),
      );
      const served = new ProtectedLinkIndex();
      figures.push(
        figure(
          `protected-link check, ${FOLDERS * (FILES_PER_FOLDER + 1)}-entry workspace: index vs fresh scan (ms)`,
          'ms',
          p50OfSync(() => served.of(workspace)),
          p50OfSync(() => protectedLinkTargets(workspace)),
          '≤ 0.1× a fresh scan',
          (ratio) => ratio <= 0.1,
        ),
      );
      db.close();
      return figures;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
