/**
 * Settings → Custom endpoints: add (name, URL, optional key and context window), list, set or
 * replace the key and the context window, probe, approve, delete.
 * Defining an endpoint is not a grant: approval comes only from the host — its terminal, its own
 * confirmation page in the browser, or `--allow-endpoint` — and this page says which, or says
 * that nobody could be asked and gives the exact command.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { CONTEXT_WINDOW_MAX_TOKENS, CONTEXT_WINDOW_MIN_TOKENS, DEFAULT_CONTEXT_WINDOW_TOKENS } from '@bastion/protocol';
import type { BastionApi, ConsentOutcome, Endpoint, EndpointListEntry } from '@bastion/bridge';
import { describeError, formText } from '../bastion.js';

type Notice = { kind: 'wait' | 'ok' | 'error' | 'info'; text: string };

function outcomeNotice(outcome: ConsentOutcome, url: string): Notice {
  switch (outcome.outcome) {
    case 'granted':
      return { kind: 'ok', text: `Approved: ${outcome.subject ?? url}. Its models are in the model picker now.` };
    case 'denied':
      return {
        kind: 'error',
        text:
          outcome.code === 'DECLINED_ON_PAGE'
            ? 'Not approved: declined on Bastion’s confirmation page, or not answered in time.'
            : outcome.code === 'DECLINED_IN_TERMINAL'
              ? 'Not approved: declined in the terminal where Bastion runs.'
              : `Not approved (${outcome.code ?? 'refused'}).`,
      };
    case 'unavailable':
      return {
        kind: 'info',
        text: `Nobody could be asked to approve it: Bastion has no terminal or confirmation page here. Restart it with: bastion start --allow-endpoint ${outcome.subject ?? url}`,
      };
  }
}

/** An endpoint id from a display name: lowercase letters, digits and dashes, starting with a letter. */
function idFrom(name: string): string {
  const id = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .replace(/-+$/, '')
    .slice(0, 32);
  return id === '' ? 'local' : id;
}

/** The form's context window: undefined when left empty (the daemon then uses its default). */
function windowFrom(form: HTMLFormElement): number | undefined {
  const text = formText(form, 'context_window');
  return text === '' ? undefined : Number(text);
}

/** What the form says of the endpoint's models: their window and whether they take images. */
function modelSettingsFrom(form: HTMLFormElement): Pick<Endpoint, 'context_window' | 'images'> {
  const contextWindow = windowFrom(form);
  const images = (form.elements.namedItem('images') as HTMLInputElement | null)?.checked === true;
  return { ...(contextWindow === undefined ? {} : { context_window: contextWindow }), ...(images ? { images } : {}) };
}

function ModelSettingsInputs({ id, endpoint }: { id: string; endpoint: Endpoint | undefined }) {
  return (
    <>
      <WindowInput id={`${id}-window`} value={endpoint?.context_window} />
      <label className="checkbox-label" htmlFor={`${id}-images`}>
        <input id={`${id}-images`} name="images" type="checkbox" defaultChecked={endpoint?.images === true} />
        Its models take images (a vision model)
      </label>
    </>
  );
}

/** A key field: never echoed, autofilled or spell-checked; what is typed goes only to secrets.set. */
function KeyInput({ id, label, placeholder }: { id: string; label: string; placeholder: string | undefined }) {
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <input id={id} name="key" type="password" autoComplete="off" spellCheck={false} placeholder={placeholder} />
    </>
  );
}

function WindowInput({ id, value }: { id: string; value: number | undefined }) {
  return (
    <>
      <label htmlFor={id}>Context window (tokens)</label>
      <input
        id={id}
        name="context_window"
        type="number"
        inputMode="numeric"
        min={CONTEXT_WINDOW_MIN_TOKENS}
        max={CONTEXT_WINDOW_MAX_TOKENS}
        step={1}
        defaultValue={value}
        placeholder={`${DEFAULT_CONTEXT_WINDOW_TOKENS} (default)`}
      />
    </>
  );
}

