import { afterEach, describe, expect, it } from 'vitest';
import { parseFrontmatter } from '../../../src/profile/frontmatter.js';
import { loadProfiles } from '../../../src/profile/load.js';
import { editTarget } from '../../../src/profile/manage/editable.js';
import { type TempTree, tempTree } from '../tree.js';

let tree: TempTree;
afterEach(() => tree?.cleanup());

function targetOf(files: Record<string, string>, name: string, config = {}) {
  tree = tempTree(files);
  const registry = loadProfiles({
    projectRoot: tree.path('project'),
    globalDir: tree.path('global'),
    home: tree.path('home'),
    config: { mission_repo: tree.path('mission'), ...config },
  });
  const profile = registry.profiles.get(name);
  if (!profile) throw new Error(`${name} did not load: ${JSON.stringify(registry.warnings)}`);
  const text = files[Object.keys(files).find((k) => profile.path?.endsWith(k)) ?? ''] ?? '';
  const parsed = parseFrontmatter(text);
  return editTarget(profile, parsed.ok ? parsed.value.fields : {});
}

const SIMPLE = '---\nname: p\ndescription: d\ninvocation: manual\nrunAs: subagent\nmodel: m\n---\nBody.\n';

describe('editTarget (SPEC 11)', () => {
  it.each([
    ['a project skill', 'project/.cadre/skills/p/SKILL.md', SIMPLE],
    ['a global skill', 'global/skills/p/SKILL.md', SIMPLE],
    ['a project agent file', 'project/.cadre/agents/p.md', '---\nmodel: m\nreasoning: low\n---\nBody.\n'],
    ['a global body-only agent file', 'global/agents/p.md', 'Body.\n'],
  ])('lets the editors change %s', (_label, path, text) => {
    expect(targetOf({ [path]: text }, 'p')).toMatchObject({ kind: 'file', path: tree.path(path) });
  });

  it('edits a built-in through config', () => {
    expect(targetOf({}, 'review')).toEqual({ kind: 'builtin' });
  });

  it.each([
    [
      'a Claude Code agent',
      { 'project/.claude/agents/p.md': 'Body.\n' },
      /claude profile .* outside project and global scope/,
    ],
    [
      'a mission role',
      { 'mission/orchestrator/roles/p.md': '---\nname: p\n---\nBody.\n' },
      /mission profile/,
    ],
    [
      'an auto skill run as subagent',
      { 'project/.cadre/skills/p/SKILL.md': '---\nrunAs: subagent\ninvocation: auto\n---\nBody.\n' },
      /invocation: auto; the editors only change manual profiles: edit .*SKILL.md directly/,
    ],
    [
      'a file with keys the editors do not manage',
      {
        'project/.cadre/agents/p.md':
          '---\nmodel: m\npermission:\n  deny: [bash]\ntemperature: 0.2\n---\nBody.\n',
      },
      /frontmatter the editors do not manage \(permission, temperature\); edit the file directly/,
    ],
    [
      'a skill folder with scripts/',
      { 'project/.cadre/skills/p/SKILL.md': SIMPLE, 'project/.cadre/skills/p/scripts/run.sh': 'echo\n' },
      /has scripts\/; the editors leave rich skills alone: edit .* directly/,
    ],
    [
      'a skill folder with references/',
      { 'global/skills/p/SKILL.md': SIMPLE, 'global/skills/p/references/a.md': 'ref\n' },
      /has references\//,
    ],
  ])('refuses %s with a message to edit it directly', (_label, files, reason) => {
    const target = targetOf(files, 'p');
    expect(target.kind).toBe('refused');
    expect(target.kind === 'refused' && target.reason).toMatch(reason);
  });

  it('refuses a config profile', () => {
    const target = targetOf({}, 'p', { agents: { p: { prompt: 'Body.' } } });
    expect(target).toEqual({
      kind: 'refused',
      reason:
        '"p" is a config profile (config: agents.p), outside project and global scope; edit it there directly',
    });
  });
});
