import { afterEach, describe, expect, it } from 'vitest';
import { loadProfiles } from '../../../src/profile/load.js';
import {
  checkColor,
  checkDescription,
  checkEffort,
  checkNewName,
  checkTools,
  modelNote,
  profilePlaces,
} from '../../../src/profile/manage/inputs.js';
import { type TempTree, tempTree } from '../tree.js';

let tree: TempTree;
afterEach(() => tree?.cleanup());

function check(name: string, files: Record<string, string> = {}, config = {}) {
  tree = tempTree(files);
  const root = tree.path('project');
  const globalDir = tree.path('global');
  const registry = loadProfiles({ projectRoot: root, globalDir, home: tree.path('home'), config });
  return () => checkNewName(name, registry, profilePlaces(root, globalDir, name), config);
}

describe('checkNewName', () => {
  it.each([
    ['', /invalid name ""/],
    ['a/b', /invalid name "a\/b"/],
    ['..', /invalid name/],
    ['has space', /invalid name/],
    ['-dash', /invalid name/],
    ['x'.repeat(65), /invalid name/],
    ['default', /reserved name "default"/],
    ['Bash', /reserved name "Bash"/],
    ['read', /reserved name/],
    ['review', /"review" is a built-in profile; pick another name/],
  ])('refuses %j', (name, message) => {
    expect(check(name)).toThrow(message);
  });

  it.each([
    [
      'a project agent',
      { 'project/.cadre/agents/dup.md': 'Body.\n' },
      /a project profile named "dup" already exists/,
    ],
    ['a global agent', { 'global/agents/dup.md': 'Body.\n' }, /a global profile named "dup"/],
    [
      'a project skill profile',
      { 'project/.cadre/skills/dup/SKILL.md': '---\nrunAs: subagent\n---\nB.\n' },
      /project-skill profile/,
    ],
    [
      'a global skill profile',
      { 'global/skills/dup/SKILL.md': '---\nrunAs: subagent\n---\nB.\n' },
      /global-skill profile/,
    ],
    ['a Claude Code agent', { 'project/.claude/agents/dup.md': 'Body.\n' }, /a claude profile named "dup"/],
    [
      'a plain skill',
      { 'global/skills/dup/SKILL.md': '---\ndescription: x\n---\nDo it.\n' },
      /a skill named "dup" already exists/,
    ],
    [
      'a file that does not load',
      { 'project/.cadre/agents/dup.md': '---\nmodel: [\n---\nB.\n' },
      /dup\.md already exists; pick another name/,
    ],
  ])('refuses a name taken by %s', (_label, files, message) => {
    expect(check('dup', files)).toThrow(message);
  });

  it('refuses a name taken by a config profile and by a broken config entry', () => {
    expect(check('dup', {}, { agents: { dup: { prompt: 'x' } } })).toThrow(/a config profile named "dup"/);
    expect(check('dup', {}, { agents: { dup: { prompt: 7 } } })).toThrow(
      /the config already defines agents.dup/,
    );
  });

  it('accepts a fresh valid name', () => {
    expect(check('code.reviewer_2')).not.toThrow();
  });
});

describe('field checks', () => {
  it('translates Claude Code tool names and refuses unknown ones', () => {
    expect(checkTools('Read, grep,Bash')).toEqual(['read', 'grep', 'bash', 'bash_output', 'kill_shell']);
    expect(checkTools('mcp__fs__read')).toEqual(['mcp__fs__read']);
    expect(() => checkTools('read,SendMessage')).toThrow(
      '--tools names Claude Code team tools a cadre subagent cannot have: SendMessage; leave them out',
    );
    expect(() => checkTools('read,frobnicate')).toThrow(
      /unknown tool name\(s\) in --tools: frobnicate; use cadre tool names/,
    );
  });

  it('checks effort levels, one-line descriptions and colours', () => {
    expect(checkEffort('xhigh')).toBe('xhigh');
    expect(() => checkEffort('extreme')).toThrow(
      'invalid --effort "extreme": use one of off, minimal, low, medium, high, xhigh, max',
    );
    expect(checkDescription('  Reviews  ')).toBe('Reviews');
    expect(() => checkDescription('two\nlines')).toThrow('--description must be one line');
    expect(checkColor('#ff8800')).toBe('#ff8800');
    expect(() => checkColor('light blue')).toThrow(/invalid --color/);
  });

  it('says when a model is a literal name rather than a configured alias', () => {
    const config = { providers: { haiku: { type: 'anthropic' as const } } };
    expect(modelNote('haiku', config)).toBeUndefined();
    expect(modelNote('gpt-5.1', config)).toBe(
      '"gpt-5.1" is not a configured provider alias (aliases: haiku); it will be used as a literal model name on the main provider',
    );
    expect(() => modelNote('two words', config)).toThrow(/no spaces/);
  });
});
