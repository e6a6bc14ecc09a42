import { describe, expect, it } from 'vitest';
import { parseFrontmatter } from '../../../src/profile/frontmatter.js';
import {
  editFrontmatter,
  type ManagedValue,
  renderProfileFile,
  replaceBody,
} from '../../../src/profile/manage/frontmatter-text.js';

const RICH = [
  '---',
  'name: reviewer',
  '# the reviewer keeps this comment',
  'description: >',
  '  folded over',
  '  two lines',
  "model: 'haiku'   # cheap",
  'allowed-tools:',
  '  - read',
  '  - grep',
  'color: orange',
  '---',
  '',
  'You review.',
  '',
  '  Indented line kept.',
  '',
].join('\n');

function edit(text: string, changes: Record<string, ManagedValue | null>): string {
  return editFrontmatter(text, new Map(Object.entries(changes)));
}

describe('editFrontmatter', () => {
  it.each<[string, Record<string, ManagedValue | null>, string[], string[]]>([
    ['rewrites one key in place', { model: 'sonnet' }, ['model: sonnet'], ["model: 'haiku'   # cheap"]],
    ['removes a key with a multi-line value', { description: null }, [], ['description: >', '  folded over']],
    [
      'replaces a block list by a flow list',
      { 'allowed-tools': ['read'] },
      ['allowed-tools: [read]'],
      ['  - grep'],
    ],
    ['adds a new key at the end of the block', { effort: 'high' }, ['color: orange\neffort: high\n---'], []],
    ['quotes a value that YAML would read otherwise', { description: 'a: b' }, ['description: "a: b"'], []],
    ['writes booleans', { 'read-only': true }, ['read-only: true'], []],
  ])('%s and keeps every other byte', (_label, changes, present, absent) => {
    const result = edit(RICH, changes);
    for (const text of present) expect(result).toContain(text);
    for (const text of absent) expect(result).not.toContain(text);
    // Everything the change does not name is the original text.
    const untouched = [
      '# the reviewer keeps this comment',
      'color: orange',
      '\nYou review.\n\n  Indented line kept.\n',
    ];
    for (const text of untouched) expect(result).toContain(text);
    const parsed = parseFrontmatter(result);
    expect(parsed.ok).toBe(true);
  });

  it('leaves the text identical when a removed key is absent', () => {
    expect(edit(RICH, { effort: null })).toBe(RICH);
  });

  it('round-trips through the parser with the new values', () => {
    const result = edit(RICH, {
      model: 'gpt-5.1',
      description: 'One line',
      'allowed-tools': ['read', 'bash'],
    });
    const parsed = parseFrontmatter(result);
    expect(parsed.ok && parsed.value.fields).toEqual({
      name: 'reviewer',
      description: 'One line',
      model: 'gpt-5.1',
      'allowed-tools': ['read', 'bash'],
      color: 'orange',
    });
  });

  it('gives a body-only file a frontmatter block in front of its unchanged body', () => {
    expect(edit('Just a prompt.\n', { model: 'haiku' })).toBe('---\nmodel: haiku\n---\nJust a prompt.\n');
    expect(edit('Just a prompt.\n', { model: null })).toBe('Just a prompt.\n');
  });

  it('edits a frontmatter block that is empty', () => {
    expect(edit('---\n---\nBody.\n', { color: 'red' })).toBe('---\ncolor: red\n---\nBody.\n');
  });
});

describe('replaceBody', () => {
  it('replaces the prompt and keeps the frontmatter block byte for byte', () => {
    const result = replaceBody(RICH, '  New prompt.  \n');
    expect(result).toBe(`${RICH.slice(0, RICH.indexOf('---\n\nYou review.') + 4)}New prompt.\n`);
  });

  it('replaces the whole text of a body-only file', () => {
    expect(replaceBody('Old.\n', 'New.')).toBe('New.\n');
  });
});

describe('renderProfileFile', () => {
  it('writes the keys in the given order, then the prompt', () => {
    expect(
      renderProfileFile(
        [
          ['name', 'reviewer'],
          ['description', 'Review: changes'],
          ['runAs', 'subagent'],
          ['read-only', true],
          ['allowed-tools', ['read', 'grep']],
        ],
        '\nYou review.\n\n',
      ),
    ).toBe(
      '---\nname: reviewer\ndescription: "Review: changes"\nrunAs: subagent\nread-only: true\nallowed-tools: [read, grep]\n---\nYou review.\n',
    );
  });
});
