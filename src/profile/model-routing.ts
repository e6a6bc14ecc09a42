import type { Config, ProviderAlias } from '../config/schema.js';
import { ownValue } from '../util/own.js';
import type { ProfileSource } from './types.js';

export type ModelRef =
  | { kind: 'alias'; alias: string; provider: ProviderAlias }
  | { kind: 'literal'; model: string }
  /** The parent's model (the main model for a subagent, the configured model for the main agent). */
  | { kind: 'parent' };

/** Sources written for another tool, whose bare family names (`opus`, …) cadre resolves (SPEC 4.2). */
const IMPORTED_SOURCES: ReadonlySet<ProfileSource> = new Set(['claude', 'mission']);

export function isImportedSource(source: ProfileSource | undefined): boolean {
  return source !== undefined && IMPORTED_SOURCES.has(source);
}

/** The current model of each Claude family, used on a configured Anthropic provider. */
export const CLAUDE_FAMILY_MODELS: Readonly<Record<string, string>> = {
  opus: 'claude-opus-4-5',
  sonnet: 'claude-sonnet-4-5',
  haiku: 'claude-haiku-4-5',
};

/** The first configured provider of type `anthropic`, by alias name so the choice is stable. */
function anthropicAlias(config: Config): string | undefined {
  const providers = config.providers ?? {};
  return Object.keys(providers)
    .sort()
    .find((alias) => providers[alias].type === 'anthropic');
}

/**
 * A profile's `model` (SPEC 4.2): a `providers` alias takes that alias's whole route (type, URL, key,
 * model); anything else is a model name used verbatim on the current provider. In imported files
 * (where `inherit` was already read as no model) a bare family name resolves to an alias of that name, else the
 * family's current model on a configured Anthropic provider, else the parent's model (the loader warns).
 */
export function resolveModelRef(ref: string, config: Config, imported = false): ModelRef {
  const provider = ownValue(config.providers, ref);
  if (provider) return { kind: 'alias', alias: ref, provider };
  if (!imported) return { kind: 'literal', model: ref };
  const family = ownValue(CLAUDE_FAMILY_MODELS, ref);
  if (family === undefined) return { kind: 'literal', model: ref };
  const alias = anthropicAlias(config);
  if (alias === undefined) return { kind: 'parent' };
  return {
    kind: 'alias',
    alias,
    provider: { ...ownValue(config.providers, alias), type: 'anthropic', model: family },
  };
}

/** The load warning for an imported family name that nothing configured can serve. */
export function unservedFamilyWarning(
  profile: { model?: string; source: ProfileSource },
  config: Config,
): string | undefined {
  if (!profile.model || !isImportedSource(profile.source)) return undefined;
  if (ownValue(CLAUDE_FAMILY_MODELS, profile.model) === undefined) return undefined;
  if (resolveModelRef(profile.model, config, true).kind !== 'parent') return undefined;
  return `model "${profile.model}": no provider alias of that name and no anthropic provider configured; the parent's model is used`;
}
