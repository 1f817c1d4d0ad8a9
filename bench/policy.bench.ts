/**
 * Issue 19: the watchdog's rule evaluation. 1 000 rules in one project's layer of a real
 * policy.json (command rules with argv prefixes and argument sets, path-glob rules for file tools),
 * evaluated through PolicyStore.evaluate — the host's path for every tool call, including the
 * stat that notices an edited file — for a `run_command` call and a `write_file` call that no user
 * rule matches (so every rule is tried). Baseline: the same calls with no user rules (built-in
 * rules only). Target: p50 ≤ 0.1 ms with 1 000 rules.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { POLICY_MAX_FILE_BYTES, type PolicyCall, type PolicyFile, type PolicyRule } from '@bastion/protocol';
import { writePrivateFile, PolicyStore } from '@bastion/host/testing';
import { makeTempDir } from '../packages/daemon/test/support/temp-dir.js';
import { figure, percentile, type Benchmark } from './harness.js';

const RULES = 1_000;
const CALLS = 20_000;

function rules(): PolicyRule[] {
  return Array.from({ length: RULES }, (_, i): PolicyRule => {
    if (i % 3 === 0) return { id: `r${i}`, decision: 'deny', command: `tool${i}`, argv_prefix: ['run', `--flag${i}`] };
    if (i % 3 === 1) {
      return { id: `r${i}`, decision: 'ask', command: 'git', args_include: [[`sub${i}`], ['--x', `--y${i}=*`]] };
    }
    return { id: `r${i}`, decision: 'ask', tools: ['write_file', 'edit_file'], paths: [`generated/${i}/**`, `*.${i}`] };
  });
}

function p50(store: PolicyStore, call: PolicyCall): { p50: number; p99: number } {
  for (let i = 0; i < 1_000; i += 1) store.evaluate(call);
  const samples: number[] = [];
  for (let i = 0; i < CALLS; i += 1) {
    const start = performance.now();
    store.evaluate(call);
    samples.push(performance.now() - start);
  }
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

export const policyBenchmark: Benchmark = {
  id: 'policy',
  title: 'watchdog rule evaluation: 1 000 rules in policy.json vs built-in rules only',
  run() {
    const dir = makeTempDir('bastion-bench-policy-');
    try {
      const workspace = join(dir, 'workspace');
      const full = join(dir, 'full');
      const empty = join(dir, 'empty');
      for (const path of [workspace, full, empty]) mkdirSync(path, { mode: 0o700 });
      const file: PolicyFile = { version: 1, global: [], projects: { [workspace]: rules() } };
      // Where the store reads its rules (<userData>/host/policy.json); a bench that wrote elsewhere measured built-in rules only.
      const storePath = new PolicyStore(full).path;
      mkdirSync(dirname(storePath), { recursive: true, mode: 0o700 });
      writePrivateFile(storePath, JSON.stringify(file), POLICY_MAX_FILE_BYTES);
      const calls: [string, PolicyCall][] = [
        [
          'run_command',
          {
            tool: 'run_command',
            workspace_root: workspace,
            command: { name: 'git', args: ['commit', '-m', 'message', 'src/a.ts'], cwd: workspace },
          },
        ],
        ['write_file', { tool: 'write_file', workspace_root: workspace, paths: [join(workspace, 'src', 'a.ts')] }],
      ];
      return Promise.resolve(
        calls.map(([tool, call]) => {
          const loaded = new PolicyStore(full);
          if (loaded.listing(workspace).project?.rules.length !== RULES)
            throw new Error('the 1 000 rules were not loaded');
          if (loaded.evaluate(call).verdict !== 'none') throw new Error('the benchmark call must match no user rule');
          const withRules = p50(loaded, call);
          const builtinOnly = p50(new PolicyStore(empty), call);
          console.log(
            `policy ${tool}: p50 ${withRules.p50.toFixed(4)} ms (p99 ${withRules.p99.toFixed(4)}) with ${RULES} rules, ` +
              `${builtinOnly.p50.toFixed(4)} ms built-in only`,
          );
          return figure(
            `rule evaluation p50, ${tool}, ${RULES} rules (ms)`,
            'ms',
            withRules.p50,
            builtinOnly.p50,
            '≤ 0.1 ms',
            (_ratio, bastion) => bastion <= 0.1,
          );
        }),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
