import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { configJsonSchema } from '../../src/config/json-schema.js';
import { loadProfiles } from '../../src/profile/load.js';
import { PROFILE_KEYS, profileFieldProblem, profileJsonSchema } from '../../src/profile/schema.js';
import { type TempTree, tempTree } from './tree.js';

let tree: TempTree;
afterEach(() => tree?.cleanup());

function warningFor(frontmatter: string): string | undefined {
  tree = tempTree({ 'project/.cadre/agents/p.md': `---\ndescription: d\n${frontmatter}\n---\nBody.\n` });
  const registry = loadProfiles({
    projectRoot: tree.path('project'),
    globalDir: tree.path('global'),
    home: tree.path('home'),
  });
  expect(registry.profiles.has('p')).toBe(false);
  return registry.warnings.find((w) => w.path === tree.path('project/.cadre/agents/p.md'))?.reason;
}

describe('the one profile schema (issue 16 B9)', () => {
  it('holds exactly the frontmatter keys of SPEC 3.2 (plus instructions)', () => {
    expect([...PROFILE_KEYS].sort()).toEqual(
      [
        'name',
        'description',
        'model',
        'reasoning',
        'effort',
        'temperature',
        'deny_tools',
        'allow_tools',
        'tools',
        'disallowedTools',
        'allowed-tools',
        'read-only',
        'subagent_tools',
        'subagent_max_turns',
        'subagent_timeout_secs',
        'subagent_allow',
        'subagent_deny',
        'subagent_mcp',
        'runAs',
        'invocation',
        'color',
        'max-steps',
        'permission',
        'skills',
        'instructions',
        'permissionMode',
        'reviewer',
        'subagents',
      ].sort(),
    );
  });

  it('ships as schema/profile.schema.json, and describes config agents in schema/config.schema.json', () => {
    const shipped = JSON.parse(
      readFileSync(new URL('../../schema/profile.schema.json', import.meta.url), 'utf8'),
    );
    expect(shipped).toEqual(profileJsonSchema());
    expect(Object.keys(shipped.properties).sort()).toEqual([...PROFILE_KEYS].sort());
    const agents = (
      configJsonSchema() as { properties: { agents: { additionalProperties: { properties: object } } } }
    ).properties.agents.additionalProperties.properties;
    expect(Object.keys(agents).sort()).toEqual(
      [...PROFILE_KEYS.filter((k) => k !== 'name'), 'prompt', 'subagent'].sort(),
    );
  });

  it.each([
    ['temperature: 3', 'invalid "temperature" 3 (expected a number from 0 to 2) (line 3)'],
    [
      'effort: turbo',
      'invalid "effort" "turbo" (expected one of off, minimal, low, medium, high, xhigh, max) (line 3)',
    ],
    ['max-steps: 2.5', 'invalid "max-steps" 2.5 (expected a whole number from 1 to 10000) (line 3)'],
    [
      'subagent_max_turns: 0',
      'invalid "subagent_max_turns" 0 (expected a whole number from 1 to 10000) (line 3)',
    ],
    [
      'subagent_timeout_secs: soon',
      'invalid "subagent_timeout_secs" "soon" (expected a number of seconds) (line 3)',
    ],
    ['model: [a, b]', '"model" must be a string (line 3)'],
    ['read-only: maybe', '"read-only" must be true or false (line 3)'],
    ['deny_tools: {bash: true}', '"deny_tools" must be a list of tool names (line 3)'],
    ['skills: 7', '"skills" must be a list of skill names (line 3)'],
    ['subagent_mcp: 3', '"subagent_mcp" must be "all" or a list of MCP tool names (line 3)'],
    ['invocation: sometimes', 'invalid "invocation" "sometimes" (expected manual or auto) (line 3)'],
    ['runAs: main', 'invalid "runAs" "main" (expected subagent) (line 3)'],
    ['color: 12', '"color" must be a string (line 3)'],
    ['reviewer: "yes"', '"reviewer" must be true or false (line 3)'],
  ])('%s is refused with the field, what was expected and its line', (line, reason) => {
    expect(warningFor(line)).toBe(reason);
  });

  it('leaves an unknown subagent_tools and the permission block to their own readers', () => {
    expect(profileFieldProblem({ subagent_tools: 'everything', permission: { allow: 'x' } })).toBeUndefined();
    expect(profileFieldProblem({ model: null, tools: 'Read, Grep', unknown_key: 1 })).toBeUndefined();
  });

  it('cites the line inside the config file for a config profile', () => {
    tree = tempTree({});
    const text =
      '{\n  "agents": {\n    "p": {\n      "prompt": "x",\n      "temperature": 9\n    }\n  }\n}\n';
    const registry = loadProfiles({
      projectRoot: tree.path('project'),
      globalDir: tree.path('global'),
      home: tree.path('home'),
      config: { agents: { p: { prompt: 'x', temperature: 9 } } },
      configFiles: [{ path: '/cfg/config.json', text }],
    });
    expect(registry.warnings).toEqual([
      { path: 'config:agents.p', reason: 'invalid "temperature" 9 (expected a number from 0 to 2) (line 5)' },
    ]);
  });
});
