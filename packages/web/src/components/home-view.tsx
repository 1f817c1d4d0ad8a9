import { useCallback, useState } from 'react';
import type { AgentRunMcp, BastionApi } from '@bastion/bridge';
import { modelRunsNow } from '@bastion/protocol';
import { createSessionOnDefaultModel, describeError, errorCode } from '../bastion.js';
import { carryDraftMcp, readDraft, saveDraft } from '../drafts.js';
import { imageInputOf, isImageRefusal, type Attachment } from '../image-attachment.js';
import { keepImageRefusal, readDraftImages, saveDraftImages } from '../image-drafts.js';
import { useGrantedRoots } from '../granted-roots.js';
import { newClientId } from '../client-id.js';
import { withPromptSpans } from '../server-text-spans.js';
import { Composer } from './composer.js';
import { DefaultModelPicker, DefaultUnavailable } from './default-model-settings.js';
import { DEMO_MODEL_NAME, listedModel, modelName, useModels } from './model-picker.js';

/** Where the home page's unsent message is kept (session drafts are keyed by `ses_…` ids). */
const HOME_DRAFT = 'home';

/** What to try with the offline demo model, which understands only a few forms (home page, empty session). */
export function DemoModelTry() {
  return (
    <>
      try <code>ls</code>, <code>read README.md</code>, <code>$ ls -la</code> or <code>write notes.txt: hello</code> (a
      diff you can undo)
    </>
  );
}

/**
 * The page with no session open: a message box that starts a session on the default model with
 * the message sent, the model picker that sets that default, and how to start otherwise.
 */
export function HomeView({
  bastion,
  unavailable,
  onSettings,
  onStarted,
}: {
  bastion: BastionApi;
  /** Why nothing can be sent now (Bastion does not answer). */
  unavailable: string | undefined;
  onSettings: () => void;
  /** A session was made from the home page's message: open it. */
  onStarted: (sessionId: string) => void;
}) {
  const [modelsVersion, setModelsVersion] = useState(0);
  const { models } = useModels(bastion, modelsVersion);
  const [draft, setDraftText] = useState(() => readDraft(HOME_DRAFT));
  const setDraft = useCallback((text: string) => {
    setDraftText(text);
    saveDraft(HOME_DRAFT, text);
  }, []);
  const [images, setImagesState] = useState(() => readDraftImages(HOME_DRAFT));
  const setImages = useCallback((next: readonly Attachment[]) => {
    setImagesState(next);
    saveDraftImages(HOME_DRAFT, next);
  }, []);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  // A new session works in the first folder this Bastion was granted (the daemon's default): `@` lists it.
  const workspace = useGrantedRoots(bastion)?.[0] ?? null;

  const start = async (message: string, attached: readonly Attachment[], mcp: AgentRunMcp) => {
    setBusy(true);
    setError(undefined);
    let sessionId: string | undefined;
    try {
      sessionId = (await createSessionOnDefaultModel(bastion)).id;
      const images = attached.length === 0 ? undefined : attached.map(imageInputOf);
      await bastion.agent.run(sessionId, message, images, mcp, newClientId());
      setDraft('');
      setImages([]);
      onStarted(sessionId);
    } catch (failure) {
      setBusy(false);
      if (sessionId === undefined) {
        setError(describeError(failure));
        return;
      }
      // The session exists but the message did not go: it waits there, unsent, in its own box,
      // with its images and, for a refusal of them, why (under its box).
      // The text goes with which of its characters an MCP server's prompt wrote, or not at all.
      if (carryDraftMcp(HOME_DRAFT, draft, sessionId, message)) saveDraft(sessionId, message);
      saveDraftImages(sessionId, attached);
      setDraft('');
      setImages([]);
      if (attached.length > 0 && isImageRefusal(errorCode(failure)))
        keepImageRefusal(sessionId, describeError(failure));
      onStarted(sessionId);
    }
  };

  const settings = (
    <button type="button" className="link-button" onClick={onSettings}>
      Settings
    </button>
  );
  const model = models?.default;
  // A default whose key or endpoint is gone (or not approved in this run) would start a session that cannot run.
  const runnable = models !== undefined && modelRunsNow(models, models.default);
  return (
    <section className="empty home">
      <h1>Start a session</h1>
      <p>Ask the agent to work in your workspace: your message starts a new session. Or open one from Sessions.</p>
      <Composer
        draft={draft}
        onDraft={setDraft}
        draftKey={HOME_DRAFT}
        onSend={(mcp, serverText) => {
          const message = draft.trim();
          if (message !== '') void start(message, images, withPromptSpans(mcp, serverText?.spans, draft));
        }}
        onStop={() => undefined}
        stoppable={false}
        queues={false}
        sendDisabled={busy || draft.trim() === '' || (models !== undefined && !runnable)}
        placeholder={workspace === null ? 'Ask the agent… (Enter sends)' : 'Ask the agent… (@ for files)'}
        autoFocus
        lastPrompt={undefined}
        workspace={workspace}
        files={bastion.workspaces}
        commands={[]}
        savedPrompts={bastion.prompts}
        mcp={bastion.mcp}
        images={images}
        onImages={setImages}
        modelTakesImages={models === undefined || listedModel(models.groups, models.default)?.images === true}
        unavailable={unavailable}
      />
      {models && (
        <DefaultModelPicker
          bastion={bastion}
          id="home-model"
          label="Model"
          models={models}
          disabled={busy}
          onSaved={() => {
            setError(undefined);
            setModelsVersion((version) => version + 1);
          }}
          onFailure={setError}
        />
      )}
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
      {model &&
        (!runnable ? (
          <DefaultUnavailable model={model} groups={models.groups} fix={<>, or set it up again in {settings}</>} />
        ) : model.provider === 'demo' ? (
          <p className="hint">
            New sessions use the {DEMO_MODEL_NAME}, which is not an AI: <DemoModelTry />. For a real model, add an API
            key, a local server or your ChatGPT plan in {settings}.
          </p>
        ) : (
          <p className="hint">
            New sessions use <strong>{modelName(model)}</strong>, the default in {settings} too; a session can switch
            its model at any time.
          </p>
        ))}
    </section>
  );
}
