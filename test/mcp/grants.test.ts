import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { grantMcpTools, type McpGrant, type SubagentTier } from '../../src/mcp/grants.js';
import { createMcpTool } from '../../src/mcp/tool.js';
import type { AnyTool } from '../../src/tool/tool.js';

function mcp(server: string, tool: string): AnyTool {
  return createMcpTool(
    server,
    { name: tool, inputSchema: { type: 'object' } },
    `mcp__${server}__${tool}`,
    async () => ({
      output: '',
    }),
  );
}

function builtin(name: string): AnyTool {
  return {
    name,
    description: name,
    schema: z.object({}),
    safety: 'read',
    subject: () => ({ kind: 'none' }),
    execute: async () => ({ output: '' }),
  };
}

/** A tool named like an MCP tool but built elsewhere (no origin): the bare name comes from the name. */
function plainMcpNamed(name: string): AnyTool {
  return { ...builtin(name), safety: 'write' };
}

const live: AnyTool[] = [
  builtin('read'),
  builtin('bash'),
  mcp('fs', 'read_file'),
  mcp('fs', 'write_file'),
  mcp('git', 'status'),
  mcp('web', 'status'),
  plainMcpNamed('mcp__db__query'),
];

const names = (tools: AnyTool[]) => tools.map((tool) => tool.name);

describe('grantMcpTools', () => {
  it.each<[string, McpGrant, SubagentTier, string[], number]>([
    ['no grant gives nothing', undefined, 'readonly', [], 0],
    ['an empty list gives nothing', [], 'readwrite', [], 0],
    [
      'all gives every MCP tool and no built-in',
      'all',
      'readonly',
      ['mcp__fs__read_file', 'mcp__fs__write_file', 'mcp__git__status', 'mcp__web__status', 'mcp__db__query'],
      0,
    ],
    ['a full name gives that tool', ['mcp__fs__write_file'], 'readwrite', ['mcp__fs__write_file'], 0],
    ['a bare name gives that tool', ['read_file'], 'readonly', ['mcp__fs__read_file'], 0],
    [
      'a bare name shared by two servers gives both',
      ['status'],
      'readonly',
      ['mcp__git__status', 'mcp__web__status'],
      0,
    ],
    ['a bare name is read from a tool without origin', ['query'], 'readonly', ['mcp__db__query'], 0],
    [
      'a pattern gives the matching tools',
      ['mcp__fs__*'],
      'readonly',
      ['mcp__fs__read_file', 'mcp__fs__write_file'],
      0,
    ],
    [
      'bare and full names mix, duplicates collapse, order follows the live set',
      ['mcp__git__status', 'read_file', 'mcp__fs__read_file'],
      'readwrite',
      ['mcp__fs__read_file', 'mcp__git__status'],
      0,
    ],
    ['an unknown name is warned and skipped', ['nope', 'read_file'], 'readonly', ['mcp__fs__read_file'], 1],
    ['a built-in name grants nothing and is warned', ['read', 'bash'], 'readwrite', [], 2],
    ['all on a toolless tier gives nothing', 'all', 'toolless', [], 1],
    ['a list on a toolless tier gives nothing', ['read_file'], 'toolless', [], 1],
  ])('%s', (_name, grant, tier, expected, warningCount) => {
    const result = grantMcpTools(grant, tier, live);
    expect(names(result.tools)).toEqual(expected);
    expect(result.warnings).toHaveLength(warningCount);
  });

  it('names the unknown tool in its warning', () => {
    expect(grantMcpTools(['mcp__fs__delete'], 'readonly', live).warnings).toEqual([
      'subagent_mcp names "mcp__fs__delete", which no connected MCP server offers; ignored',
    ]);
  });

  it('says why a built-in is refused', () => {
    expect(grantMcpTools(['read'], 'readonly', live).warnings).toEqual([
      'subagent_mcp cannot grant the built-in tool "read"; ignored',
    ]);
  });

  it('refuses a built-in name even when an MCP server has a tool of that bare name', () => {
    const withServerRead = [...live, mcp('notes', 'read')];
    const result = grantMcpTools(['read'], 'readonly', withServerRead);
    expect(result.tools).toEqual([]);
    expect(names(grantMcpTools(['mcp__notes__read'], 'readonly', withServerRead).tools)).toEqual([
      'mcp__notes__read',
    ]);
  });

  it('warns that a toolless profile cannot hold MCP tools', () => {
    expect(grantMcpTools('all', 'toolless', live).warnings[0]).toMatch(/toolless/);
  });

  it('never returns a tool whose name lacks the mcp__ prefix, even under a pattern', () => {
    const result = grantMcpTools(['*'], 'readwrite', live);
    expect(names(result.tools).every((name) => name.startsWith('mcp__'))).toBe(true);
    expect(result.tools).toHaveLength(5);
  });
});
