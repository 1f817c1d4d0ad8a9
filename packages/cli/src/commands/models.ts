/**
 * `bastion models [--home DIR] [--json]`: every model a session can use now, by provider, the
 * default for new sessions marked `*`, each with its context window; a provider that cannot run
 * now says why. `bastion models default PROVIDER/MODEL`: make that the default for new sessions
 * (what `bastion run` without --provider uses, and the UI's home page). Through the running
 * Bastion when one owns the home (its control socket), else through a host of its own.
 */
import {
  askRunningHost,
  defaultModelAnswerSchema,
  holderStatusSchema,
  modelsAnswerSchema,
  resolveUserDataPath,
  shellWord,
  terminalJson,
  terminalLine,
  type BastionHost,
} from '@bastion/host';
import {
  BYOK_PROVIDER_IDS,
  CLI_MODEL_NAME_CHARS,
  defaultModelResponseSchema,
  modelListResponseSchema,
  modelRunsNow,
  offersModel,
  type ModelGroup,
  type ModelListResponse,
  type ModelRef,
} from '@bastion/protocol';
import { homeFlag, startOwningHost } from '../home-in-use.js';
import { parseCommandLine, unknownNameError, UsageError } from '../usage.js';

type Answer<T> = { ok: true; value: T } | { ok: false; code: string; message: string };

/** What this command asks of a daemon: the models on offer, and a new default. */
interface ModelsAccess {
  list(): Promise<Answer<ModelListResponse>>;
  setDefault(ref: ModelRef): Promise<Answer<ModelRef>>;
}

/** A running host stopped between its status and the request. */
const GONE = { ok: false, code: 'CONTROL_FAILED', message: 'the running Bastion stopped; try again' } as const;

/** The daemon of the Bastion that owns the home, through its control socket. */
function viaControl(userData: string): ModelsAccess {
  return {
    async list() {
      const answer = await askRunningHost(userData, { op: 'models' }, modelsAnswerSchema);
      if (!answer) return GONE;
      return 'refused' in answer ? { ok: false, ...answer.refused } : { ok: true, value: answer.models };
    },
    async setDefault(ref) {
      const answer = await askRunningHost(userData, { op: 'models.default', ...ref }, defaultModelAnswerSchema);
      if (!answer) return GONE;
      return 'refused' in answer ? { ok: false, ...answer.refused } : { ok: true, value: answer.default };
    },
  };
}

/** The daemon of a host this command started. */
function viaHost(host: BastionHost): ModelsAccess {
  return {
    async list() {
      const answer = await host.client.call('GET', '/models', undefined, modelListResponseSchema);
      return answer.ok ? { ok: true, value: answer.body } : { ok: false, ...answer.error };
    },
    async setDefault(ref) {
      const answer = await host.client.call('POST', '/models/default', ref, defaultModelResponseSchema);
      return answer.ok ? { ok: true, value: answer.body.default } : { ok: false, ...answer.error };
    },
  };
}

/**
 * `use` the running Bastion's daemon when one owns the home, else one of a host started for it.
 * Undefined when the home is held by a Bastion this process could not reach (said on stderr).
 */
async function withModels<T>(
  userData: string,
  home: string | undefined,
  use: (access: ModelsAccess) => Promise<T>,
): Promise<T | undefined> {
  if (await askRunningHost(userData, { op: 'status' }, holderStatusSchema)) return use(viaControl(userData));
  const host = await startOwningHost(
    { command: 'models', userData, workspaces: [] },
    `its UI lists the models (bastion open${homeFlag(home)}), or wait for it to stop`,
  );
  if (!host) return undefined;
  try {
    return await use(viaHost(host));
  } finally {
    await host.stop();
  }
}

/** Words for why a provider cannot run now, by the code the daemon gives (ENDPOINT_NOT_GRANTED: notApproved). */
const UNAVAILABLE: Readonly<Record<string, string>> = {
  ENDPOINT_UNREACHABLE: 'unreachable',
  ENDPOINT_PROBE_STATUS: 'its model list failed',
  ENDPOINT_PROBE_FORMAT: 'its model list failed',
};

/**
 * An endpoint not approved in this run, and how to use it: its URL on the command line of run or
 * chat (`--endpoint URL --model ID`, which approves it for that command; --allow-endpoint is
 * start's alone), or, for the UI, approved in Settings or by start's --allow-endpoint. The URL and
 * model are the line's own when known.
 */
function notApproved(group: ModelGroup, model: string | undefined): string {
  const endpoint = group.base_url === undefined ? 'URL' : shellWord(group.base_url);
  return `not approved in this run: use it with bastion run (or chat) --endpoint ${endpoint} --model ${model === undefined ? 'ID' : shellWord(model)}; for the UI, approve it in Settings → Custom endpoints or with bastion start --allow-endpoint ${endpoint}`;
}

/** The PROVIDER/MODEL a line names: the model's, or `PROVIDER/…` for a provider that lists none. */
const lineNames = (group: ModelGroup): string[] =>
  group.models.length === 0 ? [`${group.provider}/…`] : group.models.map((model) => `${group.provider}/${model.id}`);

/**
 * One line a model: `*` for `marked`, PROVIDER/MODEL padded to `width` (so the labels line up), its
 * label and window, what it takes; the provider's state.
 */
