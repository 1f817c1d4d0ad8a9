/**
 * `<userData>/preferences.json`: the default model new sessions start with (set in the UI's
 * Settings). Written with the same private-file discipline as auth.json; a missing or refused
 * file means the demo model.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { modelRefSchema, type ModelRef } from '@bastion/protocol';
import { readPrivateJson, SerialWriter, writePrivateJson } from '../secrets/private-json-file.js';
import { DEMO_MODEL_ID, DEMO_PROVIDER_ID } from './demo/demo-model.js';

const preferencesFileSchema = z.strictObject({ version: z.literal(1), default_model: modelRefSchema });

export const DEMO_MODEL_REF: ModelRef = Object.freeze({ provider: DEMO_PROVIDER_ID, model: DEMO_MODEL_ID });

export class ModelPreferences {
  readonly path: string;
  readonly #writer = new SerialWriter();

  constructor(userData: string) {
    this.path = join(userData, 'preferences.json');
  }

  async defaultModel(): Promise<ModelRef> {
    const file = await readPrivateJson(this.path, preferencesFileSchema);
    return file?.default_model ?? DEMO_MODEL_REF;
  }

  setDefaultModel(ref: ModelRef): Promise<void> {
    return this.#writer.run(() => writePrivateJson(this.path, { version: 1, default_model: ref }));
  }
}
