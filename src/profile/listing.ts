import type { Config } from '../config/schema.js';
import type { ProfileRegistry } from './load.js';
import { isImportedSource, resolveModelRef } from './model-routing.js';
import type { RoleKey, RoleRouting } from './roles.js';
import type { Collision, LoadWarning, Profile, ProfileSource, Tier } from './types.js';

/** Where a profile's model calls go; secrets (keys, headers) are never listed. */
export type ProfileRoute =
  | { kind: 'alias'; alias: string; type: string; model: string | null; base_url: string | null }
  | { kind: 'literal'; model: string }
  | null;

export interface AgentJson {
  name: string;
  source: ProfileSource;
  path: string | null;
  model: string | null;
  route: ProfileRoute;
  tier: Tier;
  allow_tools: string[] | null;
  deny_tools: string[];
  description: string | null;
}

/** The `cadre agents --json` document (SPEC 1). */
export interface AgentsJson {
  profiles: AgentJson[];
  collisions: { name: string; winner: Origin; losers: Origin[] }[];
  warnings: LoadWarning[];
  roles: Record<RoleKey, string | null>;
}

interface Origin {
  source: ProfileSource;
  path: string | null;
}

function routeOf(profile: Profile, config: Config): ProfileRoute {
  if (profile.model === undefined) return null;
  const ref = resolveModelRef(profile.model, config, isImportedSource(profile.source));
  if (ref.kind === 'parent') return null;
  if (ref.kind === 'literal') return ref;
  return {
    kind: 'alias',
    alias: ref.alias,
    type: ref.provider.type,
    model: ref.provider.model ?? null,
    base_url: ref.provider.base_url ?? null,
  };
}

function origin(o: { source: ProfileSource; path?: string }): Origin {
  return { source: o.source, path: o.path ?? null };
}

function collisionJson(c: Collision): AgentsJson['collisions'][number] {
  return { name: c.name, winner: origin(c.winner), losers: c.losers.map(origin) };
}

export function agentsJson(registry: ProfileRegistry, roles: RoleRouting, config: Config = {}): AgentsJson {
  const profiles = [...registry.profiles.values()].map(
    (p): AgentJson => ({
      name: p.name,
      source: p.source,
      path: p.path ?? null,
      model: p.model ?? null,
      route: routeOf(p, config),
      tier: p.tier,
      allow_tools: p.allowTools ?? null,
      deny_tools: p.denyTools,
      description: p.description ?? null,
    }),
  );
  const roleMap = Object.fromEntries(roles.routes.map((r) => [r.key, r.configured])) as Record<
    RoleKey,
    string | null
  >;
  return {
    profiles,
    collisions: registry.collisions.map(collisionJson),
    warnings: [...registry.warnings, ...roles.warnings],
    roles: roleMap,
  };
}

/** A profile's route in one phrase, for listings. */
export function describeRoute(route: ProfileRoute): string {
  if (route === null) return 'main model';
  if (route.kind === 'literal') return route.model;
  return `${route.alias} (${route.type}${route.model ? ` ${route.model}` : ''})`;
}

function describeOrigin(o: Origin): string {
  return o.path ? `${o.source} ${o.path}` : o.source;
}

/** The collisions and load warnings of a listing, each section after a blank line; none when empty. */
export function collisionAndWarningLines(doc: Pick<AgentsJson, 'collisions' | 'warnings'>): string[] {
  const lines: string[] = [];
  if (doc.collisions.length > 0) {
    lines.push('', 'Collisions:');
    for (const c of doc.collisions) {
      lines.push(
        `  ${c.name}: ${describeOrigin(c.winner)} wins over ${c.losers.map(describeOrigin).join('; ')}`,
      );
    }
  }
  if (doc.warnings.length > 0) {
    lines.push('', 'Warnings:');
    for (const w of doc.warnings) lines.push(`  ${w.path}: ${w.reason}`);
  }
  return lines;
}

/** The human listing for `cadre agents` and `/agents`; `active` is marked with `*`. */
export function formatAgentsText(
  registry: ProfileRegistry,
  roles: RoleRouting,
  config: Config = {},
  active?: string,
): string {
  const doc = agentsJson(registry, roles, config);
  const lines: string[] = ['Profiles:'];
  const width = Math.max(4, ...doc.profiles.map((p) => p.name.length));
  for (const p of doc.profiles) {
    const mark = p.name === active ? '*' : ' ';
    const tools = [
      p.allow_tools ? `allow ${p.allow_tools.join(',') || '(none)'}` : '',
      p.deny_tools.length > 0 ? `deny ${p.deny_tools.join(',')}` : '',
    ].filter((s) => s !== '');
    lines.push(
      `${mark} ${p.name.padEnd(width)}  ${p.source.padEnd(13)}  model: ${describeRoute(p.route)}  tier: ${p.tier}${tools.length > 0 ? `  ${tools.join('  ')}` : ''}`,
    );
    if (p.description) lines.push(`  ${' '.repeat(width)}  ${p.description}`);
  }
  lines.push(...collisionAndWarningLines(doc));
  lines.push('', 'Role routing:');
  const keyWidth = Math.max(...roles.routes.map((r) => r.key.length));
  for (const r of roles.routes) {
    const shown =
      r.via === 'configured'
        ? (r.configured ?? '')
        : r.via === 'provider'
          ? `(unset: uses provider ${r.effective ?? '(none)'})`
          : '(unset: off)';
    lines.push(`  ${r.key.padEnd(keyWidth)}  ${shown}`);
  }
  return `${lines.join('\n')}\n`;
}
