import { afterEach, describe, expect, it } from 'vitest';
import { loadProfiles } from '../../src/profile/load.js';
import { type TempTree, tempTree } from './tree.js';

/**
 * Issue 16 B1: tool names of every source go through the one translation table, in tool lists and in
 * rules; an unknown name in a profile is a load warning naming the file (the profile is skipped when it
 * is in a permission rule, SPEC 3.3).
 */
let tree: TempTree;
afterEach(() => tree?.cleanup());

function loadOne(path: string, text: string) {
  tree = tempTree({ [path]: text });
  const registry = loadProfiles({
    projectRoot: tree.path('project'),
    globalDir: tree.path('global'),
    home: tree.path('home'),
  });
  return { registry, warnings: registry.warnings.map((w) => `${w.path} ${w.reason}`) };
}

describe('profiles written for Reasonix, bnerd and Claude Code', () => {
  it('gives a Reasonix reviewer the tools its author listed', () => {
    const { registry, warnings } = loadOne(
      'project/.cadre/skills/reviewer/SKILL.md',
      '---\nname: reviewer\ndescription: Review changes\nrunAs: subagent\nallowed-tools: [read_file, grep, bash]\n---\nReview.\n',
    );
    expect(warnings).toEqual([]);
    expect(registry.profiles.get('reviewer')?.allowTools).toEqual(['read', 'grep', 'bash']);
    const viaCadre = loadOne(
      'project/.cadre/agents/reviewer.md',
      '---\nallowed-tools: [read_file, grep, bash, search_content, web_fetch]\n---\nReview.\n',
    );
    expect(viaCadre.registry.profiles.get('reviewer')?.allowTools).toEqual([
      'read',
      'grep',
      'bash',
      'webfetch',
    ]);
  });

  it('translates bnerd tool names and a shell_exec rule', () => {
    const { registry, warnings } = loadOne(
      'project/.cadre/agents/locked.md',
      '---\ntools: [Read, Grep, Glob, shell_exec]\npermission:\n  allow: ["shell_exec(git diff*)", "shell_exec(git log*)"]\n  deny: ["shell_exec(git push*)", "shell_exec"]\n---\nReview.\n',
    );
    expect(warnings).toEqual([]);
    const profile = registry.profiles.get('locked');
    expect(profile?.allowTools).toEqual([
      'read',
      'grep',
      'glob',
      'find_files',
      'bash',
      'bash_output',
      'kill_shell',
    ]);
  });

  it('warns about an unknown name in a tool list, naming the file', () => {
    const { registry, warnings } = loadOne(
      'project/.cadre/agents/odd.md',
      '---\ntools: [Read, Telepathy]\n---\nx\n',
    );
    expect(registry.profiles.get('odd')?.allowTools).toEqual(['read']);
    expect(warnings.join('\n')).toMatch(/odd\.md .*Telepathy/);
  });

  it('skips a profile whose permission rule names an unknown tool, naming file and line', () => {
    const { registry, warnings } = loadOne(
      'project/.cadre/agents/typo.md',
      '---\ndescription: x\npermission:\n  deny: ["bassh(rm *)"]\n---\nx\n',
    );
    expect(registry.profiles.has('typo')).toBe(false);
    expect(warnings.join('\n')).toMatch(/typo\.md.*line 4.*names no known tool "bassh"/);
  });
});
