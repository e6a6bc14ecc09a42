import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Profile, ProfileSource } from '../types.js';

/** Where a profile lives, for listings grouped by scope (SPEC 11). */
export type Scope = 'project' | 'global' | 'mission' | 'claude' | 'config' | 'builtin';

export const SCOPE_ORDER: readonly Scope[] = ['project', 'global', 'mission', 'claude', 'config', 'builtin'];

const SCOPE_OF: Readonly<Record<ProfileSource, Scope>> = {
  project: 'project',
  'project-skill': 'project',
  global: 'global',
  'global-skill': 'global',
  mission: 'mission',
  claude: 'claude',
  config: 'config',
  builtin: 'builtin',
};

export function scopeOf(source: ProfileSource): Scope {
  return SCOPE_OF[source];
}

/** The fields `cadre subagent create|edit` write, by the flag that sets them. */
export const EDITOR_FIELDS = ['description', 'prompt', 'model', 'effort', 'tools', 'color'] as const;
export type EditorField = (typeof EDITOR_FIELDS)[number];

/** Frontmatter keys of each editable field: the first is written, any present one is edited in place. */
export const FIELD_KEYS: Readonly<Record<Exclude<EditorField, 'prompt'>, readonly string[]>> = {
  description: ['description'],
  model: ['model'],
  effort: ['effort', 'reasoning'],
  tools: ['allowed-tools', 'allow_tools', 'tools'],
  color: ['color'],
};

/** Every frontmatter key the editors understand; a file with any other key is left to the user. */
export const MANAGED_KEYS: ReadonlySet<string> = new Set([
  'name',
  'invocation',
  'runAs',
  'read-only',
  ...Object.values(FIELD_KEYS).flat(),
]);

/** Skill folders holding these are rich skills: the editors would discard what they cannot see. */
const RICH_SKILL_FOLDERS = ['references', 'scripts'];

/** What the profile editors may do with a profile, and why not when they may not. */
export type EditTarget =
  | { kind: 'file'; path: string; skillFolder?: string }
  | { kind: 'builtin' }
  | { kind: 'refused'; reason: string };

/**
 * Whether `cadre subagent edit|delete` may change this profile (SPEC 11): files in project or global
 * scope whose invocation is manual, whose frontmatter holds only managed keys and whose skill folder has
 * no `references/` or `scripts/`; built-ins through config overrides. `fields` is the file's frontmatter.
 */
export function editTarget(profile: Profile, fields: Record<string, unknown>): EditTarget {
  const scope = scopeOf(profile.source);
  if (profile.source === 'builtin') return { kind: 'builtin' };
  const where = profile.path ?? `config: agents.${profile.name}`;
  if ((scope !== 'project' && scope !== 'global') || profile.path === undefined) {
    return {
      kind: 'refused',
      reason: `"${profile.name}" is a ${profile.source} profile (${where}), outside project and global scope; edit it there directly`,
    };
  }
  if (profile.invocation !== 'manual') {
    return {
      kind: 'refused',
      reason: `"${profile.name}" has invocation: ${profile.invocation}; the editors only change manual profiles: edit ${profile.path} directly`,
    };
  }
  const unmanaged = Object.keys(fields).filter((key) => !MANAGED_KEYS.has(key));
  if (unmanaged.length > 0) {
    return {
      kind: 'refused',
      reason: `${profile.path} has frontmatter the editors do not manage (${unmanaged.join(', ')}); edit the file directly`,
    };
  }
  const isSkill = profile.source === 'project-skill' || profile.source === 'global-skill';
  if (isSkill) {
    const folder = dirname(profile.path);
    const rich = RICH_SKILL_FOLDERS.filter((name) => existsSync(join(folder, name)));
    if (rich.length > 0) {
      return {
        kind: 'refused',
        reason: `${folder} has ${rich.map((r) => `${r}/`).join(' and ')}; the editors leave rich skills alone: edit ${profile.path} directly`,
      };
    }
    return { kind: 'file', path: profile.path, skillFolder: folder };
  }
  return { kind: 'file', path: profile.path };
}
