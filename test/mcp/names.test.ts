import { describe, expect, it } from 'vitest';
import { disambiguate, MAX_TOOL_NAME_LENGTH, mcpToolName, serverNameParts } from '../../src/mcp/names.js';

describe('mcpToolName', () => {
  it.each([
    ['everything', 'echo', 'mcp__everything__echo'],
    ['fs', 'read-file', 'mcp__fs__read-file'],
    ['my.server', 'tools/list dir', 'mcp__my_server__tools_list_dir'],
    ['café', 'ünïcode', 'mcp__caf____n_code'],
    ['', '', 'mcp______'],
  ])('names %j / %j as %s', (server, tool, expected) => {
    expect(mcpToolName(server, tool)).toBe(expected);
  });

  it('cuts a long name to 64 characters and keeps two long names sharing a prefix distinct', () => {
    const first = mcpToolName('a-rather-long-server-name', `${'x'.repeat(60)}_one`);
    const second = mcpToolName('a-rather-long-server-name', `${'x'.repeat(60)}_two`);
    expect(first).toHaveLength(MAX_TOOL_NAME_LENGTH);
    expect(second).toHaveLength(MAX_TOOL_NAME_LENGTH);
    expect(first).not.toBe(second);
    expect(first).toMatch(/^mcp__a-rather-long-server-name__x+_[0-9a-f]{8}$/);
  });
});

describe('disambiguate', () => {
  it('keeps a free name and changes a taken one', () => {
    expect(disambiguate('mcp__s__a_b', 'a.b', new Set())).toBe('mcp__s__a_b');
    const renamed = disambiguate('mcp__s__a_b', 'a.b', new Set(['mcp__s__a_b']));
    expect(renamed).toMatch(/^mcp__s__a_b_[0-9a-f]{8}$/);
  });
});

describe('serverNameParts', () => {
  it('gives servers whose names sanitize alike distinct parts and leaves the others alone', () => {
    const parts = serverNameParts(['my.fs', 'my_fs', 'git']);
    expect(parts.get('git')).toBe('git');
    expect(parts.get('my.fs')).toMatch(/^my_fs_[0-9a-f]{8}$/);
    expect(parts.get('my_fs')).toMatch(/^my_fs_[0-9a-f]{8}$/);
    expect(parts.get('my.fs')).not.toBe(parts.get('my_fs'));
  });
});
