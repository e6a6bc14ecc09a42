import { parseFrontmatter } from '../../../profile/frontmatter.js';
import {
  type AgentJson,
  type AgentsJson,
  agentsJson,
  collisionAndWarningLines,
  describeRoute,
} from '../../../profile/listing.js';
import {
  EDITOR_FIELDS,
  editTarget,
  SCOPE_ORDER,
  type Scope,
  scopeOf,
} from '../../../profile/manage/editable.js';
import { readTextFile } from '../../../profile/read-file.js';
import { resolveRoles } from '../../../profile/roles.js';
import type { Profile } from '../../../profile/types.js';
import type { Workspace } from '../../bootstrap.js';
import { openProject } from './context.js';

/** One profile as `cadre subagent list --json` shows it: `cadre agents`' entry plus scope and editability. */
export interface ListedProfile extends AgentJson {
  scope: Scope;
  effort: string | null;
  /** Per-profile config overrides (`subagent_models.<name>`, `subagent_efforts.<name>`), which win under `task`. */
  config_model: string | null;
  config_effort: string | null;
  color: string | null;
  invocation: string;
  /** The fields `cadre subagent edit` may change: all, `model`/`effort` for built-ins, or none. */
  editable_fields: string[];
  /** Why the editors leave it alone (null when they may change it). */
  not_editable: string | null;
}

export type SubagentListJson = Omit<AgentsJson, 'profiles'> & { profiles: ListedProfile[] };

function editability(profile: Profile): { fields: string[]; reason: string | null } {
  if (profile.source === 'builtin') return { fields: ['model', 'effort'], reason: null };
  let frontmatter: Record<string, unknown> = {};
  if (profile.path) {
    const read = readTextFile(profile.path);
    const parsed = read.ok ? parseFrontmatter(read.text) : undefined;
    if (!parsed?.ok) return { fields: [], reason: `${profile.path} cannot be read again; edit it directly` };
    frontmatter = parsed.value.fields;
  }
  const target = editTarget(profile, frontmatter);
  return target.kind === 'refused'
    ? { fields: [], reason: target.reason }
    : { fields: [...EDITOR_FIELDS], reason: null };
}

function ownEntry(map: Record<string, string> | undefined, name: string): string | null {
  return map && Object.hasOwn(map, name) ? map[name] : null;
}

/** Every profile, grouped by scope (SPEC 11), with the same data as `cadre agents --json`. */
export function subagentListJson(workspace: Workspace): SubagentListJson {
  const config = workspace.loaded.config;
  const registry = { ...workspace.profiles, warnings: workspace.warnings };
  const base = agentsJson(registry, resolveRoles(config), config);
  const profiles = base.profiles.map((entry): ListedProfile => {
    const profile = workspace.profiles.profiles.get(entry.name) as Profile;
    const edit = editability(profile);
    return {
      ...entry,
      scope: scopeOf(profile.source),
      effort: profile.effort ?? null,
      config_model: ownEntry(config.subagent_models, profile.name),
      config_effort: ownEntry(config.subagent_efforts, profile.name),
      color: profile.color ?? null,
      invocation: profile.invocation,
      editable_fields: edit.fields,
      not_editable: edit.reason,
    };
  });
  profiles.sort((a, b) => SCOPE_ORDER.indexOf(a.scope) - SCOPE_ORDER.indexOf(b.scope));
  return { ...base, profiles };
}

const SCOPE_TITLES: Record<Scope, string> = {
  project: 'Project',
  global: 'Global',
  mission: 'Mission repo',
  claude: 'Claude Code agents',
  config: 'Config',
  builtin: 'Built-in',
};

function describeEdit(p: ListedProfile): string {
  if (p.not_editable !== null) return 'edit: no';
  return p.editable_fields.length === EDITOR_FIELDS.length
    ? 'edit: yes'
    : `edit: ${p.editable_fields.join(', ')} only`;
}

export function formatSubagentList(doc: SubagentListJson, workspace: Workspace): string {
  const lines: string[] = [];
  const width = Math.max(4, ...doc.profiles.map((p) => p.name.length));
  const dirs: Partial<Record<Scope, string>> = {
    project: workspace.loaded.projectRoot,
    global: workspace.loaded.globalDir,
  };
  for (const scope of SCOPE_ORDER) {
    const group = doc.profiles.filter((p) => p.scope === scope);
    if (group.length === 0) continue;
    if (lines.length > 0) lines.push('');
    lines.push(`${SCOPE_TITLES[scope]}${dirs[scope] ? ` (${dirs[scope]})` : ''}:`);
    for (const p of group) {
      const tools = [
        p.allow_tools ? `tools: ${p.allow_tools.join(',') || '(none)'}` : '',
        p.deny_tools.length > 0 ? `deny: ${p.deny_tools.join(',')}` : '',
      ].filter((s) => s !== '');
      const model = p.config_model ? `${p.config_model} (subagent_models)` : describeRoute(p.route);
      const effortValue = p.config_effort ? `${p.config_effort} (subagent_efforts)` : p.effort;
      const effort = effortValue ? `  effort: ${effortValue}` : '';
      lines.push(
        `  ${p.name.padEnd(width)}  ${p.source.padEnd(13)}  model: ${model}${effort}  tier: ${p.tier}${tools.map((t) => `  ${t}`).join('')}  ${describeEdit(p)}`,
      );
      if (p.description) lines.push(`  ${' '.repeat(width)}  ${p.description}`);
      if (p.not_editable) lines.push(`  ${' '.repeat(width)}  (${p.not_editable})`);
    }
  }
  lines.push(...collisionAndWarningLines(doc));
  return `${lines.join('\n')}\n`;
}

/** `cadre subagent list [--dir PATH] [--json]`. */
export async function runListCommand(options: {
  json?: boolean;
  dir?: string;
  cwd?: string;
}): Promise<number> {
  const workspace = openProject(options);
  const doc = subagentListJson(workspace);
  process.stdout.write(
    options.json ? `${JSON.stringify(doc, null, 2)}\n` : formatSubagentList(doc, workspace),
  );
  return 0;
}
