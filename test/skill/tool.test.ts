import { describe, expect, it } from 'vitest';
import { createSkillTool } from '../../src/skill/tool.js';
import type { Skill } from '../../src/skill/types.js';
import type { ToolContext } from '../../src/tool/tool.js';

const skills: Skill[] = [
  { name: 'style', invocation: 'auto', body: 'Use two spaces.', path: '/p/style/SKILL.md', scope: 'project' },
];

const ctx = {} as ToolContext;

describe('the skill tool', () => {
  const tool = createSkillTool(() => skills);

  it('is a read-class tool named skill whose subject is the skill name', () => {
    expect(tool.name).toBe('skill');
    expect(tool.safety).toBe('read');
    expect(tool.subject({ name: 'style' })).toEqual({ kind: 'name', value: 'style' });
  });

  it('validates its input with the schema', () => {
    expect(tool.schema.safeParse({ name: '' }).success).toBe(false);
    expect(tool.schema.safeParse({}).success).toBe(false);
  });

  it('returns the skill body', async () => {
    expect(await tool.execute({ name: 'style' }, ctx)).toEqual({ output: 'Use two spaces.' });
  });

  it('returns an error listing the known skills for an unknown name', async () => {
    expect(await tool.execute({ name: 'nope' }, ctx)).toEqual({
      output: 'Unknown skill "nope". Known skills: style',
      isError: true,
    });
  });
});
