/**
 * The watchdog's rules on disk: `<userData>/host/policy.json` (0600, atomic writes, the
 * private-file discipline), owned by the host and edited only by the host (guarded host IPC,
 * `bastion policy`). It is never read from a workspace, and the sidecar cannot write it: `host/` is
 * write-denied in the sidecar's sandbox (user-data.ts), and the daemon only asks; the host answers. The compiled rules are cached and re-read when the file's stamp changes, so an
 * edit made by `bastion policy add` while Bastion runs applies to the next tool call. Each edit
 * holds `host/policy.json.lock` from its read to its write (file-lock.ts), so edits from the
 * host and the CLI at once all land.
 *
 * A policy.json that cannot be used (corrupt, loose permissions, a symlink) fails closed: every
 * call is denied, naming the file and the code, until it is fixed or removed.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  alwaysAllowDraft,
  POLICY_MAX_FILE_BYTES,
  POLICY_MAX_RULES_PER_LAYER,
  policyFileSchema,
  policyRuleSchema,
  type HostAuditAnswer,
  type PolicyAnswer,
  type PolicyCall,
  type PolicyFile,
  type PolicyListing,
  type PolicyRule,
  type PolicyRuleDraft,
} from '@bastion/protocol';
import { HostError } from '../errors.js';
import { withEditLock } from '../file-lock.js';
import { currentStamp, parsePrivateJson, readPrivateFile, writePrivateFile, type FileStamp } from '../private-file.js';
import { hostOnlyDir, USER_DATA_DIR_MODE } from '../user-data.js';
import { BUILTIN_RULES } from './builtin-rules.js';
import { HOST_AUDIT_FILE_NAME, type HostAuditContext, type HostAuditLog } from './host-audit-log.js';
import { compileRules, evaluateRules, type CompiledRule } from './policy-rules.js';

export const POLICY_FILE_NAME = 'policy.json';

/** Where a rule is added or removed: every project, or the one whose real path is `root`. */
export type PolicyScope = { kind: 'global' } | { kind: 'project'; root: string };

interface Loaded {
  file: PolicyFile;
  global: CompiledRule[];
  projects: Map<string, CompiledRule[]>;
}

const EMPTY_FILE: PolicyFile = { version: 1, global: [], projects: {} };
const BUILTIN_COMPILED = compileRules(BUILTIN_RULES, 'builtin');

/** The real path a project is keyed by; a folder that does not exist is refused. */
export function projectKey(dir: string): string {
  try {
    return realpathSync.native(dir);
  } catch {
    throw new HostError('POLICY_PROJECT_UNKNOWN', 'the project folder does not exist');
  }
}

export class PolicyStore {
  readonly path: string;
  #cache: { stamp: FileStamp | undefined; result: Loaded | HostError } | undefined;

  readonly #audit: HostAuditLog | undefined;

  /** With `audit`, every answer `evaluate` gives is appended to the host's audit log. */
  constructor(userData: string, options: { audit?: HostAuditLog } = {}) {
    this.path = join(hostOnlyDir(userData), POLICY_FILE_NAME);
    this.#audit = options.audit;
  }

  /** The file as it is now; throws a HostError (`PRIVATE_FILE_*`, `POLICY_FILE_INVALID`) when it cannot be used. */
  read(): PolicyFile {
    return this.#load().file;
  }

  /**
   * The host's answer for one call, recorded in the audit log when there is one. A decision that
   * cannot be recorded (the log unwritable, a link planted in its place) is a denial. `context`
   * says where the answer was given (it is recorded beside it).
   */
  evaluate(call: PolicyCall, context?: HostAuditContext): PolicyAnswer {
    const answer = this.#answer(call);
    try {
      this.#audit?.record(call, answer, context);
    } catch {
      return {
        verdict: 'deny',
        rule_id: 'audit-log-unusable',
        layer: 'global',
        reason: `${HOST_AUDIT_FILE_NAME} cannot be written; fix or remove it in the host folder`,
      };
    }
    return answer;
  }

  /**
   * Record how the host's question about `call` ended (host-asks.ts); throws when the audit log
   * cannot be written, and the caller then refuses the call as a decision it could not record.
   */
  recordAnswer(call: PolicyCall, ruleId: string | undefined, answer: HostAuditAnswer, context: HostAuditContext): void {
    this.#audit?.recordAnswer(call, ruleId, answer, context);
  }

