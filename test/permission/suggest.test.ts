import { describe, expect, it } from 'vitest';
import { suggestRule } from '../../src/permission/suggest.js';
import type { PermissionSubject } from '../../src/tool/tool.js';

describe('suggestRule', () => {
  it.each<[string, PermissionSubject, string]>([
    ['bash', { kind: 'bash', command: 'git checkout main' }, 'bash(git checkout *)'],
    ['bash', { kind: 'bash', command: 'ls -la src' }, 'bash(ls *)'],
    ['bash', { kind: 'bash', command: 'npm test && npm run lint' }, 'bash(npm test *)'],
    ['edit', { kind: 'path', paths: ['/p/src/lib/a.ts'] }, 'edit(src/lib/**)'],
    ['edit', { kind: 'path', paths: ['/p/README.md'] }, 'edit(README.md)'],
    ['read', { kind: 'path', paths: ['/h/notes/x.md'] }, 'read(~/notes/**)'],
    ['webfetch', { kind: 'url', url: 'https://docs.example.com/x' }, 'webfetch(domain:docs.example.com)'],
    ['task', { kind: 'name', value: 'reviewer' }, 'task(reviewer)'],
    ['mcp__fs__read', { kind: 'none' }, 'mcp__fs__read'],
  ])('suggests for %s %j', (tool, subject, expected) => {
    expect(suggestRule(tool, subject, '/p', '/h')).toBe(expected);
  });
});
