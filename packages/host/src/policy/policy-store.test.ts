import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '@bastion/test-support';
import type { PolicyCall } from '@bastion/protocol';
import { ensureUserData } from '../user-data.js';
import { PolicyStore } from './policy-store.js';

let base: string;
let userData: string;
let projectA: string;
let projectB: string;
/** Where the store keeps its rules: the host's own directory in userData. */
let policyFile: string;

beforeEach(() => {
  base = makeTempDir('bastion-policy-store-');
  userData = join(base, 'home');
  projectA = join(base, 'a');
  projectB = join(base, 'b');
  for (const dir of [projectA, projectB]) mkdirSync(dir, { mode: 0o700 });
  ensureUserData(userData);
  policyFile = join(userData, 'host', 'policy.json');
});

const touch = (root: string): PolicyCall => ({
  tool: 'run_command',
  workspace_root: root,
  command: { name: 'touch', args: ['x'], cwd: root },
});

describe("policy store (policy.json in userData's host/)", () => {
  it('a project rule persists across store instances and applies only to that project', () => {
    const rule = new PolicyStore(userData).add(
      { kind: 'project', root: projectA },
      { decision: 'allow', command: 'touch', argv_prefix: ['x'] },
    );
    const reopened = new PolicyStore(userData);
    expect(reopened.evaluate(touch(projectA))).toMatchObject({ verdict: 'allow', rule_id: rule.id, layer: 'project' });
    expect(reopened.evaluate(touch(projectB))).toEqual({ verdict: 'none' });
    expect(reopened.listing(projectB).project).toEqual({ root: projectB, rules: [] });
  });

  it("moves an older Bastion's userData/policy.json into host/ once, when host/ is made, and never again", () => {
    const legacy = mkdtempSync(join(base, 'legacy-'));
    const rules = '{"version":1,"global":[{"id":"old","decision":"deny","command":"curl"}],"projects":{}}';
    writeFileSync(join(legacy, 'policy.json'), rules, { mode: 0o600 });
    ensureUserData(legacy);
    expect(readFileSync(join(legacy, 'host', 'policy.json'), 'utf8')).toBe(rules);
    expect(readdirSync(legacy)).toEqual(['host']);
    // One planted in userData later (the sidecar can write there) is not taken for the host's.
    writeFileSync(join(legacy, 'policy.json'), '{"version":1,"global":[],"projects":{}}', { mode: 0o600 });
    ensureUserData(legacy);
    expect(readFileSync(join(legacy, 'host', 'policy.json'), 'utf8')).toBe(rules);
    expect(new PolicyStore(legacy).read().global.map((rule) => rule.id)).toEqual(['old']);
  });

  it('refuses a userData whose host/ is a symbolic link (one a sidecar could have planted): USERDATA_HOST_DIR_INVALID', () => {
    const planted = mkdtempSync(join(base, 'planted-'));
    const elsewhere = mkdtempSync(join(base, 'elsewhere-'));
    writeFileSync(join(elsewhere, 'policy.json'), '{"version":1,"global":[],"projects":{}}', { mode: 0o600 });
    symlinkSync(elsewhere, join(planted, 'host'));
    expect(() => ensureUserData(planted)).toThrow(expect.objectContaining({ code: 'USERDATA_HOST_DIR_INVALID' }));
  });

  it('writes policy.json 0600 with no temp file left behind, beside its 0600 edit lock', () => {
    new PolicyStore(userData).add({ kind: 'global' }, { decision: 'deny', command: 'curl' });
    expect(statSync(policyFile).mode & 0o777).toBe(0o600);
    expect(statSync(`${policyFile}.lock`).mode & 0o777).toBe(0o600);
    expect(readFileSync(policyFile, 'utf8')).toContain('"curl"');
    expect(readdirSync(join(userData, 'host')).sort()).toEqual(['policy.json', 'policy.json.lock']);
  });

  it('an edit by another writer (bastion policy add while Bastion runs) applies to the next evaluation', () => {
    const running = new PolicyStore(userData);
    expect(running.evaluate(touch(projectA)).verdict).toBe('none');
    new PolicyStore(userData).add({ kind: 'project', root: projectA }, { decision: 'deny', command: 'touch' });
    expect(running.evaluate(touch(projectA)).verdict).toBe('deny');
  });

  it('remove deletes a rule; built-in rules cannot be removed', () => {
    const store = new PolicyStore(userData);
    const rule = store.add({ kind: 'global' }, { decision: 'deny', command: 'touch' });
    expect(store.remove({ kind: 'global' }, rule.id)).toBe(true);
    expect(store.remove({ kind: 'global' }, rule.id)).toBe(false);
    expect(store.evaluate(touch(projectA)).verdict).toBe('none');
    expect(() => store.remove({ kind: 'global' }, 'builtin.git-force-push')).toThrow(
      expect.objectContaining({ code: 'POLICY_RULE_BUILTIN' }),
    );
  });

  it('refuses a rule without any matcher (too broad) and writes nothing', () => {
    const store = new PolicyStore(userData);
    expect(() => store.add({ kind: 'global' }, { decision: 'allow' } as never)).toThrow(
      expect.objectContaining({ code: 'POLICY_RULE_INVALID' }),
    );
    expect(() => statSync(policyFile)).toThrow();
  });

  describe('fails closed on a policy.json it cannot use', () => {
    it.each([
      [
        'loose permissions (0644)',
        () => writeFileSync(policyFile, '{"version":1,"global":[],"projects":{}}', { mode: 0o644 }),
      ],
      ['corrupt JSON', () => writeFileSync(policyFile, '{"version":1,', { mode: 0o600 })],
      ['a schema mismatch', () => writeFileSync(policyFile, '{"version":2}', { mode: 0o600 })],
      [
        'a symbolic link',
        () => {
          writeFileSync(join(base, 'elsewhere.json'), '{"version":1,"global":[],"projects":{}}', { mode: 0o600 });
          symlinkSync(join(base, 'elsewhere.json'), policyFile);
        },
      ],
    ])('%s: every call is denied, and editing is refused', (_name, plant) => {
      plant();
      const store = new PolicyStore(userData);
      expect(store.evaluate(touch(projectA))).toMatchObject({ verdict: 'deny', rule_id: 'policy-file-unusable' });
      expect(() => store.add({ kind: 'global' }, { decision: 'deny', command: 'x' })).toThrow();
    });

    it('fixing the file (chmod 600) lifts the denial at the next call', () => {
      writeFileSync(policyFile, '{"version":1,"global":[],"projects":{}}', { mode: 0o644 });
      chmodSync(policyFile, 0o644);
      const store = new PolicyStore(userData);
      expect(store.evaluate(touch(projectA)).verdict).toBe('deny');
      chmodSync(policyFile, 0o600);
      expect(store.evaluate(touch(projectA)).verdict).toBe('none');
    });
  });
});