  /** A policy.json that cannot be used denies every call. */
  #answer(call: PolicyCall): PolicyAnswer {
    let loaded: Loaded;
    try {
      loaded = this.#load();
    } catch (error) {
      const code = error instanceof HostError ? error.code : 'POLICY_FILE_INVALID';
      return {
        verdict: 'deny',
        rule_id: 'policy-file-unusable',
        layer: 'global',
        reason: `${POLICY_FILE_NAME} cannot be used (${code}); fix it or remove it (bastion policy list says why)`,
      };
    }
    const project = call.workspace_root === null ? undefined : loaded.projects.get(call.workspace_root);
    return evaluateRules([project ?? [], loaded.global, BUILTIN_COMPILED], call);
  }

  /**
   * The project rule "Always allow" saves for `call`: its program and exact arguments as an argv
   * prefix, or an MCP server's tool by name (alwaysAllowDraft). Undefined when no rule can pin the call, when policy.json cannot
   * be used, or when the rule would not stop the call being asked — a rule of the project itself
   * that asks or denies beats an allow in the same layer, and a hard-deny beats every allow.
   */
  alwaysAllowRule(call: PolicyCall): PolicyRuleDraft | undefined {
    const root = call.workspace_root;
    const draft = alwaysAllowDraft(call.tool, call.command && { command: call.command.name, args: call.command.args });
    if (root === null || draft === undefined) return undefined;
    let loaded: Loaded;
    try {
      loaded = this.#load();
    } catch {
      return undefined;
    }
    const candidate = compileRules([{ ...draft, id: 'always-allow-candidate' }], 'project');
    const project = [...candidate, ...(loaded.projects.get(root) ?? [])];
    return evaluateRules([project, loaded.global, BUILTIN_COMPILED], call).verdict === 'allow' ? draft : undefined;
  }

  /** The rules that apply to `root` (or only the built-in and global ones). */
  listing(root: string | null): PolicyListing {
    const file = this.read();
    return {
      builtin: [...BUILTIN_RULES],
      global: file.global,
      project: root === null ? null : { root, rules: file.projects[root] ?? [] },
    };
  }

  /** Add a rule to a layer and write the file; the id is generated when the draft has none. */
  add(scope: PolicyScope, draft: PolicyRuleDraft): PolicyRule {
    return this.#edit((file) => {
      const layer = scope.kind === 'global' ? file.global : (file.projects[scope.root] ??= []);
      const id = draft.id ?? `rule-${randomBytes(4).toString('hex')}`;
      if (layer.some((rule) => rule.id === id) || BUILTIN_RULES.some((rule) => rule.id === id)) {
        throw new HostError('POLICY_RULE_EXISTS', `a rule with id ${id} already exists there`);
      }
      if (layer.length >= POLICY_MAX_RULES_PER_LAYER) throw new HostError('POLICY_TOO_MANY_RULES', 'too many rules');
      const checked = policyRuleSchema.safeParse({ ...draft, id });
      if (!checked.success) throw new HostError('POLICY_RULE_INVALID', checked.error.issues[0]?.message ?? 'bad rule');
      layer.push(checked.data);
      this.#write(file);
      return checked.data;
    });
  }

  /** Remove a rule by id; false when the layer has no such rule. Built-in rules cannot be removed. */
  remove(scope: PolicyScope, id: string): boolean {
    if (BUILTIN_RULES.some((rule) => rule.id === id)) {
      throw new HostError('POLICY_RULE_BUILTIN', 'built-in rules cannot be removed; add a rule that overrides it');
    }
    return this.#edit((file) => {
      const layer = scope.kind === 'global' ? file.global : file.projects[scope.root];
      const index = layer?.findIndex((rule) => rule.id === id) ?? -1;
      if (!layer || index < 0) return false;
      layer.splice(index, 1);
      if (scope.kind === 'project' && layer.length === 0) delete file.projects[scope.root];
      this.#write(file);
      return true;
    });
  }

  /**
   * Run `change` on a copy of the file as it is now, holding policy.json's lock from that read to
   * its write (file-lock.ts): `bastion policy` writes it in its own process while the host
   * saves "Always allow…" rules, and two edits at once must both land.
   */
  #edit<T>(change: (file: PolicyFile) => T): T {
    return withEditLock(this.path, () => {
      // Read under the lock, never from the cache (another process may have written it since).
      this.#cache = undefined;
      return change(structuredClone(this.read()));
    });
  }

  #write(file: PolicyFile): void {
    const checked = policyFileSchema.parse(file);
    mkdirSync(dirname(this.path), { recursive: true, mode: USER_DATA_DIR_MODE });
    writePrivateFile(this.path, `${JSON.stringify(checked, null, 2)}\n`, POLICY_MAX_FILE_BYTES);
    this.#cache = undefined;
  }

  /** The compiled file, or the error it failed with, for the file's current stamp (re-read when it changes). */
  #load(): Loaded {
    const stamp = currentStamp(this.path);
    if (!this.#cache || this.#cache.stamp !== stamp) this.#cache = { stamp, result: this.#compile() };
    if (this.#cache.result instanceof HostError) throw this.#cache.result;
    return this.#cache.result;
  }

  #compile(): Loaded | HostError {
    try {
      const read = readPrivateFile(this.path, POLICY_MAX_FILE_BYTES);
      const file = read
        ? parsePrivateJson(read.text, policyFileSchema, POLICY_FILE_NAME, 'POLICY_FILE_INVALID')
        : EMPTY_FILE;
      const projects = new Map(
        Object.entries(file.projects).map(([root, rules]) => [root, compileRules(rules, 'project')] as const),
      );
      return { file, global: compileRules(file.global, 'global'), projects };
    } catch (error) {
      return error instanceof HostError
        ? error
        : new HostError('POLICY_FILE_INVALID', `${POLICY_FILE_NAME} cannot be used`);
    }
  }
}
