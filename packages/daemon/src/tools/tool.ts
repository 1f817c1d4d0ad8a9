/**
 * The AI SDK's `tool()`: an identity function that ties a tool's `execute` input to its schema's
 * type. It is declared here because importing it from 'ai' evaluates the SDK's whole entry
 * (OpenTelemetry, the gateway provider: about 700 KB) during the sidecar's start-up; the agent
 * loop loads 'ai' itself, by the first run.
 */
import type { Tool } from 'ai';

export function tool<INPUT, OUTPUT>(definition: Tool<INPUT, OUTPUT>): Tool<INPUT, OUTPUT> {
  return definition;
}
