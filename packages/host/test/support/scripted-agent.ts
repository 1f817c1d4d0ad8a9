/**
 * Test support: a real host granted the scripted loopback endpoint, the endpoint defined as the
 * custom provider `local` with its key, and an agent session on it. One world at a time; call
 * stop() in afterEach, which ends the host and closes the endpoint.
 */
import { AgentDriver } from '../commands/agent-stream.js';
import {
  defineScriptedProvider,
  SCRIPTED_MODEL,
  startScriptedEndpoint,
  type Script,
  type ScriptedEndpoint,
} from '@bastion/test-support';
import { startTempHost, type TempHost } from './temp-host.js';

export interface ScriptedWorld {
  host: TempHost;
  endpoint: ScriptedEndpoint;
  agent: AgentDriver;
}

export function scriptedWorlds(key: string) {
  let current: Partial<ScriptedWorld> = {};
  return {
    /** `definition`: more fields of the endpoint's definition (e.g. `context_window`). */
    async start(
      script: Script,
      session: Record<string, unknown> = {},
      definition: Record<string, unknown> = {},
    ): Promise<ScriptedWorld> {
      const endpoint = await startScriptedEndpoint(script);
      current.endpoint = endpoint;
      const host = await startTempHost({ allowEndpoints: [endpoint.baseUrl] });
      current.host = host;
      await defineScriptedProvider(host, endpoint, key, definition);
      const agent = await AgentDriver.create(host, { provider: 'local', model: SCRIPTED_MODEL, ...session });
      return { host, endpoint, agent };
    },
    async stop(): Promise<void> {
      await current.host?.stop();
      await current.endpoint?.close();
      current = {};
    },
  };
}
