import { describe, expect, it } from 'vitest';
import { skillCatalogText } from '../../src/skill/catalog.js';
import type { Skill } from '../../src/skill/types.js';

function skill(name: string, extra: Partial<Skill> = {}): Skill {
  return {
    name,
    invocation: 'auto',
    body: `${name} body`,
    path: `/s/${name}/SKILL.md`,
    scope: 'project',
    ...extra,
  };
}

describe('skillCatalogText', () => {
  const skills = [
    skill('zeta', { description: 'last' }),
    skill('alpha', { description: 'first' }),
    skill('manual-one', { invocation: 'manual' }),
    skill('db-only', { appliesTo: ['db'] }),
  ];

  it('lists auto skills by name and description, sorted, leaving manual ones out', () => {
    expect(skillCatalogText(skills)).toBe(
      '# Skills\nLoad a skill with the `skill` tool when the task matches its description:\n- alpha: first\n- zeta: last',
    );
  });

  it('lists a skill with applies_to only under a named profile', () => {
    expect(skillCatalogText(skills, 'db')).toContain('- db-only');
    expect(skillCatalogText(skills, 'web')).not.toContain('db-only');
  });

  it('is empty when no auto skill applies', () => {
    expect(skillCatalogText([skill('m', { invocation: 'manual' })])).toBe('');
  });
});
