import type { LanguageModel } from 'ai';
import { ConfigError } from '../config/load.js';
import type { ModelRoute } from './route.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, timedFetch } from './timed-fetch.js';

const cache = new Map<string, Promise<LanguageModel>>();

/** Loaded by the first scripted route only, so a run without one never loads the scripted server. */
let scriptedRoute: Promise<typeof import('./scripted-route.js')> | undefined;

/** Stops the in-process scripted servers this process started, if any. */
export async function closeScriptedServersIfStarted(): Promise<void> {
  if (scriptedRoute) await (await scriptedRoute).closeScriptedServers();
}

function routeKey(route: ModelRoute): string {
  return JSON.stringify([
    route.type,
    route.model,
    route.baseURL,
    route.apiKey,
    route.headers,
    route.script,
    route.connectTimeoutMs,
    route.idleTimeoutMs,
  ]);
}

/** Builds the `ai` SDK model for a route, importing only that provider's package. */
export function createLanguageModel(route: ModelRoute): Promise<LanguageModel> {
  const key = routeKey(route);
  let model = cache.get(key);
  if (!model) {
    model = buildModel(route);
    cache.set(key, model);
    model.catch(() => cache.delete(key));
  }
  return model;
}

/** The provider's fetch with cadre's connect and idle limits (per alias, defaults for a slow reasoning model). */
function fetchFor(route: ModelRoute): typeof fetch {
  return timedFetch({
    connectMs: route.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    idleMs: route.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
  });
}

async function buildModel(route: ModelRoute): Promise<LanguageModel> {
  const fetch = fetchFor(route);
  switch (route.type) {
    case 'anthropic': {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return createAnthropic({ apiKey: route.apiKey, baseURL: route.baseURL, headers: route.headers, fetch })(
        route.model,
      );
    }
    case 'openai': {
      const { createOpenAI } = await import('@ai-sdk/openai');
      return createOpenAI({ apiKey: route.apiKey, baseURL: route.baseURL, headers: route.headers, fetch })(
        route.model,
      );
    }
    case 'openai-compatible': {
      if (!route.baseURL) throw new ConfigError(`provider ${route.alias ?? route.type} needs "base_url"`);
      return compatibleModel(route, route.baseURL, fetch);
    }
    case 'scripted': {
      scriptedRoute ??= import('./scripted-route.js');
      const { scriptedBaseUrl } = await scriptedRoute;
      return compatibleModel(route, await scriptedBaseUrl(route), fetch);
    }
  }
}

async function compatibleModel(
  route: ModelRoute,
  baseURL: string,
  fetch: typeof globalThis.fetch,
): Promise<LanguageModel> {
  const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
  return createOpenAICompatible({
    name: route.alias ?? 'openai-compatible',
    baseURL,
    apiKey: route.apiKey,
    headers: route.headers,
    includeUsage: true,
    fetch,
  })(route.model);
}
