import { describe, expect, it } from 'vitest';
import { MANDATORY_FLOOR, subagentToolNames, TIER_UNIVERSE } from '../../src/subagent/tiers.js';

describe('subagentToolNames', () => {
  it.each([
    ['toolless has no tools', { tier: 'toolless' as const }, []],
    // SPEC 7.2's lists, written out: never computed by the module under test.
    [
      'readonly is exactly its universe',
      { tier: 'readonly' as const },
      ['read', 'grep', 'glob', 'find_files', 'list_dir', 'repo_overview', 'webfetch', 'websearch'],
    ],
    [
      'readwrite adds the writers',
      { tier: 'readwrite' as const },
      [
        'read',
        'grep',
        'glob',
        'find_files',
        'list_dir',
        'repo_overview',
        'webfetch',
        'websearch',
        'write',
        'edit',
        'edit_lines',
        'apply_patch',
        'bash',
        'bash_output',
        'kill_shell',
      ],
    ],
    [
      'allow narrows to the listed tools',
      { tier: 'readonly' as const, allow: ['read', 'grep'] },
      ['read', 'grep'],
    ],
    [
      'allow can never escalate past the tier',
      { tier: 'readonly' as const, allow: ['read', 'bash', 'write'] },
      ['read'],
    ],
    [
      'deny removes from the tier',
      { tier: 'readwrite' as const, deny: ['bash', 'bash_output', 'kill_shell', 'webfetch', 'websearch'] },
      [
        'read',
        'grep',
        'glob',
        'find_files',
        'list_dir',
        'repo_overview',
        'write',
        'edit',
        'edit_lines',
        'apply_patch',
      ],
    ],
    [
      'deny wins over allow',
      { tier: 'readonly' as const, allow: ['read', 'grep'], deny: ['grep'] },
      ['read'],
    ],
    ['call tools only narrow', { tier: 'readonly' as const, callTools: ['read', 'bash'] }, ['read']],
    [
      'an allow naming floor tools gets none of them',
      { tier: 'readwrite' as const, allow: ['task', 'skill', 'read'] },
      ['read'],
    ],
  ])('%s', (_name, request, expected) => {
    expect(subagentToolNames(request)).toEqual(expected);
  });

  it('never returns a mandatory-floor tool for any tier', () => {
    for (const tier of ['toolless', 'readonly', 'readwrite'] as const) {
      const names = subagentToolNames({ tier, allow: [...MANDATORY_FLOOR, ...TIER_UNIVERSE.readwrite] });
      for (const floor of MANDATORY_FLOOR) expect(names).not.toContain(floor);
    }
  });
});
