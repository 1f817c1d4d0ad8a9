import { describe, expect, it } from 'vitest';
import type { PolicyListing, PolicyRule } from '@bastion/protocol';
import { BUILTIN_RULES } from './builtin-rules.js';
import { fileToolWriteDenies } from './sandbox-denies.js';

const root = '/work/app';
const listing = (project: PolicyRule[], global: PolicyRule[] = []): PolicyListing => ({
  builtin: [...BUILTIN_RULES],
  global,
  project: { root, rules: project },
});
const denies = (project: PolicyRule[], global: PolicyRule[] = []) =>
  fileToolWriteDenies(() => listing(project, global), [root]);

describe('file-tool rules held by the sidecar sandbox', () => {
  it('a hard-deny of a literal path and of a directory/** becomes write-denies of that path and that directory', () => {
    const rule: PolicyRule = { id: 'r', decision: 'hard-deny', paths: ['deploy/**', 'config/prod.env'] };
    expect(denies([rule])).toEqual(['/work/app/config/prod.env', '/work/app/deploy']);
  });

  it("a project deny for both writing tools is held; the built-in workflows `ask` is not (an approval is the sidecar's)", () => {
    const rule: PolicyRule = { id: 'r', decision: 'deny', tools: ['edit_file', 'write_file'], paths: ['secrets/**'] };
    expect(denies([rule])).toEqual(['/work/app/secrets']);
    expect(denies([])).toEqual([]);
  });

  it.each<[string, PolicyRule]>([
    [
      'a rule for write_file only (edit_file stays allowed)',
      { id: 'r', decision: 'hard-deny', tools: ['write_file'], paths: ['x'] },
    ],
    ['a glob that is no path', { id: 'r', decision: 'hard-deny', paths: ['**/*.pem', 'src/*.env', '!keep'] }],
    ['a path outside the root, and the root itself', { id: 'r', decision: 'hard-deny', paths: ['../other', '.'] }],
    ['an ask', { id: 'r', decision: 'ask', paths: ['x'] }],
    ['a rule that also needs a run_command matcher', { id: 'r', decision: 'hard-deny', command: 'rm', paths: ['x'] }],
  ])('holds nothing for %s', (_name, rule) => {
    expect(denies([rule])).toEqual([]);
  });

  it('a global deny is held only while the project has no rule a file tool could match (one could allow it)', () => {
    const global: PolicyRule = { id: 'g', decision: 'deny', paths: ['vendor/**'] };
    expect(denies([], [global])).toEqual(['/work/app/vendor']);
    const allowDocs: PolicyRule = { id: 'p', decision: 'allow', tools: ['write_file'], paths: ['docs/**'] };
    expect(denies([allowDocs], [global])).toEqual([]);
    // A run_command rule in the project cannot match a file tool: the global deny still decides.
    expect(denies([{ id: 'p', decision: 'allow', command: 'ls' }], [global])).toEqual(['/work/app/vendor']);
  });

  it('a global hard-deny holds whatever the project allows', () => {
    const allowAll: PolicyRule = { id: 'p', decision: 'allow', tools: ['write_file', 'edit_file'] };
    expect(denies([allowAll], [{ id: 'g', decision: 'hard-deny', paths: ['.env'] }])).toEqual(['/work/app/.env']);
  });

  it('rules that cannot be read deny every file write: the workspace root itself', () => {
    const unreadable = () => {
      throw new Error('policy.json cannot be used');
    };
    expect(fileToolWriteDenies(unreadable, [root, '/work/other'])).toEqual([root, '/work/other']);
  });
});
