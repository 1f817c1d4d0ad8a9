/**
 * The watchdog's rule engine (the deterministic layer under SEC-004's "intent judgment"): compiles
 * policy rules once and evaluates a tool call against them. Order: a matching `hard-deny` in any
 * layer wins; otherwise the first layer with a match decides — project, then global, then
 * built-in — and inside that layer the most restrictive match (deny, then ask, then allow). No
 * match is `none`: the session's mode alone decides.
 *
 * Matching is on the call as the host sees it: the command's exact tokens (no shell parsing, so
 * `sh -c '…'` is one opaque argument), argument paths resolved against the real working directory
 * (lexically for globs; through the real path of the nearest existing ancestor for
 * `targets_workspace_root`), and a file tool's resolved path relative to the workspace root. An
 * argument is a path unless it starts with `-` — but every one after `--` is, and so is a
 * `-`-named one that exists (`rm -rf -- -x/`, `-x` a link to the root).
 *
 * What it does not catch: what a command computes (an interpreter, a script, `find -delete`),
 * option spellings a rule does not list, and anything outside the tool call itself.
 */
import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import type { PolicyAnswer, PolicyCall, PolicyLayer, PolicyRule } from '@bastion/protocol';

export interface CompiledRule {
  readonly rule: PolicyRule;
  readonly layer: PolicyLayer;
  matches(call: PreparedCall): boolean;
}

/** A call with what rules need computed at most once. */
export class PreparedCall {
  readonly #call: PolicyCall;
  #relativePaths: string[] | undefined;
  #targetsRoot: boolean | undefined;
  #commandBaseName: string | undefined;

  constructor(call: PolicyCall) {
    this.#call = call;
  }

  get tool(): string {
    return this.#call.tool;
  }

  get command(): PolicyCall['command'] {
    return this.#call.command;
  }

