import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseSimpleYaml } from '../../src/profile/simple-yaml.js';
import { pick, prng as rng } from '../support/prng.js';

/** What the real parser makes of `text`, or the error it throws. */
function real(text: string): { value: unknown } | { error: true } {
  try {
    return { value: parse(text, { prettyErrors: false }) ?? {} };
  } catch {
    return { error: true };
  }
}

/** The fast path either declines or agrees exactly with the real parser. */
function expectAgreement(text: string): boolean {
  const fast = parseSimpleYaml(text);
  if (fast === undefined) return false;
  const truth = real(text);
  expect(truth, text).toHaveProperty('value');
  if ('value' in truth) expect(fast, text).toStrictEqual(truth.value);
  return true;
}

const ATOMS = [
  'high',
  'off',
  'yes',
  'No',
  'true',
  'False',
  'NULL',
  '~',
  '0',
  '-0',
  '01',
  '0.2',
  '.5',
  '1.',
  '1e3',
  '0x1f',
  '+1',
  '.inf',
  '.NaN',
  '12345678901234567890',
  'git push *',
  'read(src/**)',
  'a: b',
  'a #b',
  'a#b',
  'a, b',
  'a  b',
  '*alias',
  '&anchor x',
  '!tag x',
  '- item',
  '[x]',
  '{a: 1}',
  '|',
  '>',
  '@at',
  '%pct',
  '`tick`',
  '"quoted"',
  '"with, comma"',
  '"esc\\n"',
  '"a"b"',
  "'single'",
  "'it''s'",
  '""',
  "''",
  'Ünïcode',
  '"é and \u0001 control"',
  "'next\u0085line'",
  '"line\u2028separator"',
  'x = y',
  'path/to/file.md',
  ' padded ',
];
const KEYS = [
  'name',
  'description',
  'model',
  'effort',
  'deny_tools',
  'read-only',
  'true',
  'null',
  '__proto__',
  'x',
];

/** Atoms the fast path takes: half the documents use only these, so long documents get accepted too. */
const PLAIN_ATOMS = [
  'high',
  'True',
  'null',
  '0.2',
  '-0',
  'git push *',
  'read(src/**)',
  "'single'",
  '"with, comma"',
  'a, b',
];

function valueText(random: () => number, atoms: readonly string[] = ATOMS): string {
  const roll = random();
  if (roll < 0.6) return pick(random, atoms);
  if (roll < 0.9) {
    const n = Math.floor(random() * 4);
    const items = Array.from({ length: n }, () => pick(random, atoms));
    const separator = pick(random, [', ', ',', ' , ']);
    return `[${items.join(separator)}${random() < 0.1 ? ',' : ''}]`;
  }
  return '';
}

const COMMENTS = ['# owned by the platform team', '#', '# a: b', '  # indented note'];
const BLOCK_LINES = [
  'Reviews the change',
  'then reports: file and line',
  '',
  '  more indented',
  '# not a comment',
  'ends here ',
  'x',
];

/** A `|` or `>` block scalar: header, then lines at one indent (blank and more-indented lines included). */
function blockScalarText(random: () => number, indent: string): string[] {
  const header = `${pick(random, ['|', '>'])}${pick(random, ['', '', '-', '+', '2'])}`;
  const comment = random() < 0.2 ? ' # folded' : '';
  const body = pick(random, ['  ', '  ', '    ', ' ']);
  const count = 1 + Math.floor(random() * 4);
  const lines = Array.from({ length: count }, () => {
    const line = pick(random, BLOCK_LINES);
    return line === '' ? (random() < 0.9 ? '' : body) : `${indent}${body}${line}`;
  });
  return [header + comment, ...lines];
}

/** A value with an anchor (`&a`) or an alias of one already written (`*a`), or none. */
function anchorPrefix(random: () => number, anchors: string[]): string {
  if (random() < 0.25) {
    const name = pick(random, ['a', 'b', 'ro']);
    anchors.push(name);
    return `&${name} `;
  }
  return '';
}

function aliasOrValue(random: () => number, anchors: string[], atoms: readonly string[]): string {
  if (random() < (anchors.length > 0 ? 0.3 : 0.05))
    return `*${anchors.length > 0 && random() < 0.9 ? pick(random, anchors) : 'missing'}`;
  const value = valueText(random, atoms);
  return value === '' ? value : `${anchorPrefix(random, anchors)}${value}`;
}

function withComment(random: () => number, line: string): string {
  return random() < 0.15 ? `${line}${pick(random, [' # note', '  # note', ' #', '#x'])}` : line;
}

/** A nested block under an empty key: a mapping, a block list (indented or at the key's own indent). */
function nestedBlock(
  random: () => number,
  keyIndent: string,
  anchors: string[],
  atoms: readonly string[],
): string[] {
  const lines: string[] = [];
  const list = random() < 0.5;
  const indent =
    list && random() < 0.5 ? keyIndent : `${keyIndent}${pick(random, ['  ', '  ', '    ', ' '])}`;
  const count = 1 + Math.floor(random() * 3);
  for (let j = 0; j < count; j++) {
    const itemIndent = random() < 0.92 ? indent : `${indent} `;
    if (random() < 0.1) lines.push(pick(random, COMMENTS));
    const value = aliasOrValue(random, anchors, atoms);
    if (list) lines.push(withComment(random, `${itemIndent}-${value === '' ? '' : ` ${value}`}`));
    else {
      const key = pick(random, ['allow', 'ask', 'deny', 'tools', 'x']);
      if (random() < 0.1)
        lines.push(`${itemIndent}${key}: ${blockScalarText(random, itemIndent).join('\n')}`);
      else lines.push(withComment(random, `${itemIndent}${key}:${value === '' ? '' : ` ${value}`}`));
    }
  }
  return lines;
}

