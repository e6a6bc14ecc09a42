import { ConfigError } from '../config/load.js';
import type { Config, ProviderAlias, ProviderType } from '../config/schema.js';
import { resolveModelRef } from '../profile/model-routing.js';
import { ownValue } from '../util/own.js';

export const EFFORTS = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
export type Effort = (typeof EFFORTS)[number];

/** Everything needed to reach one model: a whole provider route (SPEC 4.2). */
export interface ModelRoute {
  /** The `providers` alias this route came from, when it did. */
  alias?: string;
  type: ProviderType;
  model: string;
  baseURL?: string;
  apiKey?: string;
  headers?: Record<string, string>;
  script?: string;
  contextWindow?: number;
  connectTimeoutMs?: number;
  idleTimeoutMs?: number;
}

/** Sampling parameters that travel with a route (profile reasoning/temperature, SPEC 4.2). */
export interface ModelParams {
  effort?: Effort;
  temperature?: number;
  /** Per-response output cap (the review built-ins, SPEC 3.4). */
  maxOutputTokens?: number;
}

const DEFAULT_MODELS: Record<ProviderType, string> = {
  openai: 'gpt-5.1',
  anthropic: 'claude-sonnet-4-5',
  'openai-compatible': 'default',
  scripted: 'scripted',
};

export function routeFromAlias(alias: string, entry: ProviderAlias, env: NodeJS.ProcessEnv): ModelRoute {
  const apiKey = entry.api_key ?? (entry.api_key_env ? env[entry.api_key_env] : undefined);
  // Without this the SDK would quietly fall back to OPENAI_API_KEY/ANTHROPIC_API_KEY: maybe another account.
  if (entry.api_key === undefined && entry.api_key_env && !apiKey) {
    throw new ConfigError(
      `provider "${alias}": the environment variable ${entry.api_key_env} (api_key_env) is not set`,
    );
  }
  return {
    alias,
    type: entry.type,
    model: entry.model ?? DEFAULT_MODELS[entry.type],
    baseURL: entry.base_url,
    apiKey,
    headers: entry.headers,
    script: entry.script,
    contextWindow: entry.context_window,
    connectTimeoutMs: entry.connect_timeout_ms,
    idleTimeoutMs: entry.idle_timeout_ms,
  };
}

/** With no provider configured, a key in the environment picks a sensible default. */
function routeFromEnvironment(env: NodeJS.ProcessEnv): ModelRoute | undefined {
  if (env.ANTHROPIC_API_KEY)
    return { type: 'anthropic', model: DEFAULT_MODELS.anthropic, apiKey: env.ANTHROPIC_API_KEY };
  if (env.OPENAI_API_KEY) return { type: 'openai', model: DEFAULT_MODELS.openai, apiKey: env.OPENAI_API_KEY };
  return undefined;
}

export function aliasRoute(config: Config, alias: string, env: NodeJS.ProcessEnv): ModelRoute | undefined {
  const entry = ownValue(config.providers, alias);
  return entry ? routeFromAlias(alias, entry, env) : undefined;
}

/**
 * A model reference is a `providers` alias (its whole route) or a literal model name on `base` (SPEC 4.2).
 */
export function resolveModelReference(
  reference: string,
  base: ModelRoute,
  config: Config,
  env: NodeJS.ProcessEnv,
  imported = false,
): ModelRoute {
  const ref = resolveModelRef(reference, config, imported);
  if (ref.kind === 'parent') return base;
  return ref.kind === 'alias' ? routeFromAlias(ref.alias, ref.provider, env) : { ...base, model: ref.model };
}

/** The main loop's route: `--provider`/`provider`, then `--model`/`model` on top (SPEC 1, 2.2). */
export function resolveMainRoute(
  config: Config,
  flags: { provider?: string; model?: string },
  env: NodeJS.ProcessEnv,
): ModelRoute {
  const providerName = flags.provider ?? config.provider ?? undefined;
  let route: ModelRoute | undefined;
  if (providerName) {
    route = aliasRoute(config, providerName, env);
    if (!route) {
      const known = Object.keys(config.providers ?? {});
      throw new ConfigError(
        `unknown provider alias "${providerName}"; configured aliases: ${known.length ? known.join(', ') : '(none)'}`,
      );
    }
  } else {
    const only = Object.entries(config.providers ?? {});
    route = only.length === 1 ? routeFromAlias(only[0][0], only[0][1], env) : routeFromEnvironment(env);
  }
  const modelRef = flags.model ?? config.model ?? undefined;
  if (!route) {
    const aliased = modelRef === undefined ? undefined : ownValue(config.providers, modelRef);
    if (modelRef && aliased) return routeFromAlias(modelRef, aliased, env);
    throw new ConfigError(
      'no model provider configured: set "provider" and "providers" in $CADRE_CONFIG_DIR/config.json ' +
        'or .cadre/config.json, or export ANTHROPIC_API_KEY or OPENAI_API_KEY (see README, "Providers")',
    );
  }
  return modelRef ? resolveModelReference(modelRef, route, config, env) : route;
}

export function describeRoute(route: ModelRoute): string {
  return route.alias ? `${route.alias} (${route.type}:${route.model})` : `${route.type}:${route.model}`;
}
