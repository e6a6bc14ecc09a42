import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { agentsJson, formatAgentsText } from '../../src/profile/listing.js';
import { loadProfiles } from '../../src/profile/load.js';
import { resolveRoles } from '../../src/profile/roles.js';
import { type TempTree, tempTree } from './tree.js';

let tree: TempTree;
afterEach(() => tree.cleanup());

const config: Config = {
  providers: { haiku: { type: 'anthropic', model: 'claude-haiku-4-5', api_key: 'secret-key' } },
  provider: 'haiku',
  subagent_provider: 'haiku',
};

function setup() {
  tree = tempTree({
    'project/.cadre/agents/reviewer.md':
      '---\nmodel: haiku\ndescription: cheap reviewer\ndeny_tools: [Bash]\n---\nReview.\n',
    'global/agents/reviewer.md': 'Global.\n',
    'project/.cadre/agents/off.md': 'Reserved.\n',
    'project/.cadre/agents/pinned.md': '---\nmodel: gpt-5.1\nallow_tools: [read]\n---\nPinned.\n',
  });
  return loadProfiles({
    projectRoot: tree.path('project'),
    globalDir: tree.path('global'),
    home: tree.path('home'),
    config,
  });
}

describe('agentsJson', () => {
  it('produces exactly the SPEC 1 document, routes without secrets', () => {
    const registry = setup();
    const doc = agentsJson(registry, resolveRoles(config), config);
    expect(Object.keys(doc)).toEqual(['profiles', 'collisions', 'warnings', 'roles']);
    expect(doc.profiles.find((p) => p.name === 'reviewer')).toEqual({
      name: 'reviewer',
      source: 'project',
      path: tree.path('project/.cadre/agents/reviewer.md'),
      model: 'haiku',
      route: { kind: 'alias', alias: 'haiku', type: 'anthropic', model: 'claude-haiku-4-5', base_url: null },
      tier: 'toolless',
      allow_tools: null,
      deny_tools: ['bash', 'bash_output', 'kill_shell'],
      description: 'cheap reviewer',
    });
    expect(doc.profiles.find((p) => p.name === 'pinned')).toMatchObject({
      route: { kind: 'literal', model: 'gpt-5.1' },
      allow_tools: ['read'],
    });
    expect(doc.profiles.find((p) => p.name === 'explore')).toMatchObject({ path: null, route: null });
    expect(doc.collisions).toEqual([
      {
        name: 'reviewer',
        winner: { source: 'project', path: tree.path('project/.cadre/agents/reviewer.md') },
        losers: [{ source: 'global', path: tree.path('global/agents/reviewer.md') }],
      },
    ]);
    expect(doc.warnings).toEqual([
      { path: tree.path('project/.cadre/agents/off.md'), reason: 'reserved name "off"' },
    ]);
    expect(doc.roles).toEqual({
      subagent_provider: 'haiku',
      summarization_provider: null,
      review_provider: null,
      escalation_provider: null,
      critic_provider: null,
      approval_provider: null,
    });
    expect(JSON.stringify(doc)).not.toContain('secret-key');
  });
});

describe('formatAgentsText', () => {
  it('marks the active profile and shows collisions, warnings and role routing', () => {
    const text = formatAgentsText(setup(), resolveRoles(config), config, 'reviewer');
    expect(text).toMatch(
      /^\* reviewer +project +model: haiku \(anthropic claude-haiku-4-5\) +tier: toolless +deny bash,bash_output,kill_shell$/m,
    );
    expect(text).toContain('cheap reviewer');
    expect(text).toMatch(/^ {2}reviewer: project .*reviewer\.md wins over global .*reviewer\.md$/m);
    expect(text).toMatch(/off\.md: reserved name "off"$/m);
    expect(text).toMatch(/^ {2}summarization_provider +\(unset: uses provider haiku\)$/m);
    expect(text).toMatch(/^ {2}critic_provider +\(unset: off\)$/m);
  });

  it('lists a role naming an unknown alias among the warnings', () => {
    const bad: Config = { ...config, critic_provider: 'opus' };
    const registry = setup();
    const roles = resolveRoles(bad);
    expect(agentsJson(registry, roles, bad).warnings).toContainEqual({
      path: 'config:critic_provider',
      reason: 'unknown provider alias "opus"',
    });
    expect(formatAgentsText(registry, roles, bad)).toMatch(
      /^ {2}config:critic_provider: unknown provider alias "opus"$/m,
    );
  });
});
