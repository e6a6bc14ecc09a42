import { realpathSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { ROLE_KEYS } from '../profile/roles.js';
import type { Config, McpServerConfig, ProviderAlias } from './schema.js';

/**
 * What a cloned repository may do (issue 15 point 6, SPEC 6.4). A repository's own config is written by
 * whoever wrote the repository; until the user trusts the project it cannot loosen the walls, reroute the
 * user's providers and keys, or start anything by itself. Pure functions over parsed configs: the loader
 * applies them, the CLI and the first-start question describe what they left out.
 */

/** Keys only the global config (or a trusted project) sets: each one loosens a wall or picks a route. */
export const WALL_KEYS = [
  'sandbox',
  'sandbox_hide',
  'sandbox_env_allow',
  'sandbox_network',
  'workers',
  'trusted_roots',
  ...ROLE_KEYS,
] as const;

/** List keys a project adds to rather than replaces, trusted or not. */
export const ADDITIVE_LIST_KEYS = ['sandbox_hide', 'sandbox_env_allow', 'trusted_roots'] as const;

/** What a user-defined provider keeps whatever the project says: where requests go and what they carry. */
const PROVIDER_ROUTE_FIELDS = ['type', 'base_url', 'headers', 'api_key', 'api_key_env', 'script'] as const;

/** One thing an untrusted project's config asked for and did not get. */
export type UntrustedItem =
  | { kind: 'mcp_server'; name: string; launch: string }
  | { kind: 'key'; key: string }
  | { kind: 'provider_route'; alias: string; fields: string[] }
  | { kind: 'provider_key'; alias: string; env?: string }
  | { kind: 'route'; key: RouteKey; alias: string };

/** Keys (besides the role keys) whose value picks a provider alias for the main loop or subagents. */
const ROUTE_KEYS = ['provider', 'model', 'subagent_model'] as const;
type RouteKey = (typeof ROUTE_KEYS)[number] | `subagent_models.${string}`;

/** `npx db-server --port 1` or the server's URL: exactly what would start or be connected to. */
export function mcpLaunch(server: McpServerConfig): string {
  if ('url' in server) return server.url;
  return [server.command, ...(server.args ?? [])].join(' ');
}

/** Whether an item runs something by itself at start (the first-start question is asked for these). */
export function startsByItself(item: UntrustedItem): boolean {
  return item.kind === 'mcp_server';
}

/**
 * The project config as an untrusted project may have it, and what was left out. `global` is the user's
 * own config: a provider alias it defines keeps its route; one only the project defines gets no key
 * the user exported in `env` (an explicit empty key, so the SDK does not fall back to the environment's
 * either).
 */
export function confineProjectConfig(
  global: Config,
  project: Config,
  env: NodeJS.ProcessEnv = {},
): { config: Config; skipped: UntrustedItem[] } {
  const skipped: UntrustedItem[] = [];
  let config: Record<string, unknown> = { ...project };
  for (const [name, server] of Object.entries(project.mcp_servers ?? {})) {
    skipped.push({ kind: 'mcp_server', name, launch: mcpLaunch(server) });
  }
  delete config.mcp_servers;
  for (const key of WALL_KEYS) {
    if (!Object.hasOwn(project, key)) continue;
    skipped.push({ kind: 'key', key });
    delete config[key];
  }
  const projectOnly = projectOnlyAliases(global, project);
  // A user with a route of their own keeps it: the project's alias cannot take the main, a role or the
  // subagent route. With none, the project's keyless alias is the only route there is, and may run.
  const userRoutes = global.provider != null || Object.keys(global.providers ?? {}).length > 0;
  if (userRoutes) config = withoutProjectRoutes(config as Config, projectOnly, skipped);
  if (project.providers) {
    const providers: Record<string, ProviderAlias> = {};
    for (const [alias, entry] of Object.entries(project.providers)) {
      const userDefined = global.providers !== undefined && Object.hasOwn(global.providers, alias);
      providers[alias] = userDefined
        ? keepUserRoute(alias, entry, global.providers?.[alias] as ProviderAlias, skipped)
        : withoutUserKey(alias, entry, env, skipped);
    }
    config.providers = providers;
  }
  return { config: config as Config, skipped };
}

/** Provider aliases only the project defines: its own routes, which an untrusted project may not pick. */
function projectOnlyAliases(global: Config, project: Config): string[] {
  return Object.keys(project.providers ?? {}).filter(
    (alias) => !Object.hasOwn(global.providers ?? {}, alias),
  );
}

/**
 * The project's route keys (main, subagent) that name an alias only the project defines (issue 15
 * point 6c): the project would decide where the session goes. Role keys never get here: they are wall
 * keys.
 */
function withoutProjectRoutes(
  project: Config,
  projectOnly: readonly string[],
  skipped: UntrustedItem[],
): Record<string, unknown> {
  const named = (value: unknown): value is string => typeof value === 'string' && projectOnly.includes(value);
  const config: Record<string, unknown> = { ...project };
  for (const key of ROUTE_KEYS) {
    const alias = project[key];
    if (!named(alias)) continue;
    skipped.push({ kind: 'route', key, alias });
    delete config[key];
  }
  if (project.subagent_models) {
    const models: Record<string, string> = {};
    for (const [name, alias] of Object.entries(project.subagent_models)) {
      if (named(alias)) skipped.push({ kind: 'route', key: `subagent_models.${name}`, alias });
      else models[name] = alias;
    }
    config.subagent_models = models;
  }
  return config;
}

function keepUserRoute(
  alias: string,
  entry: ProviderAlias,
  user: ProviderAlias,
  skipped: UntrustedItem[],
): ProviderAlias {
  const fields = PROVIDER_ROUTE_FIELDS.filter(
    (field) => entry[field] !== undefined && JSON.stringify(entry[field]) !== JSON.stringify(user[field]),
  );
  if (fields.length > 0) skipped.push({ kind: 'provider_route', alias, fields: [...fields] });
  const kept: Partial<ProviderAlias> = { ...entry };
  for (const field of PROVIDER_ROUTE_FIELDS) delete kept[field];
  // The merge fills the rest from the user's alias; `type` is required only of a whole alias.
  return kept as ProviderAlias;
}

/** The variable each SDK reads when no key is given. */
const SDK_KEY_ENV: Partial<Record<ProviderAlias['type'], string>> = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
};

