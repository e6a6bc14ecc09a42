import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseSimpleYaml } from '../../src/profile/simple-yaml.js';
import { prng as rng } from '../support/prng.js';

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

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}

function valueText(random: () => number): string {
  const roll = random();
  if (roll < 0.6) return pick(random, ATOMS);
  if (roll < 0.9) {
    const n = Math.floor(random() * 4);
    const items = Array.from({ length: n }, () => pick(random, ATOMS));
    const separator = pick(random, [', ', ',', ' , ']);
    return `[${items.join(separator)}${random() < 0.1 ? ',' : ''}]`;
  }
  return '';
}

function documentText(random: () => number): string {
  const lines: string[] = [];
  const count = 1 + Math.floor(random() * 6);
  for (let i = 0; i < count; i++) {
    const key = pick(random, KEYS);
    const value = valueText(random);
    lines.push(value === '' ? `${key}:` : `${key}: ${value}`);
    if (value === '' && random() < 0.7) {
      const indent = pick(random, ['  ', '  ', '    ', ' ']);
      const nested = 1 + Math.floor(random() * 3);
      for (let j = 0; j < nested; j++) {
        const nestedIndent = random() < 0.9 ? indent : `${indent} `;
        lines.push(
          `${nestedIndent}${pick(random, ['allow', 'ask', 'deny', 'tools', 'x'])}: ${valueText(random)}`,
        );
      }
    }
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
  ])('agrees with the yaml package on %s', (_label, text) => {
    expect(expectAgreement(text)).toBe(true);
  });

  it.each([
    ['a comment', 'model: haiku # cheap\n'],
    ['a block list', 'deny_tools:\n  - bash\n'],
    ['a repeated key', 'model: a\nmodel: b\n'],
    ['an escaped string', 'description: "a\\tb"\n'],
    ['a multi-line scalar', 'description: one\n  two\n'],
    ['an exotic number', 'temperature: 1e-1\n'],
    ['a mapping value in a compact mapping', 'description: a: b\n'],
    ['an anchor', 'model: &m haiku\n'],
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
    let accepted = 0;
    for (let seed = 1; seed <= 20_000; seed++) {
      if (expectAgreement(documentText(rng(seed)))) accepted++;
    }
    // The generator must exercise the fast path itself, not only its refusals.
    expect(accepted).toBeGreaterThan(1_000);
  });
});