function groupLines(group: ModelGroup, marked: ModelRef, width: number): string[] {
  const stateOf = (model: string | undefined) => {
    if (group.available) return '';
    const why = group.code === 'ENDPOINT_NOT_GRANTED' ? notApproved(group, model) : UNAVAILABLE[group.code ?? ''];
    return ` (unavailable: ${why ?? 'cannot run now'})`;
  };
  const names = lineNames(group).map((name) => name.padEnd(width));
  if (group.models.length === 0) return [`  ${names[0] ?? ''}  ${group.label}${stateOf(undefined)}: no model listed`];
  return group.models.map((model, index) => {
    const state = stateOf(model.id);
    const mark = group.provider === marked.provider && model.id === marked.model ? '*' : ' ';
    const window =
      model.context_window === undefined ? '' : `, ${model.context_window.toLocaleString('en-US')}-token context`;
    const reasoning = model.reasoning ? ', --reasoning low|medium|high' : '';
    const images = model.images ? ', takes --image' : '';
    return `${mark} ${names[index] ?? ''}  ${model.label}${window}${reasoning}${images}${state}`;
  });
}

/**
 * Every model on offer, a line each (`*` marks `marked`), made inert for the terminal; the names
 * are padded to the longest, up to CLI_MODEL_NAME_CHARS (a longer one pushes only its own label).
 */
export function listing(models: ModelListResponse, marked: ModelRef): string {
  const width = Math.min(
    CLI_MODEL_NAME_CHARS,
    Math.max(0, ...models.groups.flatMap(lineNames).map((name) => name.length)),
  );
  return models.groups
    .flatMap((group) => groupLines(group, marked, width))
    .map((line) => `${terminalLine(line)}\n`)
    .join('');
}

/**
 * PROVIDER/MODEL split at the first `/` (a provider id has none; a model id may, as OpenRouter's
 * do); undefined when `text` is not of that form.
 */
export function parseModelRef(text: string): ModelRef | undefined {
  const at = text.indexOf('/');
  if (at <= 0 || at === text.length - 1) return undefined;
  return { provider: text.slice(0, at), model: text.slice(at + 1) };
}

/**
 * Why `--provider` (or `models default`) names no provider on offer, and the way to offer it: a key provider without a
 * key gets the command that stores one, the subscription its sign-in; anything else is not known.
 */
export function missingProviderReason(provider: string): string {
  if (provider === 'chatgpt')
    return 'provider chatgpt is not connected: sign in to your ChatGPT account in the UI (Settings)';
  if (BYOK_PROVIDER_IDS.has(provider))
    return `provider ${provider} has no API key: add one with bastion secrets set ${provider} (or in the UI's Settings)`;
  return `provider ${terminalLine(provider)} is not available`;
}

/**
 * Why PROVIDER/MODEL (`target`, `wanted` parsed from it) is refused as not on offer: a provider
 * that offers models but not this one says so; one that offers none says why and how to offer it.
 */
export function notOfferedReason(listed: ModelListResponse, target: string, wanted: ModelRef | undefined): string {
  if (wanted === undefined || listed.groups.some((group) => group.provider === wanted.provider))
    return `${terminalLine(target)} is not on offer`;
  return missingProviderReason(wanted.provider);
}

export async function modelsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine({
    args: argv,
    allowPositionals: true,
    options: { home: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const userData = resolveUserDataPath(values.home);
  const [action, target, ...extra] = positionals;
  if (action === undefined) {
    const listed = await withModels(userData, values.home, (access) => access.list());
    if (!listed) return 2;
    if (!listed.ok) {
      process.stderr.write(
        `bastion: could not list the models: ${terminalLine(`${listed.code}: ${listed.message}`)}\n`,
      );
      return 1;
    }
    if (values.json) {
      process.stdout.write(`${terminalJson(listed.value)}\n`);
      return 0;
    }
    const fallback = listed.value.default;
    process.stdout.write(listing(listed.value, fallback));
    process.stderr.write(
      modelRunsNow(listed.value, fallback)
        ? 'bastion: * marks the default for new sessions; change it with bastion models default PROVIDER/MODEL, or pick one for a run with --model PROVIDER/MODEL\n'
        : `bastion: the default for new sessions, ${terminalLine(`${fallback.provider}/${fallback.model}`)}, is not available now (its key or endpoint is gone, or the endpoint is not approved in this run); set another with bastion models default PROVIDER/MODEL\n`,
    );
    const keyless = [...BYOK_PROVIDER_IDS].filter((id) => !listed.value.groups.some((group) => group.provider === id));
    if (keyless.length > 0)
      process.stderr.write(
        `bastion: no API key for ${keyless.join(', ')}: add one with bastion secrets set PROVIDER (or in the UI's Settings) and its models are listed here\n`,
      );
    return 0;
  }
  if (action !== 'default') throw unknownNameError('models command', action, ['default'], { listKnown: true });
  if (target === undefined) throw new UsageError('models default takes PROVIDER/MODEL');
  if (extra.length > 0) throw new UsageError('models default takes one PROVIDER/MODEL');
  if (values.json) throw new UsageError('--json is for the list of models');
  const wanted = parseModelRef(target);
  if (wanted === undefined) throw new UsageError(`expected PROVIDER/MODEL, e.g. openai/gpt-5, not ${target}`);
  const saved = await withModels(userData, values.home, async (access): Promise<Answer<ModelRef> | 'not-offered'> => {
    const listed = await access.list();
    if (!listed.ok) return listed;
    if (!offersModel(listed.value, wanted)) {
      // As run --provider says it: a provider without its key or sign-in is told how to add it.
      const why = notOfferedReason(listed.value, target, wanted);
      process.stderr.write(`bastion: ${why}; choose one of:\n${listing(listed.value, listed.value.default)}`);
      return 'not-offered';
    }
    return access.setDefault(wanted);
  });
  if (saved === undefined || saved === 'not-offered') return 2;
  if (!saved.ok) {
    process.stderr.write(`bastion: the default was not changed: ${terminalLine(`${saved.code}: ${saved.message}`)}\n`);
    return 1;
  }
  process.stdout.write(`New sessions use ${terminalLine(`${saved.value.provider}/${saved.value.model}`)}.\n`);
  return 0;
}
