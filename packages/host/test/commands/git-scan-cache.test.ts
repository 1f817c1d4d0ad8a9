/**
 * The executor's git repository scans with their directory listings kept between commands
 * (directory-listing-cache.ts), with the real executor and the real sandbox. Each attack first
 * runs commands over a tree whose directories are old enough for their listings to be kept, then
 * shows that a repository appearing five levels down (below srt's own scan depth, so only the
 * host's scan finds it) is seen by the very next scan: protected before the next command, or
 * neutralised after the command that made it.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WRAP_CACHE_RACY_MARGIN_MS } from '@bastion/protocol';
import { beforeAll, expect, it } from 'vitest';
import { describeAttack } from '../../../../test/support/attack.js';
import { useCommandWorldInWorkspace, type CommandRun } from './command-harness.js';

const suite = useCommandWorldInWorkspace('bastion-git-scan-cache-');
const DEEP = join('a', 'b', 'c', 'd');

async function sh(script: string): Promise<{ run: CommandRun; exit: number | null | undefined; notices: string[] }> {
  const run = suite.world.run('/bin/sh', ['-c', script]);
  const end = await run.done;
  return {
    run,
    exit: end.type === 'command.end' ? end.exit_code : undefined,
    notices: end.type === 'command.end' ? (end.notices ?? []) : [],
  };
}

/** A git directory as git would take it, made outside the sandbox. */
function makeRepository(worktree: string): string {
  const gitDir = join(worktree, '.git');
  mkdirSync(join(gitDir, 'objects'), { recursive: true });
  mkdirSync(join(gitDir, 'hooks'), { recursive: true });
  writeFileSync(join(gitDir, 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(gitDir, 'config'), '[core]\n\trepositoryformatversion = 0\n');
  return gitDir;
}

/** Commands over the tree once its listings may be kept (their change times past the margin). */
async function warm(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, WRAP_CACHE_RACY_MARGIN_MS * 3));
  for (let i = 0; i < 2; i += 1) expect((await sh('true')).exit).toBe(0);
}

beforeAll(() => {
  mkdirSync(join(suite.world.workspace, DEEP, 'e'), { recursive: true });
  mkdirSync(join(suite.world.workspace, DEEP, 'f'), { recursive: true });
});

describeAttack('stale-wrap', 'the git repository scan serves no stale directory listing', () => {
  it('attack: a repository the user makes five levels down between two commands has its config and hooks write-denied to the very next', async () => {
    await warm();
    const gitDir = makeRepository(join(suite.world.workspace, DEEP, 'e'));
    const config = readFileSync(join(gitDir, 'config'), 'utf8');
    const next = await sh(
      `printf "[core]\\n\\tfsmonitor = touch /tmp/pwned\\n" > ${DEEP}/e/.git/config; c=$?; printf "#!/bin/sh\\n" > ${DEEP}/e/.git/hooks/pre-commit; h=$?; [ $c -ne 0 ] && [ $h -ne 0 ]`,
    );
    expect(next.exit).toBe(0);
    expect(readFileSync(join(gitDir, 'config'), 'utf8')).toBe(config);
    expect(() => readFileSync(join(gitDir, 'hooks', 'pre-commit'))).toThrow();
  });

  it('attack: a repository a command makes five levels down is neutralised after it, its planted fsmonitor removed', async () => {
    await warm();
    const made = await sh(
      `mkdir -p ${DEEP}/f/.git/objects ${DEEP}/f/.git/hooks && printf "ref: refs/heads/main\\n" > ${DEEP}/f/.git/HEAD && printf "[core]\\n\\tfsmonitor = touch /tmp/pwned\\n" > ${DEEP}/f/.git/config`,
    );
    expect(made.exit).toBe(0);
    const gitDir = join(suite.world.workspace, DEEP, 'f', '.git');
    expect(readFileSync(join(gitDir, 'config'), 'utf8')).not.toContain('fsmonitor');
    expect(made.notices.join('\n')).toContain(gitDir);
  });
});