/**
 * A project's own alias keeps a key of the user's only where it goes where that key always goes: the
 * SDK's own API (no `base_url`, no headers) with the SDK's own variable. Anything else loses it.
 */
function withoutUserKey(
  alias: string,
  entry: ProviderAlias,
  env: NodeJS.ProcessEnv,
  skipped: UntrustedItem[],
): ProviderAlias {
  if (entry.api_key !== undefined) return entry;
  const sdkVariable = SDK_KEY_ENV[entry.type];
  const redirected = entry.base_url !== undefined || entry.headers !== undefined;
  const envKey = entry.api_key_env ?? (redirected ? sdkVariable : undefined);
  if (envKey === undefined || (!redirected && envKey === sdkVariable)) return entry;
  // Nothing exported, nothing to withhold: the route reports the missing variable as it always does.
  if (!env[envKey]) return entry;
  skipped.push({ kind: 'provider_key', alias, env: envKey });
  const { api_key_env: _dropped, ...rest } = entry;
  return { ...rest, api_key: '' };
}

/** One phrase per item: what trusting would do (`trusted`), or what was left out (`skipped`). */
export function describeUntrusted(items: readonly UntrustedItem[], mode: 'trusted' | 'skipped'): string[] {
  return items.map((item) => {
    switch (item.kind) {
      case 'mcp_server':
        return mode === 'trusted'
          ? `MCP server "${item.name}" (${item.launch}) starts`
          : `MCP server "${item.name}" (${item.launch}) not started`;
      case 'key':
        return mode === 'trusted' ? `"${item.key}" applies` : `"${item.key}" ignored`;
      case 'provider_route':
        return mode === 'trusted'
          ? `provider "${item.alias}" (yours): its ${item.fields.join(', ')} from the project apply`
          : `provider "${item.alias}" (yours): the project's ${item.fields.join(', ')} ignored`;
      case 'provider_key': {
        const from = item.env ? `$${item.env}` : 'your environment';
        return mode === 'trusted'
          ? `provider "${item.alias}" (the project's) may use the key in ${from}`
          : `provider "${item.alias}" (the project's) gets no key from ${from}`;
      }
      case 'route':
        return mode === 'trusted'
          ? `"${item.key}": "${item.alias}" (the project's provider) is used`
          : `"${item.key}": "${item.alias}" ignored (the project's own provider does not replace your routes)`;
    }
    return '';
  });
}

/** How to trust `root`, for messages. */
export function howToTrust(root: string): string {
  return `trust it with \`cadre trust ${root}\` (or --trust-project for one run)`;
}

/** The one start-up warning of an untrusted project whose config asked for more than it got. */
export function untrustedWarning(root: string, items: readonly UntrustedItem[]): string | undefined {
  if (items.length === 0) return undefined;
  return `the project is not trusted; from its config: ${describeUntrusted(items, 'skipped').join('; ')}. To allow them, ${howToTrust(root)}`;
}

/** The real path of a directory, or the resolved path when it cannot be resolved. */
export function realRoot(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}

function within(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);
}

/** A project is trusted when its root is a trusted root or lies inside one (both compared as real paths). */
export function isTrustedRoot(projectRoot: string, trustedRoots: readonly string[] | undefined): boolean {
  if (!trustedRoots || trustedRoots.length === 0) return false;
  const root = realRoot(projectRoot);
  return trustedRoots.some((trusted) => within(root, realRoot(trusted)));
}
