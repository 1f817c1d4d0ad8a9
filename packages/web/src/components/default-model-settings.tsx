import { useState } from 'react';
import type { BastionApi } from '@bastion/bridge';
import { describeError } from '../bastion.js';
import { ModelPicker, useModels } from './model-picker.js';

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
        <ModelPicker
          id="default-model"
          label="Model for new sessions"
          groups={models.groups}
          value={models.default}
          disabled={false}
          onChange={(ref) => {
            bastion.models.setDefault(ref).then(
              () => {
                setFailure(undefined);
                setStatus(`New sessions use ${ref.provider} · ${ref.model}.`);
                setSaved((count) => count + 1);
              },
              (rejected: unknown) => setFailure(describeError(rejected)),
            );
          }}
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
