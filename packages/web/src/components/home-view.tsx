import type { BastionApi } from '@bastion/bridge';
import { useModels } from './model-picker.js';

/** The page with no session open: how to start, and which model a new session gets. */
export function HomeView({ bastion, onSettings }: { bastion: BastionApi; onSettings: () => void }) {
  const { models } = useModels(bastion);
  const settings = (
    <button type="button" className="link-button" onClick={onSettings}>
      Settings
    </button>
  );
  const model = models?.default;
  return (
    <section className="empty">
      <h1>Start a session</h1>
      <p>Create one with New session, then ask the agent to work in your workspace.</p>
      {model &&
        (model.provider === 'demo' ? (
          <p className="hint">
            New sessions use the offline demo model, which is not an AI: try <code>ls</code>,{' '}
            <code>read README.md</code> or <code>$ ls -la</code>. For a real model, add an API key, a local server or
            your ChatGPT plan in {settings}.
          </p>
        ) : (
          <p className="hint">
            New sessions use{' '}
            <strong>
              {model.provider} · {model.model}
            </strong>
            ; change it in {settings}.
          </p>
        ))}
    </section>
  );
}
