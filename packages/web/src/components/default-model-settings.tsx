import { useState, type ReactNode } from 'react';
import type { BastionApi, ModelGroup, ModelListResponse, ModelRef } from '@bastion/bridge';
import { modelRunsNow } from '@bastion/protocol';
import { describeError } from '../bastion.js';
import { ModelPicker, modelName, useModels } from './model-picker.js';

/**
 * Why `model` cannot run now, from its provider's group in `groups`: no group (its key removed or
 * its endpoint deleted), its endpoint's state by the code the daemon gave (not approved, its server
 * not answering, its model list unreadable), or a group that no longer offers it.
 */
function unavailableReason(groups: readonly ModelGroup[], model: ModelRef): string {
  const group = groups.find((candidate) => candidate.provider === model.provider);
  if (group === undefined) return 'its key was removed or its endpoint deleted';
  const endpoint = `its endpoint, ${group.label},`;
  if (group.code === undefined) return `${group.label} does not offer it`;
  if (group.code === 'ENDPOINT_NOT_GRANTED') return `${endpoint} is not approved in this run`;
  if (group.code === 'ENDPOINT_UNREACHABLE')
    return `${endpoint} does not answer — is its server running? Start it, then reload this page`;
  if (group.code === 'ENDPOINT_PROBE_STATUS' || group.code === 'ENDPOINT_PROBE_FORMAT')
    return `${endpoint} did not list its models — check its URL and key`;
  return `${endpoint} cannot be used (${group.code})`;
}

/**
 * Says that the default for new sessions cannot run now (modelRunsNow) and why, from the model
 * list's `groups`; `fix` ends the sentence with where to set it up again.
 */
export function DefaultUnavailable({
  model,
  groups,
  fix,
}: {
  model: ModelRef;
  groups: readonly ModelGroup[];
  fix: ReactNode;
}) {
  return (
    <p className="inline-error" role="alert">
      The default model, <strong>{modelName(model)}</strong>, is not available now: {unavailableReason(groups, model)}.
      Pick another model{fix}.
    </p>
  );
}

/**
 * The default model for new sessions as a picker of `models`: a choice is saved, then `onSaved`;
 * a refusal goes to `onFailure` in words.
 */
export function DefaultModelPicker({
  bastion,
  id,
  label,
  models,
  disabled,
  onSaved,
  onFailure,
}: {
  bastion: BastionApi;
  id: string;
  label: string;
  models: ModelListResponse;
  disabled: boolean;
  onSaved: (ref: ModelRef) => void;
  onFailure: (message: string) => void;
}) {
  return (
    <ModelPicker
      id={id}
      label={label}
      groups={models.groups}
      value={models.default}
      disabled={disabled}
      onChange={(ref) =>
        void bastion.models.setDefault(ref).then(
          () => onSaved(ref),
          (rejected: unknown) => onFailure(describeError(rejected)),
        )
      }
    />
  );
}

/** Settings → Default model: what new sessions start with (each session can still switch). */
export function DefaultModelSettings({ bastion, version }: { bastion: BastionApi; version: number }) {
  const [saved, setSaved] = useState(0);
  const { models, error } = useModels(bastion, version + saved);
  const [failure, setFailure] = useState<string>();
  const [status, setStatus] = useState<string>();
  return (
    <section className="card" aria-labelledby="default-model-title">
      <h2 id="default-model-title">Default model</h2>
      <p className="muted">
        New sessions start with this model. Providers appear here once their key is saved below, a ChatGPT account is
        connected, or a custom endpoint is approved.
      </p>
      {(error ?? failure) && (
        <p className="inline-error" role="alert">
          {error ?? failure}
        </p>
      )}
      {models && !modelRunsNow(models, models.default) && (
        <DefaultUnavailable
          model={models.default}
          groups={models.groups}
          fix=", or set up its key or endpoint again below"
        />
      )}
      {models ? (
        <DefaultModelPicker
          bastion={bastion}
          id="default-model"
          label="Model for new sessions"
          models={models}
          disabled={false}
          onSaved={(ref) => {
            setFailure(undefined);
            setStatus(`New sessions use ${modelName(ref)}.`);
            setSaved((count) => count + 1);
          }}
          onFailure={setFailure}
        />
      ) : (
        !error && <p className="muted">Loading…</p>
      )}
      {status && (
        <p className="inline-ok" role="status">
          {status}
        </p>
      )}
    </section>
  );
}
