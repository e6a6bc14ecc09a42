import { describe, expect, it } from 'vitest';
import { createMcpTool, isMcpTool, type RemoteTool, safetyFromAnnotations } from '../../src/mcp/tool.js';
import type { SafetyClass } from '../../src/tool/tool.js';
import { toolContext } from './helpers.js';

describe('safetyFromAnnotations', () => {
  it.each<[RemoteTool['annotations'], SafetyClass]>([
    [undefined, 'write'],
    [{}, 'write'],
    [{ readOnlyHint: true }, 'read'],
    [{ readOnlyHint: true, destructiveHint: false }, 'read'],
    [{ readOnlyHint: false, destructiveHint: false }, 'write'],
    [{ destructiveHint: true }, 'destructive'],
    [{ readOnlyHint: false, destructiveHint: true }, 'destructive'],
  ])('classes %j as %s', (annotations, safety) => {
    expect(safetyFromAnnotations(annotations)).toBe(safety);
  });
});

describe('createMcpTool', () => {
  const remote: RemoteTool = {
    name: 'lookup.thing',
    inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  };

  it('carries the server schema, a none subject and a fallback description', () => {
    const tool = createMcpTool('srv', remote, 'mcp__srv__lookup_thing', async () => ({ output: '' }));
    expect(tool.inputJsonSchema).toEqual(remote.inputSchema);
    expect(tool.subject({})).toEqual({ kind: 'none' });
    expect(tool.description).toBe('Tool "lookup.thing" from MCP server "srv".');
    expect(tool.safety).toBe('write');
    expect(isMcpTool(tool)).toBe(true);
    expect(tool.mcp).toEqual({ server: 'srv', tool: 'lookup.thing' });
  });

  it('accepts any object (and a missing input) and rejects a non-object', () => {
    const tool = createMcpTool('srv', remote, 'mcp__srv__lookup_thing', async () => ({ output: '' }));
    expect(tool.schema.parse({ q: 'x', extra: 1 })).toEqual({ q: 'x', extra: 1 });
    expect(tool.schema.parse(undefined)).toEqual({});
    expect(tool.schema.safeParse('text').success).toBe(false);
  });

  it('calls the server by its own tool name with the input and the call signal', async () => {
    const calls: unknown[] = [];
    const tool = createMcpTool('srv', remote, 'mcp__srv__lookup_thing', async (name, args, signal) => {
      calls.push([name, args, signal.aborted]);
      return { output: 'found' };
    });
    expect(await tool.execute({ q: 'x' }, toolContext())).toEqual({ output: 'found' });
    expect(calls).toEqual([['lookup.thing', { q: 'x' }, false]]);
  });
});
