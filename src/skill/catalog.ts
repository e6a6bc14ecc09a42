import type { Skill } from './types.js';

/** Whether an auto skill is offered under the active profile (`default` when none is active). */
export function skillApplies(skill: Skill, profileName: string | undefined): boolean {
  return skill.appliesTo === undefined || skill.appliesTo.includes(profileName ?? 'default');
}

/**
 * The system-prompt section listing auto skills by name and description (SPEC 3.5). Sorted by name so
 * the prompt prefix stays byte-identical across turns; empty when there is nothing to list.
 */
export function skillCatalogText(
  skills: readonly Skill[],
  profileName?: string,
  exclude: readonly string[] = [],
): string {
  const listed = skills
    .filter((s) => s.invocation === 'auto' && skillApplies(s, profileName) && !exclude.includes(s.name))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  if (listed.length === 0) return '';
  const lines = listed.map((s) => `- ${s.name}${s.description ? `: ${s.description}` : ''}`);
  return [
    '# Skills',
    'Load a skill with the `skill` tool when the task matches its description:',
    ...lines,
  ].join('\n');
}

/** A skill's instructions as placed into a system prompt when force-loaded by a profile. */
export function skillSection(skill: Skill): string {
  return `# Skill: ${skill.name}\n${skill.body}`;
}

/**
 * The sections of the skills a profile force-loads, in its order, for a `task` child's prompt (issue 16
 * B6, extending SPEC 7.2). Names without a skill were already dropped with a warning at load.
 */
export function forcedSkillSections(names: readonly string[], skills: readonly Skill[]): string[] {
  return names.flatMap((name) => {
    const skill = skills.find((s) => s.name === name);
    return skill ? [skillSection(skill)] : [];
  });
}
