import { randomBytes } from 'node:crypto';
import { mkdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import picomatch from 'picomatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyCall, PolicyRule, PolicyVerdict } from '@bastion/protocol';
import { describeAttack } from '../../../../test/support/attack.js';
import { BUILTIN_RULES } from './builtin-rules.js';
import { compileRules, evaluateRules, literalFilter } from './policy-rules.js';

/**
 * The project the calls name: its path is known when the cases are collected, the folder is made
 * when the tests run (a run that skips them all, npm run test:attacks, runs no hook to remove it).
 */
const base = join(realpathSync(tmpdir()), `bastion-policy-rules-${process.pid}-${randomBytes(4).toString('hex')}`);
const root = join(base, 'project');
beforeAll(() => {
  mkdirSync(join(root, 'src'), { recursive: true, mode: 0o700 });
  symlinkSync(root, join(root, 'src', 'back-to-root'));
  // Names an option parser would take for options: a link to the root, and a folder inside it.
  symlinkSync(root, join(root, '-x'));
  mkdirSync(join(root, '-inside'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const builtin = compileRules(BUILTIN_RULES, 'builtin');

function rule(id: string, fields: Omit<PolicyRule, 'id'>): PolicyRule {
  return { id, ...fields };
}

function command(name: string, args: string[], cwd = root): PolicyCall {
  return { tool: 'run_command', workspace_root: root, command: { name, args, cwd } };
}

function file(tool: string, relative: string): PolicyCall {
  return { tool, workspace_root: root, paths: [join(root, relative)] };
}

function verdictOf(call: PolicyCall, layers: { project?: PolicyRule[]; global?: PolicyRule[] } = {}) {
  return evaluateRules(
    [compileRules(layers.project ?? [], 'project'), compileRules(layers.global ?? [], 'global'), builtin],
    call,
  );
}

const denyGitPush = rule('no-push', { decision: 'deny', command: 'git', argv_prefix: ['push'] });

describe('policy rules: argv prefix (exact tokens, no shell parsing)', () => {
  const cases: [string, PolicyCall, PolicyVerdict][] = [
    ['git push origin feature', command('git', ['push', 'origin', 'feature']), 'deny'],
    ['git push (the prefix alone)', command('git', ['push']), 'deny'],
    ['/usr/bin/git push (matched by the last path segment)', command('/usr/bin/git', ['push']), 'deny'],
    ['git pushx (a longer token is not the token)', command('git', ['pushx']), 'none'],
    ['git status', command('git', ['status']), 'none'],
    ['git (no arguments)', command('git', []), 'none'],
    ['gitx push (another program)', command('gitx', ['push']), 'none'],
    ["sh -c 'git push' (one opaque argument)", command('sh', ['-c', 'git push']), 'none'],
    ['a file tool never matches a command rule', file('read_file', 'push'), 'none'],
  ];
  it.each(cases)('%s → %s', (_name, call, expected) => {
    expect(verdictOf(call, { project: [denyGitPush] }).verdict).toBe(expected);
  });
});

describe('policy rules: path globs for file tools', () => {
  const askDocs = rule('docs', { decision: 'ask', tools: ['write_file'], paths: ['docs/**'] });
  const cases: [string, PolicyCall, PolicyVerdict][] = [
    ['write docs/a.md', file('write_file', 'docs/a.md'), 'ask'],
    ['write docs/deep/b.md', file('write_file', 'docs/deep/b.md'), 'ask'],
    ['write docsx/a.md', file('write_file', 'docsx/a.md'), 'none'],
    ['read docs/a.md (another tool)', file('read_file', 'docs/a.md'), 'none'],
    ['write src/a.ts', file('write_file', 'src/a.ts'), 'none'],
    ['a path outside the workspace matches no glob', { ...file('write_file', 'x'), paths: ['/etc/docs/a'] }, 'none'],
  ];
  it.each(cases)('%s → %s', (_name, call, expected) => {
    expect(verdictOf(call, { project: [askDocs] }).verdict).toBe(expected);
  });

  it('a dot-directory glob matches (the built-in CI rule asks for .github/workflows/ci.yml)', () => {
    expect(verdictOf(file('edit_file', '.github/workflows/ci.yml'))).toMatchObject({
      verdict: 'ask',
      rule_id: 'builtin.ci-workflows-write',
      layer: 'builtin',
    });
    expect(verdictOf(file('read_file', '.github/workflows/ci.yml')).verdict).toBe('none');
  });

  it('run_command arguments are resolved against the working directory for path globs', () => {
    const denyRmDocs = rule('rm-docs', { decision: 'deny', command: 'rm', paths: ['docs/**'] });
    expect(verdictOf(command('rm', ['../docs/a.md'], join(root, 'src')), { project: [denyRmDocs] }).verdict).toBe(
      'deny',
    );
    expect(verdictOf(command('rm', ['docs/a.md'], join(root, 'src')), { project: [denyRmDocs] }).verdict).toBe('none');
  });
});

describe("policy rules: the literal pre-filter before a rule's globs", () => {
  const segment = fc.constantFrom('src', 'docs', 'a', '.git', '.github', 'v1.2', 'x-y', '..', '.', 'a.ts', 'b.md', '');
  const globPart = fc.constantFrom('*', '**', '?', '*.ts', '*.md', '{a,b}', '[ab]', '!(a)', '+(a|b)', '@(x)', 'a\\*');
  const glob = fc
    .array(fc.oneof(segment, globPart), { minLength: 1, maxLength: 4 })
    .map((parts) => parts.join('/'))
    .filter((text) => text.length > 0);
  const path = fc
    .array(segment, { minLength: 1, maxLength: 4 })
    .map((parts) => parts.join('/'))
    .filter((text) => text.length > 0);

  it('admits every path any of the globs matches (a necessary condition, never a verdict of its own)', () => {
    fc.assert(
      fc.property(fc.array(glob, { minLength: 1, maxLength: 3 }), path, (globs, candidate) => {
        const matched = globs.some((one) => picomatch.makeRe(one, { dot: true }).test(candidate));
        if (matched) expect(literalFilter(globs)(candidate)).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it('turns away paths outside literal directories and without the extension, and admits any shape it cannot read', () => {
    const filter = literalFilter(['generated/5/**', '*.5']);
    expect(['generated/5', 'generated/5/x/y', 'a.5', 'd/a.5', 'a.5/'].map(filter)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['generated/50', 'generated', 'src/a.ts', '5'].map(filter)).toEqual([false, false, false, false]);
    for (const shape of ['./src/**', '../x/**', '{a,b}/**', 'src*/x', '**/x.ts']) {
      expect(literalFilter([shape])('anything/else')).toBe(true);
    }
  });
});

describe('policy rules: layers and precedence', () => {
  const allowGitPush = rule('yes-push', { decision: 'allow', command: 'git', argv_prefix: ['push'] });
  const askGit = rule('ask-git', { decision: 'ask', command: 'git' });

  it('a project rule beats a global one (project allow over global deny)', () => {
    const answer = verdictOf(command('git', ['push']), { project: [allowGitPush], global: [denyGitPush] });
    expect(answer).toMatchObject({ verdict: 'allow', rule_id: 'yes-push', layer: 'project' });
  });

  it('a project deny beats a global allow', () => {
    expect(verdictOf(command('git', ['push']), { project: [denyGitPush], global: [allowGitPush] }).verdict).toBe(
      'deny',
    );
  });

  it('inside one layer the most restrictive match decides (ask over allow, deny over ask)', () => {
    expect(verdictOf(command('git', ['push']), { project: [allowGitPush, askGit] }).verdict).toBe('ask');
    expect(verdictOf(command('git', ['push']), { global: [askGit, denyGitPush, allowGitPush] }).verdict).toBe('deny');
  });

  it('a user rule overrides a built-in deny (project allow for a force push to main)', () => {
    const allowForce = rule('force-ok', { decision: 'allow', command: 'git', argv_prefix: ['push', '--force'] });
    expect(verdictOf(command('git', ['push', '--force', 'origin', 'main']), { project: [allowForce] })).toMatchObject({
      verdict: 'allow',
      rule_id: 'force-ok',
    });
  });

  it('hard-deny beats an allow in a more specific layer', () => {
    const allowRm = rule('rm-ok', { decision: 'allow', command: 'rm' });
    expect(verdictOf(command('rm', ['-rf', '.']), { project: [allowRm], global: [allowRm] })).toMatchObject({
      verdict: 'hard-deny',
      rule_id: 'builtin.rm-recursive-workspace-root',
    });
  });

  it('a user hard-deny in the global layer beats a project allow', () => {
    const hard = rule('never-curl', { decision: 'hard-deny', command: 'curl' });
    const allowCurl = rule('curl-ok', { decision: 'allow', command: 'curl' });
    expect(verdictOf(command('curl', ['x']), { project: [allowCurl], global: [hard] }).verdict).toBe('hard-deny');
  });

  it('no matching rule is `none`: the mode decides', () => {
    expect(verdictOf(command('ls', ['-la']))).toEqual({ verdict: 'none' });
  });

  it('rules of one project do not apply to a call in another', () => {
    const elsewhere = { ...command('git', ['push']), workspace_root: join(base, 'other') };
    expect(evaluateRules([compileRules([], 'project'), compileRules([], 'global'), builtin], elsewhere).verdict).toBe(
      'none',
    );
  });
});

describe('policy rules: the built-in defaults', () => {
  const cases: [string, PolicyCall, PolicyVerdict][] = [
    ['git push --force origin main', command('git', ['push', '--force', 'origin', 'main']), 'deny'],
    ['git push -f origin master', command('git', ['push', '-f', 'origin', 'master']), 'deny'],
    [
      'git push --force-with-lease origin HEAD:main',
      command('git', ['push', '--force-with-lease', 'origin', 'HEAD:main']),
      'deny',
    ],
    [
      'git push --force-with-lease=main:abc origin main',
      command('git', ['push', '--force-with-lease=main:abc', 'origin', 'main']),
      'deny',
    ],
    ['git push origin +main', command('git', ['push', 'origin', '+main']), 'deny'],
    ['git push origin :main (delete)', command('git', ['push', 'origin', ':main']), 'deny'],
    ['git push origin --delete master', command('git', ['push', 'origin', '--delete', 'master']), 'deny'],
    ['git push --force origin feature (asks)', command('git', ['push', '--force', 'origin', 'feature']), 'ask'],
    ['git push origin main (no force)', command('git', ['push', 'origin', 'main']), 'none'],
    ['rm -rf . in the root', command('rm', ['-rf', '.']), 'hard-deny'],
    ['rm -r -f <root> by absolute path', command('rm', ['-r', '-f', root]), 'hard-deny'],
    ['rm -rf .. from src (the root by ..)', command('rm', ['-rf', '..'], join(root, 'src')), 'hard-deny'],
    ['rm -rf / (above the root)', command('rm', ['-rf', '/']), 'hard-deny'],
    ['rm --recursive a symlink to the root', command('rm', ['--recursive', 'src/back-to-root/']), 'hard-deny'],
    ['rm -rf src (inside the root)', command('rm', ['-rf', 'src']), 'none'],
    ['rm . without -r', command('rm', ['.']), 'none'],
  ];
  it.each(cases)('%s → %s', (_name, call, expected) => {
    expect(verdictOf(call).verdict).toBe(expected);
  });
});

describeAttack('policy-bypass', 'the root hard-deny: operands spelled as options', () => {
  const allowRm = rule('rm-ok', { decision: 'allow', command: 'rm' });
  const cases: [string, PolicyVerdict, PolicyCall][] = [
    ['rm -r -f -- -x/ (a link to the root named -x, after --)', 'hard-deny', command('rm', ['-r', '-f', '--', '-x/'])],
    ['rm -rf -x/ (the same link, no --)', 'hard-deny', command('rm', ['-rf', '-x/'])],
    ['rm -rf -- -gone/.. (the root, lexically, after --)', 'hard-deny', command('rm', ['-rf', '--', '-gone/..'])],
    ['rm -rf -- . (after --)', 'hard-deny', command('rm', ['-rf', '--', '.'])],
    ['rm -rf -- -inside (a folder in the root)', 'allow', command('rm', ['-rf', '--', '-inside'])],
    ['rm -rf -nothing-here (no such name: an option)', 'allow', command('rm', ['-rf', '-nothing-here'])],
  ];
  it.each(cases)('%s → %s, over a project and a global allow', (_name, expected, call) => {
    expect(verdictOf(call, { project: [allowRm], global: [allowRm] }).verdict).toBe(expected);
  });

  it('path rules see the operands after -- too', () => {
    const denyInside = rule('inside', { decision: 'deny', command: 'rm', paths: ['-inside/**', '-inside'] });
    expect(verdictOf(command('rm', ['--', '-inside']), { project: [denyInside] }).verdict).toBe('deny');
  });
});

describeAttack('policy-bypass', 'the protected-branch denies: other spellings git takes', () => {
  const git = (...args: string[]) => command('git', args);
  const denied: [string, PolicyCall][] = [
    ['git push origin +refs/heads/main', git('push', 'origin', '+refs/heads/main')],
    ['git push origin +refs/heads/master', git('push', 'origin', '+refs/heads/master')],
    ['git push -uf origin main (a bundle)', git('push', '-uf', 'origin', 'main')],
    ['git push -vnf origin main (a bundle, f last)', git('push', '-vnf', 'origin', 'main')],
    ['git push -fu origin main', git('push', '-fu', 'origin', 'main')],
    ['git push --force-w origin main (--force-with-lease)', git('push', '--force-w', 'origin', 'main')],
    ['git push --force-w=main:abc origin main', git('push', '--force-w=main:abc', 'origin', 'main')],
    ['git push --force-i origin main (--force-if-includes)', git('push', '--force-i', 'origin', 'main')],
    ['git push --forc origin main', git('push', '--forc', 'origin', 'main')],
    ['git push --fo origin main', git('push', '--fo', 'origin', 'main')],
    ['git push --force-if-includes origin main', git('push', '--force-if-includes', 'origin', 'main')],
    ['git push --del origin main (--delete)', git('push', '--del', 'origin', 'main')],
    ['git push -ud origin main (a bundle with -d)', git('push', '-ud', 'origin', 'main')],
  ];
  it.each(denied)('%s → deny', (_name, call) => {
    expect(verdictOf(call).verdict).toBe('deny');
  });

  const notForce: [string, PolicyCall][] = [
    ['git push --follow-tags origin main', git('push', '--follow-tags', 'origin', 'main')],
    ['git push --follow origin main (--follow-tags)', git('push', '--follow', 'origin', 'main')],
    ['git push -u origin main', git('push', '-u', 'origin', 'main')],
    ['git push -of origin main (-o takes "f")', git('push', '-of', 'origin', 'main')],
    ['git push --dry-run origin main', git('push', '--dry-run', 'origin', 'main')],
    ['git push origin refs/heads/main', git('push', 'origin', 'refs/heads/main')],
  ];
  it.each(notForce)('%s → none (not a force)', (_name, call) => {
    expect(verdictOf(call).verdict).toBe('none');
  });

  it('a bundle or an abbreviation to another branch asks, as --force does', () => {
    expect(verdictOf(git('push', '-uf', 'origin', 'feature')).verdict).toBe('ask');
    expect(verdictOf(git('push', '--force-w', 'origin', 'feature')).verdict).toBe('ask');
  });
});
