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

const UNAVAILABLE: Record<string, string> = {
  ENDPOINT_NOT_GRANTED: 'not approved in this run',
  ENDPOINT_UNREACHABLE: 'unreachable',
  ENDPOINT_PROBE_STATUS: 'listing failed',
  ENDPOINT_PROBE_FORMAT: 'listing failed',
};

/** The model list from the daemon, reloaded when `version` changes. */
export function useModels(bastion: BastionApi, version = 0): { models?: ModelListResponse; error?: string } {
  const [state, setState] = useState<{ models?: ModelListResponse; error?: string }>({});
  useEffect(() => {
    let cancelled = false;
    bastion.models
      .list()
      .then((models) => !cancelled && setState({ models }))
      .catch((failure: unknown) => !cancelled && setState({ error: describeError(failure) }));
    return () => {
      cancelled = true;
    };
  }, [bastion, version]);
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
      >
        {!listed && <option value={valueOf(value)}>{modelName(value)} (not available now)</option>}
        {groups.map((group) => (
          <optgroup key={group.provider} label={groupLabel(group)}>
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
