import { describe, expect, it } from 'vitest';
import type { PolicyLayer } from '../../src/permission/decide.js';
import { type MatchContext, ruleMatches } from '../../src/permission/match.js';
import { candidateRules } from '../../src/permission/rule-index.js';
import { parseRules } from '../../src/permission/rules.js';
import type { PermissionSubject } from '../../src/tool/tool.js';
import { pick, prng } from '../support/prng.js';

const CONTEXT: MatchContext = { root: '/work/project', home: '/home/u' };

const BASH_PATTERNS = [
  'git *',
  'git diff *',
  'git diff:*',
  'git diff --stat *',
  'git * --force',
  '*',
  'git',
  'gi*',
  'npm run test *',
  'npm run *',
  'ls *',
  '* --help',
];
const PATH_PATTERNS = [
  'src/**',
  'packages/p1/src/**',
  'packages/p12/**',
  'packages/*/src/**',
  'packages/p1',
  '*.ts',
  '.env*',
  '**',
  '*',
  './docs/a.md',
  '/etc/**',
  '/work/project/packages/p1/**',
  '~/.ssh/**',
  '~/.config/tool1/**',
  'packages/p{1,2}/**',
  'packages/[pq]1/**',
];
const URL_PATTERNS = [
  'domain:example.com',
  'domain:*.example.com',
  'domain:docs.example.com',
  'domain:other.org',
  'https://docs.example.com/*',
  '*',
];
const COMMANDS = [
  'git status',
  'git diff',
  'git diff --stat HEAD',
  'git push --force',
  'gitk',
  'npm run test',
  'ls',
  'lsof',
];
const PATHS = [
  '/work/project/src/a.ts',
  '/work/project/packages/p1/src/x.ts',
  '/work/project/packages/p12/src/x.ts',
  '/work/project/packages/p1',
  '/work/project/packages/q1/a',
  '/work/project/.env.local',
  '/work/project',
  '/work/project/docs/a.md',
  '/etc/passwd',
  '/home/u/.ssh/id_rsa',
  '/home/u/.config/tool12/x',
];
const URLS = [
  'https://example.com/a',
  'https://docs.example.com/a',
  'https://EVIL.example.com./x',
  'https://other.org',
  'https://notexample.com',
];

function randomLayers(random: () => number): PolicyLayer[] {
  const actions = ['allow', 'ask', 'deny'] as const;
  return [0, 1].map((n) => {
    const rules = Array.from({ length: 10 + Math.floor(random() * 30) }, (_, i) => {
      const roll = random();
      const text =
        roll < 0.4
          ? `bash(${pick(random, BASH_PATTERNS)})`
          : roll < 0.75
            ? `${pick(random, ['edit', 'read'])}(${pick(random, PATH_PATTERNS)})`
            : roll < 0.95
              ? `webfetch(${pick(random, URL_PATTERNS)})`
              : pick(random, ['bash', 'edit', '*']);
      return parseRules(text, `layer${n}:${i}`, pick(random, actions));
    }).flat();
    return { name: `layer${n}`, label: `layer ${n}`, rules };
  });
}

function randomCall(random: () => number): { tool: string; subject: PermissionSubject } {
  const roll = random();
  if (roll < 0.35) return { tool: 'bash', subject: { kind: 'bash', command: pick(random, COMMANDS) } };
  if (roll < 0.75) {
    const paths = random() < 0.9 ? [pick(random, PATHS)] : [pick(random, PATHS), pick(random, PATHS)];
    return { tool: pick(random, ['edit', 'read']), subject: { kind: 'path', paths } };
  }
  return { tool: 'webfetch', subject: { kind: 'url', url: pick(random, URLS) } };
}

describe('candidateRules', () => {
  it('narrows without losing a rule that matches: the same matches in the same order (seeded)', () => {
    let narrowed = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const random = prng(seed);
      const layers = randomLayers(random);
      for (let n = 0; n < 40; n++) {
        const { tool, subject } = randomCall(random);
        const all = layers.flatMap((layer) => layer.rules);
        const expected = all.filter((rule) => ruleMatches(rule, tool, subject, CONTEXT));
        const candidates = candidateRules(layers, tool, subject, CONTEXT).map((c) => c.rule);
        expect(
          candidates.filter((rule) => ruleMatches(rule, tool, subject, CONTEXT)),
          `${tool} ${JSON.stringify(subject)}`,
        ).toEqual(expected);
        if (candidates.length < all.filter((rule) => rule.tool === tool || rule.tool === '*').length)
          narrowed++;
      }
    }
    // The index must actually set rules aside, or it measures nothing.
    expect(narrowed).toBeGreaterThan(3000);
  });

  it.each([
    [
      'a directory of other packages',
      'edit(packages/p2/src/**)',
      '/work/project/packages/p1/src/a.ts',
      false,
    ],
    ['a prefix of the directory', 'edit(packages/p1/**)', '/work/project/packages/p1/src/a.ts', true],
    ['a name at any depth', 'edit(*.ts)', '/work/project/packages/p1/src/a.ts', true],
    ['a home pattern elsewhere', 'edit(~/.ssh/**)', '/work/project/a.ts', false],
  ])('sets aside or keeps path rules: %s', (_label, text, path, kept) => {
    const layers = [{ name: 'config', label: 'config', rules: parseRules(text, 'c.json', 'deny') }];
    const subject: PermissionSubject = { kind: 'path', paths: [path] };
    expect(candidateRules(layers, 'edit', subject, CONTEXT).length > 0).toBe(kept);
  });
});
