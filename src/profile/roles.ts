import type { Config } from '../config/schema.js';
import type { LoadWarning } from './types.js';

export const ROLE_KEYS = [
  'subagent_provider',
  'summarization_provider',
  'review_provider',
  'escalation_provider',
  'critic_provider',
  'approval_provider',
] as const;
export type RoleKey = (typeof ROLE_KEYS)[number];

/**
 * Roles that run on the main `provider` when unset; the others are off when unset (SPEC 4.3). Escalation
 * is off: retrying "on a stronger model" that is the same model would only repeat the failure.
 */
const FALLS_BACK_TO_PROVIDER: ReadonlySet<RoleKey> = new Set([
  'subagent_provider',
  'summarization_provider',
  'review_provider',
]);

export interface RoleRoute {
  key: RoleKey;
  /** The alias configured for the role, or null. */
  configured: string | null;
  /** The alias the role actually uses, or null when the role is off / there is no main provider. */
  effective: string | null;
  via: 'configured' | 'provider' | 'off';
}

export interface RoleRouting {
  routes: RoleRoute[];
  /** Unknown aliases, each with the path `config:<key>`. */
  warnings: LoadWarning[];
}

/** Built-in role routing as `/agents` and `cadre agents` show it. Profiles never change it. */
export function resolveRoles(config: Config): RoleRouting {
  const providers = config.providers ?? {};
  const main = config.provider ?? null;
  const warnings: LoadWarning[] = [];
  const routes = ROLE_KEYS.map((key): RoleRoute => {
    const configured = config[key] ?? null;
    if (configured !== null) {
      if (!Object.hasOwn(providers, configured)) {
        warnings.push({ path: `config:${key}`, reason: `unknown provider alias "${configured}"` });
      }
      return { key, configured, effective: configured, via: 'configured' };
    }
    if (FALLS_BACK_TO_PROVIDER.has(key)) return { key, configured, effective: main, via: 'provider' };
    return { key, configured, effective: null, via: 'off' };
  });
  return { routes, warnings };
}
