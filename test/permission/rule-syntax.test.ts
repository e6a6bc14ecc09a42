import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPermissionGate } from '../../src/permission/gate.js';
import { PermissionRuleError, parseRuleBlock, parseRules } from '../../src/permission/rules.js';
import type { PermissionSubject } from '../../src/tool/tool.js';

/**
 * Issue 15 point 7 and issue 16 B1: Claude Code's rule syntax, Reasonix and bnerd tool names, through the
 * one translation table; an unknown tool name is an error naming file and line.
 */
describe("rules in other tools' names", () => {
  it.each([
    ['Bash(npm run test:*)', [['bash', 'npm run test:*']]],
    ['Bash', [['bash'], ['bash_output'], ['kill_shell']]],
    ['Read(./.env)', [['read', './.env']]],
    [
      'Edit(src/**)',
      [
        ['edit', 'src/**'],
        ['edit_lines', 'src/**'],
      ],
    ],
    [
      'MultiEdit(src/**)',
      [
        ['edit', 'src/**'],
        ['edit_lines', 'src/**'],
        ['apply_patch', 'src/**'],
      ],
    ],
    ['Write(//etc/hosts)', [['write', '/etc/hosts']]],
    ['Read(~/.ssh/**)', [['read', '~/.ssh/**']]],
    ['WebFetch(domain:example.com)', [['webfetch', 'domain:example.com']]],
    ['Glob', [['glob'], ['find_files']]],
    [
      'Task(reviewer)',
      [
        ['task', 'reviewer'],
        ['task_status', 'reviewer'],
      ],
    ],
    ['TodoWrite', [['write_todo_list']]],
    ['shell_exec(git *)', [['bash', 'git *']]],
    ['shell_exec', [['bash'], ['bash_output'], ['kill_shell']]],
    ['read_file(src/**)', [['read', 'src/**']]],
    ['web_fetch(domain:x.org)', [['webfetch', 'domain:x.org']]],
    ['mcp__github__create_issue', [['mcp__github__create_issue']]],
    ['mcp__down_server__*', [['mcp__down_server__*']]],
  ])('%s becomes %j', (text, expected) => {
    const rules = parseRules(text, '/home/u/.claude/settings.json:3', 'deny');
    expect(rules.map((r) => (r.pattern === undefined ? [r.tool] : [r.tool, r.pattern]))).toEqual(expected);
    expect(rules.every((r) => r.text === text && r.action === 'deny')).toBe(true);
  });

  it('anchors a Claude Code /x path at the settings file folder', () => {
    const [rule] = parseRules('Read(/secrets/**)', '/work/proj/.claude/settings.json:7');
    expect(rule.pattern).toBe('/work/proj/.claude/secrets/**');
    // cadre's own lowercase form keeps /x absolute
    expect(parseRules('read(/secrets/**)', '/work/proj/.cadre/config.json:7')[0].pattern).toBe('/secrets/**');
  });

  it.each([['bassh(ls)'], ['Bsh'], ['Execute'], ['shell'], ['reed(src/**)']])(
    'an unknown tool name %s is an error naming file and line',
    (text) => {
      expect(() => parseRuleBlock({ deny: [text] }, 'cfg.json', `{"deny": ["${text}"]}`)).toThrow(
        PermissionRuleError,
      );
      expect(() =>
        parseRuleBlock({ deny: ['bash', text] }, 'cfg.json', `{\n"deny": ["bash",\n "${text}"]}`),
      ).toThrow(/cfg\.json:3: rule .* names no known tool/);
    },
  );

  it('keeps allow, then ask, then deny within one block: deny wins', () => {
    const parsed = parseRuleBlock(
      { deny: ['Bash(rm:*)'], allow: ['Bash'], ask: ['shell_exec(git push *)'] },
      'f',
    );
    expect(parsed.rules.map((r) => r.action)).toEqual(['allow', 'allow', 'allow', 'ask', 'deny']);
  });
});

describe('translated rules decide calls', () => {
  const base = mkdtempSync(join(tmpdir(), 'cadre-rule-syntax-'));
  const root = join(base, 'project');
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, '.env'), 'x');
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  const decide = async (rules: Record<string, readonly string[]>, tool: string, subject: PermissionSubject) =>
    (
      await createPermissionGate({
        root,
        home: join(base, 'home'),
        safety: 'full',
        yes: false,
        config: [{ file: join(root, '.claude', 'settings.json'), block: rules }],
      }).decide({ tool, subject, safety: tool === 'read' ? 'read' : 'write', agent: 'main' })
    ).action;

  it.each([
    [{ allow: ['shell_exec(git *)'] }, 'bash', { kind: 'bash', command: 'git status' }, 'allow'],
    [{ allow: ['Bash(npm run test:*)'] }, 'bash', { kind: 'bash', command: 'npm run test' }, 'allow'],
    [{ allow: ['Bash(npm run test:*)'] }, 'bash', { kind: 'bash', command: 'npm run test -- -u' }, 'allow'],
    [{ allow: ['Bash(npm run test:*)'] }, 'bash', { kind: 'bash', command: 'npm run build' }, 'ask'],
    [{ deny: ['Read(./.env)'] }, 'read', { kind: 'path', paths: ['.env'] }, 'deny'],
    [{ allow: ['Edit(src/**)'] }, 'edit_lines', { kind: 'path', paths: ['src/a.ts'] }, 'allow'],
    [{ allow: ['Edit(src/**)'] }, 'edit', { kind: 'path', paths: ['lib/a.ts'] }, 'ask'],
    [
      { deny: ['WebFetch(domain:evil.com)'] },
      'webfetch',
      { kind: 'url', url: 'https://a.evil.com/' },
      'deny',
    ],
    [{ deny: ['shell_exec'] }, 'bash', { kind: 'bash', command: 'ls' }, 'deny'],
  ] as const)('%j: %s %j is %s', async (rules, tool, subject, expected) => {
    expect(await decide(rules, tool, subject as PermissionSubject)).toBe(expected);
  });
});
