import { afterEach, describe, expect, it } from 'vitest';
import { loadSkills } from '../../src/skill/load.js';
import { type TempTree, tempTree } from '../profile/tree.js';

let tree: TempTree;
afterEach(() => tree.cleanup());

function load() {
  return loadSkills({ projectRoot: tree.path('project'), globalDir: tree.path('global') });
}

describe('loadSkills', () => {
  it('discovers project and global skills, project winning, subagent skills left out', () => {
    tree = tempTree({
      'project/.cadre/skills/style/SKILL.md': '---\nname: style\ndescription: house style\n---\nTabs.\n',
      'global/skills/style/SKILL.md': '---\ndescription: global style\n---\nSpaces.\n',
      'global/skills/sql/SKILL.md': '---\ninvocation: manual\napplies_to: [db]\n---\nUse CTEs.\n',
      'global/skills/runner/SKILL.md': '---\nrunAs: subagent\n---\nI am a profile.\n',
      'global/skills/no-skill-file/README.md': 'not a skill',
    });
    const { skills, warnings } = load();
    expect(skills).toEqual([
      {
        name: 'sql',
        description: undefined,
        invocation: 'manual',
        appliesTo: ['db'],
        body: 'Use CTEs.',
        path: tree.path('global/skills/sql/SKILL.md'),
        scope: 'global',
      },
      {
        name: 'style',
        description: 'house style',
        invocation: 'auto',
        appliesTo: undefined,
        body: 'Tabs.',
        path: tree.path('project/.cadre/skills/style/SKILL.md'),
        scope: 'project',
      },
    ]);
    expect(warnings).toEqual([]);
  });

  it.each([
    [
      'a name differing from its folder',
      '---\nname: other\n---\nx\n',
      'name "other" does not match its folder "s"',
    ],
    [
      'an invalid invocation',
      '---\ninvocation: never\n---\nx\n',
      'invalid "invocation" "never" (expected manual or auto)',
    ],
    ['an empty body', '---\ndescription: d\n---\n', 'empty skill: no instructions in the body'],
    ['bad YAML', '---\ndescription: [\n---\nx\n', /^unparsable frontmatter/],
  ])('refuses a skill with %s, with one warning', (_label, text, reason) => {
    tree = tempTree({ 'project/.cadre/skills/s/SKILL.md': text });
    const { skills, warnings } = load();
    expect(skills).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0].reason).toMatch(reason);
  });
});
