/**
 * SEC-008: the experimental `chatgpt` provider. An AI SDK OpenAI Responses model whose only
 * destination is the configured Responses endpoint (POST, exact URL), through the host-routed
 * transport, with `store: false`, the subscription's bearer token, its account header and
 * `originator: bastion`. A 401 refreshes (single-flight, in the credential owner) and replays the
 * request at most once. An entitlement, rate or quota refusal stays on this provider with its own
 * code: nothing here falls back to another provider. The model list is closed.
 */
import { lazyLanguageModel } from '../providers/lazy-model.js';
import type { ProviderDefinition, ProviderFetch } from '../providers/provider-registry.js';
import { ChatgptAuthError } from './chatgpt-auth-error.js';
import { CHATGPT_PROVIDER_ID, type ChatgptAuthorization, type ChatgptCredentials } from './chatgpt-credentials.js';

/** Models this provider offers; anything else is refused before a request is made. */
export const CHATGPT_MODELS: readonly string[] = Object.freeze([
  'gpt-5.1-codex',
  'gpt-5.1-codex-mini',
  'gpt-5.1',
  'gpt-5-codex',
  'gpt-5',
]);
export const CHATGPT_DEFAULT_MODEL = 'gpt-5.1-codex';
const RESPONSES_SUFFIX = '/responses';

async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

/** The fetch the Responses model uses: exact destination, subscription headers, one 401 replay. */
export function chatgptFetch(credentials: ChatgptCredentials, transportFetch: ProviderFetch): ProviderFetch {
  return async (input, init) => {
    const request = new Request(input, init);
    if (request.url !== credentials.responsesUrl || request.method !== 'POST')
      throw new ChatgptAuthError('PROVIDER_DESTINATION');
    const body = await request.arrayBuffer();
    const callerSignal = init?.signal ?? undefined;
    const send = (auth: ChatgptAuthorization) => {
      const headers = new Headers(request.headers);
      headers.set('authorization', `Bearer ${auth.access}`);
      headers.set('chatgpt-account-id', auth.accountId);
      headers.set('originator', 'bastion');
      return transportFetch(request.url, {
        method: 'POST',
        headers,
        body,
        // Sign-out or another sign-in ends this request too.
        signal: callerSignal ? AbortSignal.any([callerSignal, auth.signal]) : auth.signal,
      });
    };
    const first = await credentials.authorization();
    let response = await send(first);
    if (response.status === 401) {
      await discard(response);
      response = await send(await credentials.refreshAfter(first.access));
      if (response.status === 401) {
        await discard(response);
        throw new ChatgptAuthError('OAUTH_REFRESH');
      }
    }
    if (response.status === 429) {
      await discard(response);
      throw new ChatgptAuthError('PROVIDER_RATE_LIMIT');
    }
    if (response.status === 402 || response.status === 403) {
      await discard(response);
      throw new ChatgptAuthError('PROVIDER_ENTITLEMENT');
    }
    return response;
  };
}

export function chatgptProvider(credentials: ChatgptCredentials): ProviderDefinition {
  const responsesUrl = credentials.responsesUrl;
  return {
    id: CHATGPT_PROVIDER_ID,
    label: 'ChatGPT subscription (experimental; not endorsed by OpenAI)',
    defaultModel: CHATGPT_DEFAULT_MODEL,
    create(modelId, context) {
      if (!CHATGPT_MODELS.includes(modelId)) throw new ChatgptAuthError('PROVIDER_MODEL');
      if (!responsesUrl.endsWith(RESPONSES_SUFFIX)) throw new ChatgptAuthError('PROVIDER_DESTINATION');
      return lazyLanguageModel(CHATGPT_PROVIDER_ID, modelId, async () => {
        const [{ createOpenAI }, { defaultSettingsMiddleware, wrapLanguageModel }] = await Promise.all([
          import('@ai-sdk/openai'),
          import('ai'),
        ]);
        const openai = createOpenAI({
          name: CHATGPT_PROVIDER_ID,
          baseURL: responsesUrl.slice(0, -RESPONSES_SUFFIX.length),
          // Replaced per request by the subscription's token; given so the SDK never reads OPENAI_API_KEY.
          apiKey: 'chatgpt-subscription',
          fetch: chatgptFetch(credentials, context.fetch),
        });
        return wrapLanguageModel({
          model: openai.responses(modelId),
          middleware: defaultSettingsMiddleware({ settings: { providerOptions: { openai: { store: false } } } }),
        });
      });
    },
  };
}
