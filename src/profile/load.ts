import { join } from 'node:path';
import type { Config } from '../config/schema.js';
import { runsAsSubagent, scanSkillDir } from '../skill/discover.js';
import { collectSkills } from '../skill/load.js';
import type { Skill, SkillFile } from '../skill/types.js';
import { builtinProfiles } from './builtin.js';
import { loadConfigProfiles } from './config-source.js';
import {
  type FileOutcome,
  loadProfileFile,
  loadSkillProfile,
  markdownFiles,
  type NameRule,
} from './file-source.js';
import { unservedFamilyWarning } from './model-routing.js';
import type { Collision, LoadWarning, Profile, ProfileSource } from './types.js';

export interface LoadProfilesOptions {
  projectRoot: string;
  /** `$CADRE_CONFIG_DIR`. */
  globalDir: string;
  /** The user's home, for `~/.claude/agents`. */
  home: string;
  config?: Config;
  /** The config files read (LoadedConfig.files), to cite config profiles' permission rules. */
  configFiles?: readonly { path: string; text: string }[];
}

export interface ProfileRegistry {
  /** Winning profile per name, sorted by name. */
  profiles: Map<string, Profile>;
  collisions: Collision[];
  /** One entry per problem file, in load order. */
  warnings: LoadWarning[];
  /** Skills not run as subagents, project over global (SPEC 3.5). */
  skills: Skill[];
}

function fromDir(dir: string, source: ProfileSource, rule: NameRule, warnings: LoadWarning[]): FileOutcome[] {
  return markdownFiles(dir, warnings).map((path) => loadProfileFile(path, source, rule));
}

/**
 * Loads every profile source of SPEC 3.1 in precedence order; the first profile of a name wins and
 * each later one is recorded as a collision loser. Never throws for bad input: each file that cannot
 * become a profile yields one warning.
 */
export function loadProfiles(opts: LoadProfilesOptions): ProfileRegistry {
  const warnings: LoadWarning[] = [];
  const projectSkills = scanSkillDir(join(opts.projectRoot, '.cadre', 'skills'), 'project');
  const globalSkills = scanSkillDir(join(opts.globalDir, 'skills'), 'global');
  warnings.push(...projectSkills.warnings, ...globalSkills.warnings);
  const missionRepo = opts.config?.mission_repo;
  // `disabled_skills` turns a skill off everywhere: catalog, `skill` tool, force-loading, runAs profiles.
  const disabled = new Set(opts.config?.disabled_skills ?? []);
  const enabled = (file: SkillFile) => !disabled.has(file.folder);

  const candidates: FileOutcome[] = [
    ...fromDir(join(opts.projectRoot, '.cadre', 'agents'), 'project', 'stem', warnings),
    ...projectSkills.files
      .filter((f) => runsAsSubagent(f) && enabled(f))
      .map((f) => loadSkillProfile(f, 'project-skill')),
    ...fromDir(join(opts.globalDir, 'agents'), 'global', 'stem', warnings),
    ...globalSkills.files
      .filter((f) => runsAsSubagent(f) && enabled(f))
      .map((f) => loadSkillProfile(f, 'global-skill')),
    ...(missionRepo
      ? fromDir(join(missionRepo, 'orchestrator', 'roles'), 'mission', 'name-required', warnings)
      : []),
    ...fromDir(join(opts.projectRoot, '.claude', 'agents'), 'claude', 'name-or-stem', warnings),
    ...fromDir(join(opts.home, '.claude', 'agents'), 'claude', 'name-or-stem', warnings),
    ...(opts.config ? loadConfigProfiles(opts.config, opts.configFiles) : []),
    ...builtinProfiles().map((profile) => ({ profile })),
  ];

  const winners = new Map<string, Profile>();
  const collisions = new Map<string, Collision>();
  for (const { profile, warning } of candidates) {
    if (warning) warnings.push(warning);
    if (!profile) continue;
    const winner = winners.get(profile.name);
    if (!winner) {
      winners.set(profile.name, profile);
      continue;
    }
    const collision = collisions.get(profile.name) ?? {
      name: profile.name,
      winner: originOf(winner),
      losers: [],
    };
    collision.losers.push(originOf(profile));
    collisions.set(profile.name, collision);
  }

  const skills = collectSkills([...projectSkills.files, ...globalSkills.files].filter(enabled));
  warnings.push(...skills.warnings);
  for (const [name, profile] of winners) {
    // A disabled skill is dropped quietly: the user asked for that; only a name matching nothing warns.
    const kept = profile.skills.filter((skill) => !disabled.has(skill));
    const missing = kept.filter((skill) => !skills.skills.some((s) => s.name === skill));
    if (kept.length !== profile.skills.length) winners.set(name, { ...profile, skills: kept });
    if (missing.length === 0) continue;
    winners.set(name, { ...profile, skills: kept.filter((skill) => !missing.includes(skill)) });
    const reason = missing
      .map((skill) => `profile "${name}": skill "${skill}" not found; dropped`)
      .join('; ');
    addWarning(warnings, profile.path ?? `config:agents.${name}`, reason);
  }
  for (const profile of winners.values()) {
    const unserved = opts.config && unservedFamilyWarning(profile, opts.config);
    if (unserved) addWarning(warnings, profile.path ?? `config:agents.${profile.name}`, unserved);
  }
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return {
    profiles: new Map([...winners.entries()].sort(([a], [b]) => byName(a, b))),
    collisions: [...collisions.values()].sort((a, b) => byName(a.name, b.name)),
    warnings,
    skills: skills.skills,
  };
}

/** Keeps one warning entry per file: a later problem with the same file joins the earlier entry. */
function addWarning(warnings: LoadWarning[], path: string, reason: string): void {
  const existing = warnings.find((w) => w.path === path);
  if (existing) existing.reason = `${existing.reason}; ${reason}`;
  else warnings.push({ path, reason });
}

function originOf(profile: Profile): { source: ProfileSource; path?: string } {
  return profile.path === undefined
    ? { source: profile.source }
    : { source: profile.source, path: profile.path };
}

/** Profile names in listing order, for "known names" messages. */
export function profileNames(registry: ProfileRegistry): string[] {
  return [...registry.profiles.keys()];
}
