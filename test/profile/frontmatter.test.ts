import { describe, expect, it } from 'vitest';
import { parseFrontmatter } from '../../src/profile/frontmatter.js';

describe('parseFrontmatter', () => {
  it('parses nested YAML such as a permission block', () => {
    const result = parseFrontmatter('---\npermission:\n  deny:\n    - bash\n---\nBody.\n');
    expect(result).toEqual({
      ok: true,
      value: { fields: { permission: { deny: ['bash'] } }, present: true, body: 'Body.', notes: [] },
    });
  });

  it.each([
    ['no frontmatter', 'Just a body.\n', { fields: {}, present: false, body: 'Just a body.' }],
    [
      'a byte-order mark',
      '\uFEFF---\nmodel: x\n---\nB\n',
      { fields: { model: 'x' }, present: true, body: 'B' },
    ],
    [
      'CRLF line endings',
      '---\r\nmodel: x\r\n---\r\nB\r\n',
      { fields: { model: 'x' }, present: true, body: 'B' },
    ],
    ['empty delimiters', '---\n---\nB\n', { fields: {}, present: true, body: 'B' }],
    [
      'a --- rule inside the body',
      '---\na: 1\n---\nTop\n---\nBottom\n',
      { fields: { a: 1 }, present: true, body: 'Top\n---\nBottom' },
    ],
  ])('handles %s', (_label, text, value) => {
    expect(parseFrontmatter(text)).toEqual({ ok: true, value: { ...value, notes: [] } });
  });

  it.each([
    ['---\nmodel: x\n', /^unterminated frontmatter/],
    ['---\na: [1\n---\n', /^unparsable frontmatter/],
    ['---\njust a string\n---\n', /expected a mapping/],
  ])('refuses %j', (text, reason) => {
    const result = parseFrontmatter(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });
});
