import { join } from 'node:path';
import { PROFILE_NAME_PATTERN } from '../profile/names.js';
import { stringList } from '../profile/tool-lists.js';
import type { LoadWarning } from '../profile/types.js';
import { runsAsSubagent, scanSkillDir } from './discover.js';
import type { Skill, SkillFile } from './types.js';

/** Skill frontmatter keys (SPEC 3.5), plus `runAs` and the Agent Skills keys skills commonly carry. */
const SKILL_KEYS: ReadonlySet<string> = new Set([
  'name',
  'description',
  'invocation',
  'applies_to',
  'runAs',
  'allowed-tools',
  'license',
  'metadata',
  'version',
]);

export type SkillResult = { ok: true; skill: Skill; notes: string[] } | { ok: false; reason: string };

/** Interprets one SKILL.md as a skill; `name`, when given, must equal its folder. */
export function toSkill(file: SkillFile): SkillResult {
  const { fields } = file;
  if (!PROFILE_NAME_PATTERN.test(file.folder)) {
    return {
      ok: false,
      reason: `invalid skill folder name "${file.folder}": must match ${PROFILE_NAME_PATTERN.source}`,
    };
  }
  if (fields.name !== undefined && fields.name !== file.folder) {
    return {
      ok: false,
      reason: `name ${JSON.stringify(fields.name)} does not match its folder "${file.folder}"`,
    };
  }
  const description = fields.description;
  if (description !== undefined && typeof description !== 'string') {
    return { ok: false, reason: '"description" must be a string' };
  }
  const invocation = fields.invocation ?? 'auto';
  if (invocation !== 'auto' && invocation !== 'manual') {
    return {
      ok: false,
      reason: `invalid "invocation" ${JSON.stringify(invocation)} (expected manual or auto)`,
    };
  }
  const appliesTo = fields.applies_to === undefined ? undefined : stringList(fields.applies_to);
  if (fields.applies_to !== undefined && !appliesTo) {
    return { ok: false, reason: '"applies_to" must be a list of profile names' };
  }
  if (file.body === '') return { ok: false, reason: 'empty skill: no instructions in the body' };
  const unknown = Object.keys(fields).filter((k) => !SKILL_KEYS.has(k));
  const notes = [...file.notes];
  if (unknown.length > 0) notes.push(`unknown key(s) ignored: ${unknown.join(', ')}`);
  const skill: Skill = {
    name: file.folder,
    description: description?.trim() || undefined,
    invocation,
    appliesTo,
    body: file.body,
    path: file.path,
    scope: file.scope,
  };
  return { ok: true, skill, notes };
}

export interface SkillSet {
  /** By name; a project skill hides a global one of the same name. */
  skills: Skill[];
  warnings: LoadWarning[];
}

/** Builds the skill set from scanned files, project scope first; subagent skills are left to profiles. */
export function collectSkills(files: SkillFile[]): SkillSet {
  const byName = new Map<string, Skill>();
  const warnings: LoadWarning[] = [];
  for (const file of files) {
    if (runsAsSubagent(file)) continue;
    const result = toSkill(file);
    if (!result.ok) {
      warnings.push({ path: file.path, reason: result.reason });
      continue;
    }
    if (result.notes.length > 0) warnings.push({ path: file.path, reason: result.notes.join('; ') });
    if (!byName.has(result.skill.name)) byName.set(result.skill.name, result.skill);
  }
  return { skills: [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1)), warnings };
}

/** Discovers project and global skills (`<dir>/skills/<name>/SKILL.md`). */
export function loadSkills(opts: { projectRoot: string; globalDir: string }): SkillSet {
  const project = scanSkillDir(join(opts.projectRoot, '.cadre', 'skills'), 'project');
  const global = scanSkillDir(join(opts.globalDir, 'skills'), 'global');
  const collected = collectSkills([...project.files, ...global.files]);
  return {
    skills: collected.skills,
    warnings: [...project.warnings, ...global.warnings, ...collected.warnings],
  };
}
