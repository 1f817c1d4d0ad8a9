/**
 * Provider ids the daemon, the CLI and the page share. Plain data with no schema here, so the page
 * can import it without bundling zod (whose compiled parsers would need `eval` under its CSP).
 */

/** Built-in providers that take an API key (a custom endpoint may take one too, under its own id). */
export const BYOK_PROVIDER_IDS: ReadonlySet<string> = new Set(['openai', 'anthropic', 'openrouter']);
