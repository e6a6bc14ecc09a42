export type SkillScope = 'project' | 'global';

/** A skill (SPEC 3.5): instructions loaded into the conversation on demand or by a profile. */
export interface Skill {
  name: string;
  description?: string;
  /** `auto` skills are listed in the model's catalog; `manual` ones only load when named. */
  invocation: 'manual' | 'auto';
  /** Profiles the skill is offered under; absent means every profile. */
  appliesTo?: string[];
  body: string;
  path: string;
  scope: SkillScope;
}

/** One `<dir>/skills/<folder>/SKILL.md`, read and split, not yet interpreted. */
export interface SkillFile {
  folder: string;
  path: string;
  text: string;
  fields: Record<string, unknown>;
  body: string;
  scope: SkillScope;
  /** YAML warnings from the frontmatter. */
  notes: string[];
}
