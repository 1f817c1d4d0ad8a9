/**
 * Heap snapshots for the soak benchmark's leak hunt: take one of a running Node process (started
 * with --heapsnapshot-signal=SIGUSR2 and a --diagnostic-dir), and compare two by kind of object
 * (constructor name, or the V8 node type for strings, arrays, code and the like): count and self
 * size, largest growth first. A snapshot is taken after a full collection, so what it holds is
 * what the process keeps alive, unlike its RSS.
 */
import { readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Signal `pid` to write a snapshot into `dir` and wait until it is complete; returns its path. */
export async function takeHeapSnapshot(pid: number, dir: string, label: string): Promise<string> {
  const before = new Set(readdirSync(dir));
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    await pause(500);
    const fresh = readdirSync(dir).find((name) => name.endsWith('.heapsnapshot') && !before.has(name));
    if (!fresh) continue;
    const path = join(dir, fresh);
    const size = statSync(path).size;
    await pause(1_000);
    if (size === 0 || statSync(path).size !== size) continue;
    const target = join(dir, `${label}.heapsnapshot`);
    renameSync(path, target);
    return target;
  }
  throw new Error(`no heap snapshot from ${pid}`);
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

type Summary = Map<string, { count: number; bytes: number }>;

function summarize(path: string): Summary {
  const heap = JSON.parse(readFileSync(path, 'utf8')) as Snapshot;
  const fields = heap.snapshot.meta.node_fields;
  const types = heap.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((field) => fields.indexOf(field)) as [
    number,
    number,
    number,
  ];
  const summary: Summary = new Map();
  for (let i = 0; i < heap.nodes.length; i += fields.length) {
    const type = types[heap.nodes[i + typeAt] as number] ?? '?';
    const key =
      type === 'object' || type === 'native' ? (heap.strings[heap.nodes[i + nameAt] as number] ?? '?') : `(${type})`;
    const entry = summary.get(key) ?? { count: 0, bytes: 0 };
    entry.count += 1;
    entry.bytes += heap.nodes[i + sizeAt] as number;
    summary.set(key, entry);
  }
  return summary;
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(2);

/** Lines naming the `top` kinds whose self size grew most from `before` to `after`, after a total line. */
export function heapGrowth(before: string, after: string, top: number): string[] {
  const a = summarize(before);
  const b = summarize(after);
  const total = (summary: Summary) => [...summary.values()].reduce((sum, entry) => sum + entry.bytes, 0);
  const rows = [...b.entries()]
    .map(([key, entry]) => ({ key, entry, was: a.get(key) ?? { count: 0, bytes: 0 } }))
    .sort((x, y) => y.entry.bytes - y.was.bytes - (x.entry.bytes - x.was.bytes))
    .slice(0, top);
  return [
    `all: ${mib(total(a))} → ${mib(total(b))} MiB`,
    ...rows.map(
      ({ key, entry, was }) =>
        `${key}: ${was.count} → ${entry.count} objects, ${mib(was.bytes)} → ${mib(entry.bytes)} MiB`,
    ),
  ];
}
