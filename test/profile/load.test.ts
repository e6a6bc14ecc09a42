import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { loadProfiles, profileNames } from '../../src/profile/load.js';
import { type TempTree, tempTree } from './tree.js';

let tree: TempTree;
afterEach(() => tree?.cleanup());

function load(config?: Config, configFiles?: { path: string; text: string }[]) {
  return loadProfiles({
    projectRoot: tree.path('project'),
    globalDir: tree.path('global'),
    home: tree.path('home'),
    config,
    configFiles,
  });
}

describe('loadProfiles precedence', () => {
  it('lets a project profile win over a global one of the same name and records the collision', () => {
    tree = tempTree({
      'project/.cadre/agents/reviewer.md': '---\nmodel: haiku\n---\nProject reviewer.\n',
      'global/agents/reviewer.md': '---\nmodel: opus\n---\nGlobal reviewer.\n',
    });
    const registry = load();
    const reviewer = registry.profiles.get('reviewer');
    expect(reviewer?.source).toBe('project');
    expect(reviewer?.prompt).toBe('Project reviewer.');
    expect(reviewer?.model).toBe('haiku');
    expect(registry.collisions).toEqual([
      {
        name: 'reviewer',
        winner: { source: 'project', path: tree.path('project/.cadre/agents/reviewer.md') },
        losers: [{ source: 'global', path: tree.path('global/agents/reviewer.md') }],
      },
    ]);
    expect(registry.warnings).toEqual([]);
  });

  it('orders every source as SPEC 3.1 does, recording each loser', () => {
    tree = tempTree({
      'project/.cadre/skills/shared/SKILL.md': '---\nrunAs: subagent\n---\nProject skill.\n',
      'global/agents/shared.md': 'Global.\n',
      'global/skills/shared/SKILL.md': '---\nrunAs: subagent\n---\nGlobal skill.\n',
      'mission/orchestrator/roles/any-file.md': '---\nname: shared\n---\nMission.\n',
      'project/.claude/agents/shared.md': 'Claude project.\n',
      'home/.claude/agents/shared.md': 'Claude home.\n',
    });
    const registry = load({ mission_repo: tree.path('mission'), agents: { shared: { prompt: 'Config.' } } });
    expect(registry.profiles.get('shared')?.source).toBe('project-skill');
    expect(registry.collisions[0].losers.map((l) => l.source)).toEqual([
      'global',
      'global-skill',
      'mission',
      'claude',
      'claude',
      'config',
    ]);
  });

  it('lets a file override a built-in of the same name, with a collision record', () => {
    tree = tempTree({ 'global/agents/explore.md': 'My explorer.\n' });
    const registry = load();
    expect(registry.profiles.get('explore')?.source).toBe('global');
    expect(registry.collisions).toEqual([
      {
        name: 'explore',
        winner: { source: 'global', path: tree.path('global/agents/explore.md') },
        losers: [{ source: 'builtin' }],
      },
    ]);
  });

  it('ships the four built-ins when nothing else is defined', () => {
    tree = tempTree();
    const registry = load();
    expect(profileNames(registry)).toEqual(['explore', 'general', 'review', 'security-review']);
    expect(registry.profiles.get('explore')?.tier).toBe('readonly');
    expect(registry.profiles.get('general')?.tier).toBe('readwrite');
    expect(registry.profiles.get('review')).toMatchObject({
      readOnly: true,
      maxOutputTokens: 2048,
      parentFacts: true,
    });
    expect(registry.profiles.get('security-review')?.denyTools).toContain('bash');
  });
});

