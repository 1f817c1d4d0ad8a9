/**
 * Whether a model is on offer, from a `/models` answer: kept apart from the schemas of
 * api/models.ts so the web app can use it without bundling zod (whose eval probe the page's CSP
 * reports).
 */
import type { ModelListResponse, ModelRef } from './api/models.js';

/**
 * Whether `ref` is on offer: its provider is listed with that model (any model, for a provider
 * that lists none). A model its provider does not list would fail every run.
 */
export function offersModel(models: ModelListResponse, ref: ModelRef): boolean {
  const group = models.groups.find((candidate) => candidate.provider === ref.provider);
  return group !== undefined && (group.models.length === 0 || group.models.some((model) => model.id === ref.model));
}

/** Whether a session on `ref` can run now: on offer, and its provider available (an endpoint approved in this run). */
export function modelRunsNow(models: ModelListResponse, ref: ModelRef): boolean {
  const group = models.groups.find((candidate) => candidate.provider === ref.provider);
  return group !== undefined && group.available && offersModel(models, ref);
}
