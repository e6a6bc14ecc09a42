import { z } from 'zod';
import { BUILT_INPUT_SCHEMAS } from '../tool/built-input-schemas.js';
import type { Tool } from '../tool/tool.js';
import { lazySchema } from '../util/lazy-schema.js';
import type { Skill } from './types.js';

const SkillInput = lazySchema(() =>
  z.object({
    name: z.string().min(1).describe('Name of the skill to load, as listed in the skills catalog'),
  }),
);
export type SkillInput = z.infer<typeof SkillInput>;

/** The `skill` tool (SPEC 3.5): returns a skill's instructions. `skills` is read per call so reloads apply. */
export function createSkillTool(skills: () => readonly Skill[]): Tool<SkillInput> {
  return {
    name: 'skill',
    description: 'Load the full instructions of a named skill from the skills catalog.',
    schema: SkillInput,
    inputJsonSchema: BUILT_INPUT_SCHEMAS.skill,
    safety: 'read',
    subject: (input) => ({ kind: 'name', value: input.name }),
    async execute(input) {
      const all = skills();
      const skill = all.find((s) => s.name === input.name);
      if (!skill) {
        const known = all.map((s) => s.name).join(', ') || '(none)';
        return { output: `Unknown skill "${input.name}". Known skills: ${known}`, isError: true };
      }
      return { output: skill.body };
    },
  };
}
