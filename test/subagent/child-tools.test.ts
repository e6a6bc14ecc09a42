import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentEvent } from '../../src/agent/events.js';
import type { Profile } from '../../src/profile/types.js';
import { childTools } from '../../src/subagent/child-loop.js';
import type { SubagentHost } from '../../src/subagent/host.js';
import type { LiveTask } from '../../src/subagent/task-record.js';
import type { AnyTool, SafetyClass } from '../../src/tool/tool.js';

function mcpTool(name: string, safety: SafetyClass): AnyTool {
  return {
    name: `mcp__srv__${name}`,
    description: name,
    schema: z.object({}),
    safety,
    subject: () => ({ kind: 'none' }),
    execute: async () => ({ output: '' }),
  };
}

const profile = {
  name: 'implementer',
  tier: 'readwrite',
  mcp: 'all',
  subagentDeny: [],
} as unknown as Profile;

function toolsFor(isolated: boolean): string[] {
  const events: AgentEvent[] = [];
  const host = {
    emit: (e: AgentEvent) => events.push(e),
    mcpTools: () => [mcpTool('lookup', 'read'), mcpTool('deploy', 'write'), mcpTool('wipe', 'destructive')],
  } as unknown as SubagentHost;
  const task = { id: 't', tier: 'readwrite' } as LiveTask;
  return childTools(host, { task, profile, input: { prompt: 'p' } }, process.cwd(), isolated).map(
    (t) => t.name,
  );
}

describe('MCP tools of a writer (SPEC 9)', () => {
  it('an isolated writer keeps only MCP tools declared readOnlyHint (they run against the parent checkout)', () => {
    const isolated = toolsFor(true);
    expect(isolated).toContain('mcp__srv__lookup');
    expect(isolated).not.toContain('mcp__srv__deploy');
    expect(isolated).not.toContain('mcp__srv__wipe');
    expect(isolated).toContain('bash');
  });

  it('a writer in the parent checkout keeps every granted MCP tool', () => {
    expect(toolsFor(false)).toEqual(
      expect.arrayContaining(['mcp__srv__lookup', 'mcp__srv__deploy', 'mcp__srv__wipe']),
    );
  });
});
