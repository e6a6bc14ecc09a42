import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { parseFrontmatter } from '../../src/profile/frontmatter.js';
import { resolveModelRef, unservedFamilyWarning } from '../../src/profile/model-routing.js';

describe('imported frontmatter that Claude Code loads but strict YAML refuses', () => {
  const colon = '---\nname: a\ndescription: Use when: the user asks\ntools: Read, Grep\n---\nBody.\n';

  it('is refused for cadre-native files', () => {
    expect(parseFrontmatter(colon)).toMatchObject({ ok: false });
  });

  it.each([
    [
      'an unquoted ": " in a description',
      colon,
      { name: 'a', description: 'Use when: the user asks', tools: 'Read, Grep' },
    ],
    [
      'indented keys and a folded continuation',
      '---\nname: a\n  description: one: two\n    continued here\nmodel: opus\n---\nBody.\n',
      { name: 'a', description: 'one: two continued here', model: 'opus' },
    ],
    [
      'a block list and typed scalars',
      '---\nname: a: b\ntools:\n  - Read\n  - "Grep"\nread-only: true\ntemperature: 0.5\n---\nBody.\n',
      { name: 'a: b', tools: ['Read', 'Grep'], 'read-only': true, temperature: 0.5 },
    ],
  ])('loads for imported files: %s', (_what, text, fields) => {
    const parsed = parseFrontmatter(text, true);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value.fields).toEqual(fields);
    expect(parsed.value.body).toBe('Body.');
    expect(parsed.value.notes).toEqual([
      expect.stringMatching(/^frontmatter is not strict YAML at line \d+ /),
    ]);
  });

  it('is not recovered when it holds a nested mapping a line reader cannot read', () => {
    const nested = '---\ndescription: x: y\npermission:\n  deny:\n    - bash\n---\nBody.\n';
    expect(parseFrontmatter(nested, true)).toMatchObject({ ok: false });
  });

  it('an indented block after blank lines is frontmatter, never a body carrying YAML', () => {
    const parsed = parseFrontmatter(
      '\n    ---\n    name: q\n    model: m\n    ---\n    ## Focus\n    - x\n',
      true,
    );
    expect(parsed).toMatchObject({
      ok: true,
      value: { fields: { name: 'q', model: 'm' }, body: '## Focus\n- x' },
    });
  });
});

describe('model names in imported files', () => {
  const anthropic = { type: 'anthropic' as const, model: 'claude-x' };
  const local = { type: 'openai-compatible' as const, base_url: 'http://127.0.0.1:1/v1', model: 'm' };

  it.each([
    [
      'an alias of that name wins',
      { providers: { opus: local, a: anthropic } },
      'opus',
      { kind: 'alias', alias: 'opus', provider: local },
    ],
    [
      'else the family model on the Anthropic provider',
      { providers: { main: local, a: anthropic } },
      'haiku',
      { kind: 'alias', alias: 'a', provider: { type: 'anthropic', model: 'claude-haiku-4-5' } },
    ],
    ['else the parent model', { providers: { main: local } }, 'sonnet', { kind: 'parent' }],
    [
      'a full id stays verbatim',
      { providers: { a: anthropic } },
      'claude-opus-4-1',
      { kind: 'literal', model: 'claude-opus-4-1' },
    ],
    [
      'any other literal stays verbatim',
      { providers: { a: anthropic } },
      'fable',
      { kind: 'literal', model: 'fable' },
    ],
  ] as [string, Config, string, unknown][])('%s', (_what, config, ref, expected) => {
    expect(resolveModelRef(ref, config, true)).toEqual(expected);
  });

  it('cadre-native files keep a bare family name as a literal model', () => {
    expect(resolveModelRef('opus', { providers: { a: anthropic } })).toEqual({
      kind: 'literal',
      model: 'opus',
    });
  });

  it('warns when a family name falls back to the parent model', () => {
    expect(
      unservedFamilyWarning({ model: 'opus', source: 'claude' }, { providers: { main: local } }),
    ).toMatch(/model "opus": .*the parent's model is used/);
    expect(
      unservedFamilyWarning({ model: 'opus', source: 'claude' }, { providers: { a: anthropic } }),
    ).toBeUndefined();
    expect(
      unservedFamilyWarning({ model: 'opus', source: 'project' }, { providers: { main: local } }),
    ).toBeUndefined();
  });
});