function documentText(random: () => number): string {
  const lines: string[] = [];
  const anchors: string[] = [];
  const atoms = random() < 0.5 ? PLAIN_ATOMS : ATOMS;
  const count = 1 + Math.floor(random() * 6);
  for (let i = 0; i < count; i++) {
    if (random() < 0.1) lines.push(pick(random, COMMENTS));
    const key = pick(random, KEYS);
    if (random() < 0.15) {
      lines.push(`${key}: ${blockScalarText(random, '').join('\n')}`);
      continue;
    }
    const value = aliasOrValue(random, anchors, atoms);
    const anchor = value === '' && random() < 0.2 ? ` ${anchorPrefix(random, anchors).trim()}` : '';
    lines.push(withComment(random, value === '' ? `${key}:${anchor}` : `${key}: ${value}`));
    if (value === '' && random() < 0.7) lines.push(...nestedBlock(random, '', anchors, atoms));
    if (random() < 0.05) lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

describe('parseSimpleYaml', () => {
  it.each([
    ['a plain profile', 'description: cheap reviewer\nmodel: haiku\neffort: high\ntemperature: 0.2\n'],
    ['flow lists', 'deny_tools: [bash, write]\ntools: ["Read", \'Grep\']\nempty: []\n'],
    [
      'a nested permission block',
      'permission:\n  allow: ["read(src/**)", grep]\n  deny: ["bash(git push *)"]\n',
    ],
    ['typed words', 'read-only: true\nreviewer: False\ncolor: null\nmax-steps: 15\n'],
    ['an empty value', 'model:\ndescription: x\n'],
    [
      'comments',
      '# owner: platform\nmodel: haiku # cheap\npermission:  # rules\n  # none yet\n  allow: [grep]\n',
    ],
    ['block lists', 'deny_tools:\n  - bash\n  - "write"\nallow_tools:\n- read\nmodel: x\n'],
    [
      'a folded block scalar',
      'description: >-\n  Reviews changes,\n  then reports.\n\n  # Findings\nmodel: x\n',
    ],
    ['a literal block scalar', 'description: |\n  one\n    two\n\n  three\n\nmodel: x\n'],
    [
      'an anchor and its alias',
      'allow_tools: &ro\n  - read\n  - grep\nsubagent_allow: *ro\nmodel: &m haiku\nx: *m\n',
    ],
  ])('agrees with the yaml package on %s', (_label, text) => {
    expect(expectAgreement(text)).toBe(true);
  });

  it.each([
    ['a tag', 'model: !str haiku\n'],
    ['a kept block scalar', 'description: |+\n  one\n\nmodel: x\n'],
    ['an indentation indicator', 'description: |2\n   one\n'],
    ['a more-indented folded line', 'description: >\n  one\n    two\n'],
    ['an alias of an unknown anchor', 'model: *m\n'],
    ['an alias inside an anchored list', 'a: &x haiku\nb: &y\n  - *x\n'],
    ['a mapping in a list', 'tools:\n  - name: read\n'],
    ['a repeated key', 'model: a\nmodel: b\n'],
    ['an escaped string', 'description: "a\\tb"\n'],
    ['a multi-line scalar', 'description: one\n  two\n'],
    ['an exotic number', 'temperature: 1e-1\n'],
    ['a mapping value in a compact mapping', 'description: a: b\n'],
    ['a __proto__ key', '__proto__: x\n'],
    ['a typed key', 'true: x\n'],
    ['CRLF line ends', 'model: haiku\r\n'],
  ])('leaves %s to the real parser', (_label, text) => {
    expect(parseSimpleYaml(text)).toBeUndefined();
  });

  it('agrees with the yaml package on every fixture profile it accepts', () => {
    const root = join(import.meta.dirname, '..', 'fixtures', 'profiles');
    const files = readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    for (const entry of files) {
      const text = readFileSync(join(entry.parentPath, entry.name), 'latin1');
      const match = /^---\n([\s\S]*?)\n---/.exec(text);
      if (match) expectAgreement(`${match[1]}\n`);
    }
  });

  it('declines or agrees exactly on 20,000 generated documents (seeded)', () => {
    const features: Record<string, RegExp> = {
      comment: /#/,
      literal: /: \|/,
      folded: /: >/,
      alias: /\*[a-z]/,
      'block list': /\n *- /,
      "list at its key's indent": /:\n- /,
      'blank line in a block scalar': /[|>][^\n]*\n(?: +[^\n]*\n)+\n+ +\S/,
    };
    const seen = new Map<string, number>();
    let accepted = 0;
    for (let seed = 1; seed <= 20_000; seed++) {
      const text = documentText(rng(seed));
      if (!expectAgreement(text)) continue;
      accepted++;
      for (const [name, pattern] of Object.entries(features))
        if (pattern.test(text)) seen.set(name, (seen.get(name) ?? 0) + 1);
    }
    // The generator must exercise the fast path itself, not only its refusals, and each construct in it.
    expect(accepted).toBeGreaterThan(1_000);
    for (const name of Object.keys(features)) expect(seen.get(name) ?? 0, name).toBeGreaterThan(20);
  });
});
