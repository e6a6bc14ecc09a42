import type { Config, ProviderAlias } from '../config/schema.js';

export type ModelRef =
  | { kind: 'alias'; alias: string; provider: ProviderAlias }
  | { kind: 'literal'; model: string };

/**
 * A profile's `model` (SPEC 4.2): a `providers` alias takes that alias's whole route (type, URL, key,
 * model); anything else is a model name used verbatim on the current provider.
 */
export function resolveModelRef(ref: string, config: Config): ModelRef {
  const providers = config.providers ?? {};
  if (Object.hasOwn(providers, ref)) return { kind: 'alias', alias: ref, provider: providers[ref] };
  return { kind: 'literal', model: ref };
}
