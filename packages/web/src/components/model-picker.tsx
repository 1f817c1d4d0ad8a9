import { useEffect, useState } from 'react';
import type { BastionApi, ModelGroup, ModelListResponse, ModelOption, ModelRef } from '@bastion/bridge';
import { DEFAULT_CONTEXT_WINDOW_TOKENS } from '@bastion/protocol';
import { describeError } from '../bastion.js';

/** `provider:model` — provider ids never contain a colon, model ids may (`llama3.2:latest`). */
const valueOf = (ref: ModelRef) => `${ref.provider}:${ref.model}`;
function refOf(value: string): ModelRef {
  const at = value.indexOf(':');
  return { provider: value.slice(0, at), model: value.slice(at + 1) };
}

/** The built-in scripted model's one name wherever the page names a model (picker, header, session list, home). */
export const DEMO_MODEL_NAME = 'offline demo model';

/** How the page names a model: `provider · model`, or the demo model's name. */
export function modelName(ref: ModelRef): string {
  return ref.provider === 'demo' ? DEMO_MODEL_NAME : `${ref.provider} · ${ref.model}`;
}

/** Why an endpoint's group offers nothing to pick, by the daemon's code: said after its label (which names its URL). */
const UNAVAILABLE: Record<string, string> = {
  ENDPOINT_NOT_GRANTED: 'not approved in this run',
  ENDPOINT_UNREACHABLE: 'its server does not answer',
  ENDPOINT_PROBE_STATUS: 'listing failed',
  ENDPOINT_PROBE_FORMAT: 'listing failed',
};

/**
 * What to do about an endpoint's group that offers nothing to pick, by the daemon's code: a line
 * heading the group, so it is never an empty list (its stored models, if any, follow, not choosable).
 */
const UNAVAILABLE_REMEDY: Record<string, string> = {
  ENDPOINT_NOT_GRANTED: 'Approve it in Settings → Custom endpoints',
  ENDPOINT_UNREACHABLE: 'Start its server, or check its URL in Settings → Custom endpoints',
  ENDPOINT_PROBE_STATUS: 'Check its URL and key in Settings → Custom endpoints',
  ENDPOINT_PROBE_FORMAT: 'Check its URL in Settings → Custom endpoints',
};

/**
 * The mounted model lists' reloads: a picker opened lists the models again for every picker on the
 * page, so an endpoint whose server came back (or went away) shows as it is now, without a reload.
 */
const modelListReloads = new Set<() => void>();

function listModelsAgain(): void {
  for (const reload of modelListReloads) reload();
}

/** The model list from the daemon, reloaded when `version` changes and when a model picker is opened. */
export function useModels(bastion: BastionApi, version = 0): { models?: ModelListResponse; error?: string } {
  const [state, setState] = useState<{ models?: ModelListResponse; error?: string }>({});
  const [opened, setOpened] = useState(0);
  useEffect(() => {
    const reload = () => setOpened((count) => count + 1);
    modelListReloads.add(reload);
    return () => {
      modelListReloads.delete(reload);
    };
  }, []);
  useEffect(() => {
    let cancelled = false;
    // The list shown stays until the new one comes (and when listing again fails), so an open
    // picker neither empties nor goes meanwhile.
    bastion.models
      .list()
      .then((models) => !cancelled && setState({ models }))
      .catch((failure: unknown) => !cancelled && setState((shown) => ({ ...shown, error: describeError(failure) })));
    return () => {
      cancelled = true;
    };
  }, [bastion, version, opened]);
  return state;
}

/** The option `groups` lists for `ref`, if any. */
export function listedModel(groups: readonly ModelGroup[], ref: ModelRef): ModelOption | undefined {
  return groups.find((group) => group.provider === ref.provider)?.models.find((option) => option.id === ref.model);
}

/**
 * The context window a run on `ref` works with, as the daemon decides it (the listed figure, else
 * the default); undefined when the list does not offer `ref`.
 */
export function listedWindow(groups: readonly ModelGroup[], ref: ModelRef): number | undefined {
  const model = listedModel(groups, ref);
  return model && (model.context_window ?? DEFAULT_CONTEXT_WINDOW_TOKENS);
}

function groupLabel(group: ModelGroup): string {
  // The daemon's label for the demo ("Demo (offline)") is the CLI's; the page says DEMO_MODEL_NAME.
  if (group.kind === 'demo') return 'Built in';
  if (group.available) return group.label;
  return `${group.label} — ${UNAVAILABLE[group.code ?? ''] ?? 'unavailable'}`;
}

/** A provider-grouped model select; a current value the list no longer offers stays shown, marked. */
export function ModelPicker({
  id,
  label,
  groups,
  value,
  disabled,
  onChange,
}: {
  id: string;
  label: string;
  groups: readonly ModelGroup[];
  value: ModelRef;
  disabled: boolean;
  onChange: (ref: ModelRef) => void;
}) {
  const listed = groups.some(
    (group) => group.provider === value.provider && group.models.some((model) => model.id === value.model),
  );
  return (
    <div className="model-picker">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={valueOf(value)}
        disabled={disabled}
        onChange={(event) => onChange(refOf(event.target.value))}
        // Listed again as it gets focus (a click or the keyboard) and at a click while it has focus, so
        // each opening shows the list as it is now.
        onFocus={listModelsAgain}
        onMouseDown={(event) => {
          if (document.activeElement === event.currentTarget) listModelsAgain();
        }}
      >
        {!listed && <option value={valueOf(value)}>{modelName(value)} (not available now)</option>}
        {groups.map((group) => (
          <optgroup key={group.provider} label={groupLabel(group)}>
            {!group.available && group.code !== undefined && Object.hasOwn(UNAVAILABLE_REMEDY, group.code) && (
              <option value="" disabled>
                {UNAVAILABLE_REMEDY[group.code]}
              </option>
            )}
            {group.models.map((model) => (
              <option
                key={model.id}
                value={valueOf({ provider: group.provider, model: model.id })}
                disabled={!group.available}
              >
                {group.kind === 'demo' ? DEMO_MODEL_NAME : model.label}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
    </div>
  );
}
