/**
 * `<userData>/endpoints.json`: definitions of custom OpenAI-compatible endpoints (Ollama, LM Studio,
 * llama.cpp, vLLM). A definition is not a grant: grants are memory-only in the host and need fresh
 * host-owned consent on every start. Base URLs must pass the shared eligibility check (localhost,
 * *.localhost, IP literals), so a definition can never name a host the host would refuse anyway.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { checkEndpointUrl, ENDPOINTS_MAX_COUNT, endpointSchema, type Endpoint } from '@bastion/protocol';
import { DaemonError } from '../errors.js';
import { readPrivateJson, SerialWriter, writePrivateJson } from '../secrets/private-json-file.js';

const endpointsFileSchema = z.strictObject({
  version: z.literal(1),
  endpoints: z.array(endpointSchema).max(ENDPOINTS_MAX_COUNT),
});

export class EndpointError extends DaemonError {
  override readonly name = 'EndpointError';
}

export class EndpointStore {
  readonly path: string;
  readonly #writer = new SerialWriter();
  readonly #listeners = new Set<(endpoints: readonly Endpoint[]) => void>();
  #cache: readonly Endpoint[] = [];
  #loadProblem: unknown;

  constructor(userData: string) {
    this.path = join(userData, 'endpoints.json');
  }

  /** Load the file once at start; later reads come from memory, kept in step by this store's writes. */
  async load(): Promise<readonly Endpoint[]> {
    let file;
    try {
      file = await readPrivateJson(this.path, endpointsFileSchema);
    } catch (error) {
      this.#loadProblem = error;
      throw error;
    }
    this.#loadProblem = undefined;
    this.#cache = file?.endpoints ?? [];
    this.#emit();
    return this.#cache;
  }

  /** Why the file could not be loaded at start (it is left as it is and never written over), if it could not. */
  get loadProblem(): unknown {
    return this.#loadProblem;
  }

  list(): readonly Endpoint[] {
    return this.#cache;
  }

  get(id: string): Endpoint | undefined {
    return this.#cache.find((endpoint) => endpoint.id === id);
  }

  onChange(listener: (endpoints: readonly Endpoint[]) => void): void {
    this.#listeners.add(listener);
  }

  /** Create or replace a definition. The base URL is canonicalised; an ineligible one is refused. */
  set(input: Endpoint): Promise<Endpoint> {
    const checked = checkEndpointUrl(input.base_url);
    if (!checked.ok) return Promise.reject(new EndpointError(checked.code, checked.message));
    const endpoint: Endpoint = { ...input, base_url: checked.baseUrl };
    return this.#mutate((endpoints) => {
      const others = endpoints.filter((existing) => existing.id !== endpoint.id);
      if (others.length >= ENDPOINTS_MAX_COUNT) throw new EndpointError('ENDPOINT_LIMIT', 'too many endpoints');
      return [...others, endpoint];
    }).then(() => endpoint);
  }

  /** Resolves true when the definition existed. */
  async delete(id: string): Promise<boolean> {
    let existed = false;
    await this.#mutate((endpoints) => {
      existed = endpoints.some((endpoint) => endpoint.id === id);
      return endpoints.filter((endpoint) => endpoint.id !== id);
    });
    return existed;
  }

  #mutate(change: (endpoints: readonly Endpoint[]) => Endpoint[]): Promise<void> {
    return this.#writer.run(async () => {
      const file = await readPrivateJson(this.path, endpointsFileSchema);
      const next = change(file?.endpoints ?? []);
      await writePrivateJson(this.path, { version: 1, endpoints: next });
      this.#cache = next;
      this.#emit();
    });
  }

  #emit(): void {
    for (const listener of this.#listeners) listener(this.#cache);
  }
}
