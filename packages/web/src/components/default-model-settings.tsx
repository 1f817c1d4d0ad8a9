import { useState } from 'react';
import type { BastionApi, ModelListResponse, ModelRef } from '@bastion/bridge';
import { describeError } from '../bastion.js';
import { ModelPicker, useModels } from './model-picker.js';

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
      {models ? (
        <DefaultModelPicker
          bastion={bastion}
          id="default-model"
          label="Model for new sessions"
          models={models}
          disabled={false}
          onSaved={(ref) => {
            setFailure(undefined);
            setStatus(`New sessions use ${ref.provider} · ${ref.model}.`);
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
