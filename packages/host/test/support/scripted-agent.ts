/**
 * Test support: a real host granted the scripted loopback endpoint, the endpoint defined as the
 * custom provider `local` with its key (startScriptedHost), and an agent session on it
 * (scriptedWorlds). One world at a time; call stop() in afterEach, which ends the host and closes
 * the endpoint.
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

export interface ScriptedHost {
  host: TempHost;
  endpoint: ScriptedEndpoint;
}

export interface ScriptedWorld extends ScriptedHost {
  agent: AgentDriver;
}

/**
 * The scripted endpoint playing `script`, granted to a temp host (as `--allow-endpoint` does) and
 * defined as provider `local` with API key `key` (`definition`: more fields of its definition,
 * e.g. `context_window`). A start that fails part-way stops what it started.
 */
export async function startScriptedHost(
  script: Script,
  key: string,
  definition: Record<string, unknown> = {},
): Promise<ScriptedHost> {
  const endpoint = await startScriptedEndpoint(script);
  let host: TempHost | undefined;
  try {
    host = await startTempHost({ allowEndpoints: [endpoint.baseUrl] });
    await defineScriptedProvider(host, endpoint, key, definition);
    return { host, endpoint };
  } catch (error) {
    await host?.stop();
    await endpoint.close();
    throw error;
  }
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
      const { host, endpoint } = await startScriptedHost(script, key, definition);
      current = { host, endpoint };
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
