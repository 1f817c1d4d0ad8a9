import { describe, expect, it } from 'vitest';
import type { ModelListResponse } from '@bastion/protocol';
import { modelTakesImages } from './run.js';

describe('modelTakesImages (whether a message with images may go to the model a run is on)', () => {
  const listed = (fallback: { provider: string; model: string }): ModelListResponse => ({
    groups: [
      {
        provider: 'demo',
        label: 'Demo (offline)',
        kind: 'demo',
        available: true,
        models: [{ id: 'demo', label: 'Demo', images: true }],
      },
      {
        provider: 'openai',
        label: 'OpenAI',
        kind: 'api-key',
        available: true,
        models: [
          { id: 'gpt-5', label: 'GPT-5', images: true },
          { id: 'gpt-4.1', label: 'GPT-4.1', images: true },
        ],
      },
      {
        provider: 'local',
        label: 'local',
        kind: 'endpoint',
        available: true,
        models: [{ id: 'llama', label: 'llama' }],
      },
      { provider: 'bare', label: 'bare', kind: 'endpoint', available: true, models: [] },
      {
        provider: 'mixed',
        label: 'mixed',
        kind: 'api-key',
        available: true,
        models: [
          { id: 'sees', label: 'sees', images: true },
          { id: 'blind', label: 'blind' },
        ],
      },
    ],
    default: fallback,
  });
  const models = listed({ provider: 'openai', model: 'gpt-5' });

  it('takes a model marked images: true, named in full or by --model alone (the default’s provider)', () => {
    expect(modelTakesImages(models, { provider: 'demo', model: 'demo' })).toBe(true);
    expect(modelTakesImages(models, { provider: 'openai', model: 'gpt-4.1' })).toBe(true);
    expect(modelTakesImages(models, { provider: undefined, model: 'gpt-4.1' })).toBe(true);
  });

  it('refuses an unmarked model: an endpoint’s, one its endpoint does not list, and a --model not of the default’s provider', () => {
    expect(modelTakesImages(models, { provider: 'local', model: 'llama' })).toBe(false);
    expect(modelTakesImages(models, { provider: 'bare', model: 'anything' })).toBe(false);
    expect(modelTakesImages(models, { provider: 'mixed', model: 'blind' })).toBe(false);
    expect(modelTakesImages(models, { provider: undefined, model: 'llama' })).toBe(false);
  });

  it('no --provider or --model: the default for new sessions decides', () => {
    const none = { provider: undefined, model: undefined };
    expect(modelTakesImages(models, none)).toBe(true);
    expect(modelTakesImages(listed({ provider: 'local', model: 'llama' }), none)).toBe(false);
  });

  it('--provider alone (its default model, which the listing does not name): known only when all its models agree', () => {
    expect(modelTakesImages(models, { provider: 'openai', model: undefined })).toBe(true);
    expect(modelTakesImages(models, { provider: 'local', model: undefined })).toBe(false);
    expect(modelTakesImages(models, { provider: 'bare', model: undefined })).toBe(false);
    expect(modelTakesImages(models, { provider: 'mixed', model: undefined })).toBeUndefined();
  });

  it('cannot tell for a provider not listed: the daemon decides (IMAGES_NOT_SUPPORTED)', () => {
    expect(modelTakesImages(models, { provider: 'gone', model: 'm' })).toBeUndefined();
  });
});