describe('loadProfiles sources', () => {
  it('loads a mission role by its name: key and translates its Claude Code tools', () => {
    tree = tempTree({
      'mission/orchestrator/roles/go.md': [
        '---',
        'name: go-cli-dev',
        'description: Go CLI developer',
        'tools: [Read, Grep, Bash]',
        'disallowedTools: [WebFetch]',
        'color: blue',
        'reviewer: true',
        'permissionMode: plan',
        '---',
        'You write Go.',
      ].join('\n'),
    });
    const role = load({ mission_repo: tree.path('mission') }).profiles.get('go-cli-dev');
    expect(role).toMatchObject({
      source: 'mission',
      description: 'Go CLI developer',
      allowTools: ['read', 'grep', 'bash', 'bash_output', 'kill_shell'],
      denyTools: ['webfetch'],
      color: 'blue',
      team: { reviewer: true, permissionMode: 'plan' },
      prompt: 'You write Go.',
    });
  });

  it('imports a Claude Code subagent, translating a comma-separated tools string and dropping unknown names', () => {
    tree = tempTree({
      'home/.claude/agents/code-reviewer.md': [
        '---',
        'name: code-reviewer',
        'description: Reviews code',
        'tools: Read, Glob, MultiEdit, SlashCommand',
        'model: inherit',
        '---',
        'You review code.',
      ].join('\n'),
    });
    const registry = load();
    const profile = registry.profiles.get('code-reviewer');
    expect(profile?.source).toBe('claude');
    expect(profile?.allowTools).toEqual(['read', 'glob', 'find_files', 'edit', 'edit_lines', 'apply_patch']);
    expect(profile?.model).toBeUndefined();
    expect(registry.warnings).toEqual([
      {
        path: tree.path('home/.claude/agents/code-reviewer.md'),
        reason: 'unknown tool name(s) in "tools" dropped: SlashCommand',
      },
    ]);
  });

  it('names a Claude Code subagent after its file when it has no name: key', () => {
    tree = tempTree({ 'project/.claude/agents/helper.md': '---\ndescription: helps\n---\nYou help.\n' });
    expect(load().profiles.get('helper')?.description).toBe('helps');
  });

  it('reads the config form with a nested subagent block', () => {
    tree = tempTree();
    const registry = load({
      agents: {
        researcher: {
          model: 'haiku',
          description: 'tooled researcher',
          prompt: 'You research.',
          subagent: {
            tools: 'readonly',
            max_turns: 15,
            timeout_secs: 120,
            allow: ['read', 'grep'],
            deny: ['webfetch'],
            mcp: ['search_graph'],
          },
        },
      },
    });
    expect(registry.profiles.get('researcher')).toMatchObject({
      source: 'config',
      model: 'haiku',
      prompt: 'You research.',
      tier: 'readonly',
      maxTurns: 15,
      timeoutSecs: 120,
      subagentAllow: ['read', 'grep'],
      subagentDeny: ['webfetch'],
      mcp: ['search_graph'],
    });
    expect(registry.warnings).toEqual([]);
  });

  it('refuses a config profile that gives a setting both nested and flat', () => {
    tree = tempTree();
    const registry = load({
      agents: { both: { subagent_tools: 'readonly', subagent: { tools: 'readwrite' } } },
    });
    expect(registry.profiles.has('both')).toBe(false);
    expect(registry.warnings).toEqual([
      {
        path: 'config:agents.both',
        reason: 'conflicting keys subagent.tools and subagent_tools: give only one',
      },
    ]);
  });

  it('loads a project skill with runAs: subagent as a profile and keeps plain skills as skills', () => {
    tree = tempTree({
      'project/.cadre/skills/tester/SKILL.md':
        '---\nname: tester\nrunAs: subagent\napplies_to: [x]\nsubagent_tools: readwrite\n---\nYou test.\n',
      'project/.cadre/skills/style/SKILL.md': '---\ndescription: house style\n---\nUse tabs.\n',
    });
    const registry = load();
    expect(registry.profiles.get('tester')).toMatchObject({
      source: 'project-skill',
      tier: 'readwrite',
      prompt: 'You test.',
    });
    expect(registry.profiles.has('style')).toBe(false);
    expect(registry.skills.map((s) => s.name)).toEqual(['style']);
  });
});

