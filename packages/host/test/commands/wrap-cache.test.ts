/**
 * The run_command wrap cache (wrap-cache.ts) with the real executor and the real sandbox: a kept
 * wrap is used only while it is what srt would build now. Each attack first shows the cache warm
 * (the command before it was served from it), then that what one command created is protected in
 * the very next: the write is refused and the file keeps the bytes it had.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeAttack } from '../../../../test/support/attack.js';
import { directArgv, wrapParts } from '../../src/sandbox/wrap-cache.js';
import { buildCommandSandboxProfile } from '../../src/commands/command-profile.js';
import { makeTempDir, useCommandWorldInWorkspace, type CommandRun } from './command-harness.js';

const suite = useCommandWorldInWorkspace('bastion-wrap-cache-');

/** How the command's sandbox was wrapped, from its `command.started` record. */
function wrapOf(run: CommandRun): unknown {
  const started = suite.world.records.find(
    (record) => record.event === 'command.started' && record.fields.command_id === run.id,
  );
  return started?.fields.wrap;
}

async function sh(script: string): Promise<{ run: CommandRun; exit: number | null | undefined }> {
  const run = suite.world.run('/bin/sh', ['-c', script]);
  const end = await run.done;
  return { run, exit: end.type === 'command.end' ? end.exit_code : undefined };
}

/** Run `true` until one is served from the cache (the first after a change is a full wrap). */
async function warm(): Promise<void> {
  for (let i = 0; i < 5; i += 1) {
    const { run } = await sh('true');
    if (wrapOf(run) === 'cached') return;
  }
  throw new Error('the wrap cache never served a command');
}

describe('run_command wrap cache', () => {
  it('serves a repeated command from the cache', async () => {
    await sh('true');
    await warm();
  });

  it('serves the argv srt builds now: a kept wrap equals a fresh srt wrap of the same profile', async () => {
    const privateTemp = makeTempDir('bastion-wrap-cache-tmp-');
    const profile = buildCommandSandboxProfile({
      home: suite.world.home,
      userData: suite.world.userData,
      workspaceRoot: suite.world.workspace,
      scratchDir: undefined,
      privateTemp,
      protectedInWorkspace: [],
      realPath: () => undefined,
      homeReads: [],
    });
    const env = { PATH: '/usr/bin:/bin', TMPDIR: privateTemp };
    const options = { home: suite.world.home, privateTemp, env, skipPlaceholder: () => true };
    let kept;
    for (let i = 0; i < 5 && !kept?.cached; i += 1) {
      kept?.ended();
      kept = await suite.srt.wrapCommand(['true'], profile, options);
    }
    expect(kept?.cached).toBe(true);
    kept?.ended();
    const inner = ['/usr/bin/env', '-i', `PATH=${env.PATH}`, `TMPDIR=${env.TMPDIR}`, 'true'];
    const fresh = await suite.srt.wrapArgv(inner, profile, { home: suite.world.home, skipPlaceholder: () => true });
    suite.srt.commandEnded();
    const parts = wrapParts(fresh, '/bin/sh', `exec ${inner.map((word) => `'${word}'`).join(' ')}`);
    expect(parts).toBeDefined();
    expect(kept?.argv).toEqual(directArgv(parts!, ['true'], env));
  });
});

describeAttack('stale-wrap', 'the run_command wrap cache serves no stale protection', () => {
  it('attack: a .vscode folder made below the root while the cache is warm is write-denied to the very next command', async () => {
    await warm();
    // Made outside: one a command makes there is moved to quarantine at its end (nested-protections.ts).
    mkdirSync(join(suite.world.workspace, 'sub', '.vscode'), { recursive: true });
    writeFileSync(join(suite.world.workspace, 'sub', '.vscode', 'tasks.json'), 'original');
    const next = await sh('printf planted > sub/.vscode/tasks.json');
    expect(next.exit).not.toBe(0);
    expect(wrapOf(next.run)).toBe('full');
    expect(readFileSync(join(suite.world.workspace, 'sub', '.vscode', 'tasks.json'), 'utf8')).toBe('original');
  });

  it('attack: a .bashrc one command creates in a subdirectory is write-denied to the very next', async () => {
    await warm();
    const first = await sh('mkdir -p tools && printf original > tools/.bashrc');
    expect(first.exit).toBe(0);
    const next = await sh('printf planted >> tools/.bashrc');
    expect(next.exit).not.toBe(0);
    expect(readFileSync(join(suite.world.workspace, 'tools', '.bashrc'), 'utf8')).toBe('original');
  });

  it('attack: a nested repository one command creates has its .git/config and hooks denied to the very next', async () => {
    await warm();
    const first = await sh(
      'mkdir -p nested/.git/hooks && printf "ref: refs/heads/main\\n" > nested/.git/HEAD && printf "[core]\\n" > nested/.git/config',
    );
    expect(first.exit).toBe(0);
    const config = join(suite.world.workspace, 'nested', '.git', 'config');
    const before = readFileSync(config, 'utf8');
    const next = await sh(
      'printf "[core]\\n\\tfsmonitor = touch /tmp/pwned\\n" > nested/.git/config; c=$?; printf "#!/bin/sh\\n" > nested/.git/hooks/pre-commit; h=$?; [ $c -ne 0 ] && [ $h -ne 0 ]',
    );
    expect(next.exit).toBe(0);
    expect(readFileSync(config, 'utf8')).toBe(before);
  });

  it('attack: a protected file made outside between two kept commands (AGENTS.md at the root) is write-denied to the very next', async () => {
    await warm();
    writeFileSync(join(suite.world.workspace, 'AGENTS.md'), 'the user wrote this\n');
    const next = await sh('printf planted > AGENTS.md');
    expect(next.exit).not.toBe(0);
    expect(readFileSync(join(suite.world.workspace, 'AGENTS.md'), 'utf8')).toBe('the user wrote this\n');
  });
});