export function EndpointsSettings({ bastion, onChanged }: { bastion: BastionApi; onChanged: () => void }) {
  const [endpoints, setEndpoints] = useState<EndpointListEntry[]>();
  const [notice, setNotice] = useState<Notice>();
  const [models, setModels] = useState<Record<string, string[] | string>>({});
  const [busy, setBusy] = useState(false);

  const load = () =>
    bastion.endpoints.list().then(
      (list) => setEndpoints(list),
      (failure: unknown) => setNotice({ kind: 'error', text: describeError(failure) }),
    );
  useEffect(() => {
    void load();
  }, [bastion]);

  const approve = async (url: string) => {
    setNotice({
      kind: 'wait',
      text: 'Waiting for your approval: Bastion asks in the terminal where it runs or, without one, on a confirmation page it opens in your browser (the terminal prints its address if no browser opens)…',
    });
    const outcome = await bastion.endpoints.requestConsent(url);
    setNotice(outcomeNotice(outcome, url));
  };

  const act = async (action: () => Promise<void>) => {
    setBusy(true);
    try {
      await action();
    } catch (failure) {
      setNotice({ kind: 'error', text: describeError(failure) });
    } finally {
      setBusy(false);
      await load();
      onChanged();
    }
  };

  const add = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const url = formText(form, 'url');
    const id = idFrom(formText(form, 'name') || 'local');
    const key = formText(form, 'key');
    if (url === '') return;
    void act(async () => {
      await bastion.endpoints.define({ id, base_url: url, ...modelSettingsFrom(form) });
      if (key !== '') await bastion.secrets.set(id, key);
      form.reset();
      await load();
      await approve(url);
    });
  };

  /** An endpoint's row saved: its model settings, and its key when one was typed (then cleared from the field). */
  const saveEndpoint = (event: FormEvent<HTMLFormElement>, endpoint: EndpointListEntry) => {
    event.preventDefault();
    const form = event.currentTarget;
    const settings = modelSettingsFrom(form);
    const contextWindow = settings.context_window;
    const key = formText(form, 'key');
    void act(async () => {
      await bastion.endpoints.define({
        id: endpoint.id,
        base_url: endpoint.base_url,
        ...(endpoint.models === undefined ? {} : { models: endpoint.models }),
        ...settings,
      });
      if (key !== '') {
        await bastion.secrets.set(endpoint.id, key);
        (form.elements.namedItem('key') as HTMLInputElement).value = '';
      }
      setNotice({
        kind: 'ok',
        text: `${endpoint.id}: ${key === '' ? '' : 'key saved; '}context window ${contextWindow === undefined ? `the default (${DEFAULT_CONTEXT_WINDOW_TOKENS} tokens)` : `${contextWindow} tokens`}; its models ${settings.images === true ? 'take' : 'do not take'} images.`,
      });
    });
  };

  return (
    <section className="card" aria-labelledby="endpoints-title">
      <h2 id="endpoints-title" tabIndex={-1}>
        Custom endpoints
      </h2>
      <p className="muted">
        OpenAI-compatible servers on this machine (Ollama, LM Studio, llama.cpp, vLLM): localhost, *.localhost or an IP
        address. Bastion asks you to approve each one — in its terminal, or on a confirmation page it opens — before any
        request can reach it; approvals last until Bastion stops.
      </p>
      {endpoints && endpoints.length > 0 && (
        <ul className="endpoint-list">
          {endpoints.map((endpoint) => {
            const listed = models[endpoint.id];
            return (
              <li key={endpoint.id} className="endpoint" data-testid={`endpoint-${endpoint.id}`}>
                <div className="endpoint-head">
                  <strong>{endpoint.id}</strong> <code>{endpoint.base_url}</code>
                  <span className={endpoint.granted ? 'badge badge-ok' : 'badge'}>
                    {endpoint.granted ? 'approved' : 'not approved in this run'}
                  </span>
                  {endpoint.has_key && <span className="badge">key stored</span>}
                </div>
                <div className="row">
                  {!endpoint.granted && (
                    <button type="button" disabled={busy} onClick={() => void act(() => approve(endpoint.base_url))}>
                      Approve…
                    </button>
                  )}
                  <button
                    type="button"
                    disabled={busy}
                    onClick={() =>
                      void bastion.endpoints.probe(endpoint.id).then(
                        (found) => setModels((previous) => ({ ...previous, [endpoint.id]: found })),
                        (failure: unknown) =>
                          setModels((previous) => ({ ...previous, [endpoint.id]: describeError(failure) })),
                      )
                    }
                  >
                    Probe
                  </button>
                  <button
                    type="button"
                    className="danger"
                    disabled={busy}
                    onClick={() => void act(() => bastion.endpoints.delete(endpoint.id))}
                  >
                    Delete
                  </button>
                </div>
                <form className="endpoint-form" onSubmit={(event) => saveEndpoint(event, endpoint)}>
                  <KeyInput
                    id={`endpoint-${endpoint.id}-key`}
                    label="API key"
                    placeholder={endpoint.has_key ? 'Enter a new key to replace it' : 'Paste a key, if it needs one'}
                  />
                  <ModelSettingsInputs id={`endpoint-${endpoint.id}`} endpoint={endpoint} />
                  <button type="submit" disabled={busy}>
                    Save
                  </button>
                </form>
                {typeof listed === 'string' && <p className="inline-error">{listed}</p>}
                {Array.isArray(listed) && (
                  <p className="muted" role="status">
                    {listed.length === 0 ? 'It lists no models.' : `Models: ${listed.join(', ')}`}
                  </p>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <form className="endpoint-form" onSubmit={add}>
        <label htmlFor="endpoint-name">Name</label>
        <input id="endpoint-name" name="name" placeholder="ollama" maxLength={32} required />
        <label htmlFor="endpoint-url">URL</label>
        <input id="endpoint-url" name="url" type="url" placeholder="http://localhost:11434/v1" required />
        <KeyInput id="endpoint-key" label="API key (optional)" placeholder={undefined} />
        <ModelSettingsInputs id="endpoint" endpoint={undefined} />
        <button type="submit" className="primary" disabled={busy}>
          Add and approve
        </button>
      </form>
      {notice && (
        <p className={`inline-${notice.kind}`} role={notice.kind === 'error' ? 'alert' : 'status'}>
          {notice.text}
        </p>
      )}
    </section>
  );
}