describe('profile fields', () => {
  function one(frontmatter: string, body = 'Body.') {
    tree = tempTree({ 'project/.cadre/agents/p.md': `---\n${frontmatter}\n---\n${body}\n` });
    const registry = load();
    return { profile: registry.profiles.get('p'), warnings: registry.warnings.map((w) => w.reason) };
  }

  it('applies defaults for a body-only profile', () => {
    tree = tempTree({ 'project/.cadre/agents/plain.md': 'Just a prompt.\n' });
    expect(load().profiles.get('plain')).toMatchObject({
      prompt: 'Just a prompt.',
      denyTools: [],
      readOnly: false,
      tier: 'toolless',
      maxTurns: 25,
      timeoutSecs: 600,
      subagentDeny: [],
      invocation: 'manual',
      skills: [],
    });
  });

  it.each([
    ['subagent_timeout_secs: 5', 30, 'subagent_timeout_secs 5 clamped to 30 (allowed 30..3600)'],
    ['subagent_timeout_secs: 99999', 3600, 'subagent_timeout_secs 99999 clamped to 3600 (allowed 30..3600)'],
  ])('clamps %s with a warning', (frontmatter, expected, warning) => {
    const { profile, warnings } = one(frontmatter);
    expect(profile?.timeoutSecs).toBe(expected);
    expect(warnings).toEqual([warning]);
  });

  it('loads a profile with an unknown key and names the key in one warning', () => {
    const { profile, warnings } = one('model: haiku\ndeny_tool: [bash]\ncolour: red');
    expect(profile?.model).toBe('haiku');
    expect(warnings).toEqual(['unknown key(s) ignored: deny_tool, colour']);
  });

  it('treats an unknown subagent_tools value as toolless, never escalating', () => {
    const { profile, warnings } = one('subagent_tools: read-write');
    expect(profile?.tier).toBe('toolless');
    expect(warnings).toEqual(['unknown subagent_tools "read-write": treated as toolless']);
  });

  it('forces the readonly tier and strips writer tools for read-only: true', () => {
    const { profile } = one('read-only: true\nsubagent_tools: readwrite\nallow_tools: [read, edit, grep]');
    expect(profile?.tier).toBe('readonly');
    expect(profile?.allowTools).toEqual(['read', 'grep']);
    expect(profile?.denyTools).toEqual(expect.arrayContaining(['write', 'edit', 'apply_patch', 'bash']));
  });

  it.each([
    ['reasoning: high', { effort: 'high' }],
    ['effort: xhigh', { effort: 'xhigh' }],
    ['max-steps: 7', { maxTurns: 7 }],
    ['allowed-tools: [read]', { allowTools: ['read'] }],
    ['temperature: 0.2', { temperature: 0.2 }],
    ['invocation: auto', { invocation: 'auto' }],
    ['subagent_mcp: all\nsubagent_tools: readonly', { mcp: 'all' }],
  ])('reads %s', (frontmatter, expected) => {
    const { profile, warnings } = one(frontmatter);
    expect(profile).toMatchObject(expected);
    expect(warnings).toEqual([]);
  });

  it('keeps profile skills that name existing skills', () => {
    tree = tempTree({
      'project/.cadre/agents/p.md': '---\nskills: style, tests\n---\nBody.\n',
      'project/.cadre/skills/style/SKILL.md': 'Use tabs.\n',
      'global/skills/tests/SKILL.md': 'Run vitest.\n',
    });
    const registry = load();
    expect(registry.profiles.get('p')?.skills).toEqual(['style', 'tests']);
    expect(registry.warnings).toEqual([]);
  });

  it('ignores subagent_mcp on a toolless profile with a warning', () => {
    const { profile, warnings } = one('subagent_mcp: all');
    expect(profile?.mcp).toBeUndefined();
    expect(warnings).toEqual(['subagent_mcp ignored: it needs a readonly or readwrite subagent_tools tier']);
  });

  it('keeps a permission block with its file text so rules cite their lines', () => {
    const { profile } = one('permission:\n  allow: ["bash(git diff *)"]\n  deny: ["bash"]');
    const path = tree.path('project/.cadre/agents/p.md');
    expect(profile?.permission?.block).toEqual({ allow: ['bash(git diff *)'], deny: ['bash'] });
    expect(profile?.permission?.file).toBe(path);
    expect(profile?.permission?.rules.deny[0].source).toBe(`${path}:4`);
  });

  it('treats an empty permission block as none', () => {
    const { profile, warnings } = one('permission:\n  allow: []\n  deny: []');
    expect(profile?.permission).toBeUndefined();
    expect(warnings).toEqual([]);
  });
});

describe('subagent tier decision (SPEC 3.2)', () => {
  const where: Record<string, string> = {
    project: 'project/.cadre/agents/p.md',
    'project-skill': 'project/.cadre/skills/p/SKILL.md',
    'global-skill': 'global/skills/p/SKILL.md',
    claude: 'project/.claude/agents/p.md',
    mission: 'mission/orchestrator/roles/p.md',
    config: '',
  };

  function tierOf(source: string, frontmatter: Record<string, unknown>): string | undefined {
    const fields: Record<string, unknown> = {
      ...frontmatter,
      ...(source.endsWith('skill') ? { runAs: 'subagent' } : {}),
      ...(source === 'mission' ? { name: 'p' } : {}),
    };
    const yamlLines = Object.entries(fields).map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
    if (source === 'config') {
      tree = tempTree({});
      return load({ agents: { p: { ...frontmatter, prompt: 'Body.' } } }).profiles.get('p')?.tier;
    }
    tree = tempTree({ [where[source]]: `---\n${yamlLines.join('\n')}\n---\nBody.\n` });
    return load({ mission_repo: tree.path('mission') }).profiles.get('p')?.tier;
  }

  it.each([
    ['project', {}, 'toolless'],
    ['config', {}, 'toolless'],
    ['project-skill', {}, 'readwrite'],
    ['global-skill', {}, 'readwrite'],
    ['claude', {}, 'readwrite'],
    ['mission', {}, 'readwrite'],
    ['project', { 'allowed-tools': ['read', 'grep'] }, 'readonly'],
    ['project', { allow_tools: ['read', 'edit'] }, 'readwrite'],
    ['project', { tools: 'Read, Bash' }, 'readwrite'],
    ['project-skill', { 'allowed-tools': ['read'] }, 'readonly'],
    ['claude', { tools: 'Read, Grep' }, 'readonly'],
    ['project-skill', { 'allowed-tools': [] }, 'readonly'],
    ['project-skill', { subagent_tools: 'toolless' }, 'toolless'],
    ['project', { subagent_tools: 'readonly', allow_tools: ['bash'] }, 'readonly'],
    ['project-skill', { 'read-only': true, 'allowed-tools': ['bash'] }, 'readonly'],
    ['claude', { 'read-only': true }, 'readonly'],
  ])('a %s profile with %j gets the %s tier', (source, frontmatter, tier) => {
    expect(tierOf(source, frontmatter)).toBe(tier);
  });
});