  /** The last path segment of the command's name (`git` for `/usr/bin/git`); undefined without a command. */
  commandBaseName(): string | undefined {
    if (this.#commandBaseName === undefined && this.#call.command)
      this.#commandBaseName = basename(this.#call.command.name);
    return this.#commandBaseName;
  }

  /** Paths the call touches, relative to the workspace root (`.` is the root); outside ones are left out. */
  relativePaths(): string[] {
    if (this.#relativePaths) return this.#relativePaths;
    const root = this.#call.workspace_root;
    const found: string[] = [];
    if (root !== null) {
      const absolute = this.#call.command
        ? pathArguments(this.#call.command.args, this.#call.command.cwd).map((arg) =>
            resolve(this.#call.command?.cwd ?? root, arg),
          )
        : (this.#call.paths ?? []);
      for (const path of absolute) {
        const rel = relative(root, path);
        if (isOutside(rel)) continue;
        found.push(rel === '' ? '.' : rel.split(sep).join('/'));
      }
    }
    this.#relativePaths = found;
    return found;
  }

  /** Whether some argument names the workspace root itself or a directory above it. */
  targetsWorkspaceRoot(): boolean {
    if (this.#targetsRoot !== undefined) return this.#targetsRoot;
    const root = this.#call.workspace_root;
    const command = this.#call.command;
    this.#targetsRoot =
      root !== null &&
      command !== undefined &&
      pathArguments(command.args, command.cwd).some((arg) => {
        const target = realpathNearest(resolve(command.cwd, arg));
        return target === root || !isOutside(relative(target, root));
      });
    return this.#targetsRoot;
  }
}

function isOutside(rel: string): boolean {
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

/**
 * The arguments that could name a path: every non-empty one after the first `--` (an option
 * parser takes them all as operands, `-x/` included), and before it those not starting with `-`,
 * or starting with it but naming something that exists (lstat, relative to `cwd`): a program
 * that does not stop at `--`, or takes an unknown option as a name, would act on it.
 */
function pathArguments(args: readonly string[], cwd: string): string[] {
  const found: string[] = [];
  let operandsOnly = false;
  for (const arg of args) {
    if (arg.length === 0) continue;
    if (operandsOnly || !arg.startsWith('-')) found.push(arg);
    else if (arg === '--') operandsOnly = true;
    else if (mayExist(resolve(cwd, arg))) found.push(arg);
  }
  return found;
}

/** Whether lstat finds `path`; an error other than "no such entry" (EACCES, ENOTDIR…) counts as found. */
function mayExist(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}

/** The real path of `path`'s nearest existing ancestor, with the rest appended. */
function realpathNearest(path: string): string {
  let existing = path;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  let real: string;
  try {
    real = realpathSync.native(existing);
  } catch {
    return path;
  }
  return existing === path ? real : resolve(real, relative(existing, path));
}

/** A token matcher: `*` is any run of characters (`/` included), everything else is literal. */
function tokenMatcher(token: string): (arg: string) => boolean {
  if (!token.includes('*')) return (arg) => arg === token;
  const pattern = new RegExp(`^${token.split('*').map(escapeRegExp).join('.*')}$`, 's');
  return (arg) => pattern.test(arg);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Leading path segments with no glob syntax in them (none of them `.` or `..`), each with its `/`. */
const LITERAL_DIRECTORIES = /^(?:(?!\.{1,2}\/)[A-Za-z0-9._-]+\/)+/;
/** `*.ext`, alone or after `**` and a slash: any name ending in a plain extension. */
const ANY_WITH_EXTENSION = /^(?:\*\*\/)?\*(\.[A-Za-z0-9_-]+)$/;

/**
 * What a path must have for one of `globs` to match it, tested before their regular expression:
 * a glob under literal directories matches only that directory or paths below it, and `*.ext`
 * only names ending in `.ext`. A glob of any other shape admits every path. A cheap necessary
 * condition: a user's hundreds of path rules cost a string comparison each, not a regex run.
 */
export function literalFilter(globs: readonly string[]): (path: string) => boolean {
  const tests: ((path: string) => boolean)[] = [];
  for (const glob of globs) {
    const below = LITERAL_DIRECTORIES.exec(glob)?.[0];
    if (below !== undefined) {
      const directories = below.slice(0, -1);
      tests.push((path) => path === directories || path.startsWith(below));
      continue;
    }
    const extension = ANY_WITH_EXTENSION.exec(glob)?.[1];
    if (extension === undefined) return () => true;
    // picomatch lets a match end in one `/` (`*.ts` matches `a.ts/`).
    const asDirectory = `${extension}/`;
    tests.push((path) => path.endsWith(extension) || path.endsWith(asDirectory));
  }
  return (path) => tests.some((test) => test(path));
}

export function compileRule(rule: PolicyRule, layer: PolicyLayer): CompiledRule {
  const checks: ((call: PreparedCall) => boolean)[] = [];
  if (rule.tools) {
    const tools = new Set(rule.tools);
    checks.push((call) => tools.has(call.tool));
  }
  const wantsCommand =
    rule.command !== undefined ||
    rule.argv_prefix !== undefined ||
    rule.args_include !== undefined ||
    rule.targets_workspace_root !== undefined;
  if (wantsCommand) checks.push((call) => call.command !== undefined);
  if (rule.command !== undefined) {
    const name = rule.command;
    checks.push((call) => call.command?.name === name || call.commandBaseName() === name);
  }
  if (rule.argv_prefix) {
    const prefix = rule.argv_prefix;
    checks.push((call) => {
      const args = call.command?.args ?? [];
      return args.length >= prefix.length && prefix.every((token, index) => args[index] === token);
    });
  }
  if (rule.args_include) {
    const sets = rule.args_include.map((tokens) => tokens.map(tokenMatcher));
    // Every set has some argument that one of its tokens matches.
    const someArgumentIn = (set: ((arg: string) => boolean)[], args: readonly string[]): boolean => {
      for (const arg of args) for (const matches of set) if (matches(arg)) return true;
      return false;
    };
    checks.push((call) => {
      const args = call.command?.args ?? [];
      for (const set of sets) if (!someArgumentIn(set, args)) return false;
      return true;
    });
  }
  if (rule.paths) {
    // One regular expression for all of a rule's globs: picomatch's own matcher costs several times more per call.
    const pattern = new RegExp(rule.paths.map((glob) => picomatch.makeRe(glob, { dot: true }).source).join('|'));
    const mayMatch = literalFilter(rule.paths);
    checks.push((call) => {
      for (const path of call.relativePaths()) if (mayMatch(path) && pattern.test(path)) return true;
      return false;
    });
  }
  if (rule.targets_workspace_root) checks.push((call) => call.targetsWorkspaceRoot());
  // Loops, not every/some with a closure: this runs for each of a user's rules on every tool call.
  const matches = (call: PreparedCall): boolean => {
    for (const check of checks) if (!check(call)) return false;
    return true;
  };
  return { rule, layer, matches };
}

export function compileRules(rules: readonly PolicyRule[], layer: PolicyLayer): CompiledRule[] {
  return rules.map((rule) => compileRule(rule, layer));
}

const RESTRICTIVENESS = { allow: 0, ask: 1, deny: 2, 'hard-deny': 3 } as const;

function answerOf(compiled: CompiledRule): PolicyAnswer {
  const { rule, layer } = compiled;
  return {
    verdict: rule.decision,
    rule_id: rule.id,
    layer,
    ...(rule.reason === undefined ? {} : { reason: rule.reason }),
  };
}

/** Evaluate `call` against the layers, most specific first (project, global, built-in). */
export function evaluateRules(layers: readonly (readonly CompiledRule[])[], call: PolicyCall): PolicyAnswer {
  const prepared = new PreparedCall(call);
  let decided: CompiledRule | undefined;
  for (const layer of layers) {
    let best: CompiledRule | undefined;
    for (const compiled of layer) {
      // Once this layer or an earlier one decided, only a hard-deny can still change the answer.
      const decision = compiled.rule.decision;
      if (decided !== undefined && decision !== 'hard-deny') continue;
      if (best !== undefined && RESTRICTIVENESS[decision] <= RESTRICTIVENESS[best.rule.decision]) continue;
      if (!compiled.matches(prepared)) continue;
      if (decision === 'hard-deny') return answerOf(compiled);
      best = compiled;
    }
    decided ??= best;
  }
  return decided ? answerOf(decided) : { verdict: 'none' };
}
