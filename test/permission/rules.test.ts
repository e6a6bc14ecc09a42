import { describe, expect, it } from 'vitest';
import { PermissionRuleError, parseRule, parseRuleBlock } from '../../src/permission/rules.js';

describe('parseRule', () => {
  it.each([
    ['bash', { tool: 'bash', pattern: undefined }],
    ['bash(git diff *)', { tool: 'bash', pattern: 'git diff *' }],
    ['  read( src/** ) ', { tool: 'read', pattern: 'src/**' }],
    ['mcp__fs__*', { tool: 'mcp__fs__*', pattern: undefined }],
    ['*', { tool: '*', pattern: undefined }],
    ['webfetch(domain:example.com)', { tool: 'webfetch', pattern: 'domain:example.com' }],
    ['bash(echo (a))', { tool: 'bash', pattern: 'echo (a)' }],
  ])('parses %s', (text, expected) => {
    const rule = parseRule(text, 'f.json:3', 'deny');
    expect(rule.tool).toBe(expected.tool);
    expect(rule.pattern).toBe(expected.pattern);
    expect(rule.action).toBe('deny');
    expect(rule.source).toBe('f.json:3');
  });

  it.each([
    ['bash(git diff', /unterminated/],
    ['(git diff)', /empty tool/],
    ['', /empty tool/],
    ['bash()', /empty pattern/],
    ['ba sh', /invalid tool name/],
    ['bash)', /invalid tool name/],
  ])('rejects malformed rule %j', (text, message) => {
    expect(() => parseRule(text, 'p.md:4')).toThrow(PermissionRuleError);
    expect(() => parseRule(text, 'p.md:4')).toThrow(message);
  });

  it('defaults the action to allow', () => {
    expect(parseRule('read', 'session').action).toBe('allow');
  });
});

describe('parseRuleBlock', () => {
  const text = [
    '---',
    'permission:',
    '  allow:',
    '    - "bash(git diff *)"',
    '  deny:',
    '    - bash',
    '---',
  ].join('\n');

  it('names each rule by file and line', () => {
    const parsed = parseRuleBlock({ allow: ['bash(git diff *)'], deny: ['bash'] }, 'agents/r.md', text);
    expect(parsed.allow[0].source).toBe('agents/r.md:4');
    expect(parsed.deny[0].source).toBe('agents/r.md:6');
    expect(parsed.rules.map((r) => r.action)).toEqual(['allow', 'deny']);
  });

  it('orders allow, ask, deny so that a block denying and allowing the same call denies it', () => {
    const parsed = parseRuleBlock({ deny: ['bash'], ask: ['read'], allow: ['bash'] }, 'f');
    expect(parsed.rules.map((r) => r.action)).toEqual(['allow', 'ask', 'deny']);
  });

  it('gives repeated rule strings successive lines', () => {
    const src = '{\n "allow": ["read"],\n "deny": ["read"]\n}';
    const parsed = parseRuleBlock({ allow: ['read'], deny: ['read'] }, 'c.json', src);
    expect(parsed.allow[0].source).toBe('c.json:2');
    expect(parsed.deny[0].source).toBe('c.json:3');
  });

  it('falls back to the file name when the text is not given', () => {
    expect(parseRuleBlock({ allow: ['read'] }, 'c.json').allow[0].source).toBe('c.json');
  });

  it.each([null, undefined, {}, { allow: null }])('treats %j as no rules', (block) => {
    expect(parseRuleBlock(block, 'f').rules).toEqual([]);
  });

  it.each([
    ['a list', ['bash'], /must be an object/],
    ['a string', 'bash', /must be an object/],
    ['an unknown key', { allwo: ['bash'] }, /unknown permission list "allwo"/],
    ['a non-list value', { deny: 'bash' }, /must be a list/],
    ['a non-string item', { deny: [42] }, /permission.deny\[0\] must be a string/],
    ['a malformed rule', { deny: ['bash(rm'] }, /r\.md: rule "bash\(rm" has an unterminated/],
  ])('throws naming the file for %s', (_label, block, message) => {
    expect(() => parseRuleBlock(block, 'r.md')).toThrow(PermissionRuleError);
    expect(() => parseRuleBlock(block, 'r.md')).toThrow(message);
  });
});
