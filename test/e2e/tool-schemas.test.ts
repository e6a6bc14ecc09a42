import { describe, expect, it } from 'vitest';
import { inputJsonSchemaOf } from '../../src/agent/tool-specs.js';
import { FLEET_INPUT_JSON_SCHEMA } from '../../src/subagent/fleet-tool.js';
import { createTaskTool } from '../../src/subagent/task-tool.js';
import { builtinTools } from '../../src/tool/registry.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { cadreIn, servedProject } from './harness.js';

describe('tool schemas made at build time (issue 17)', () => {
  it('sends the model the same tool schemas as converting the zod schemas at run time', async () => {
    const server = await scriptedServer(script().turn((t) => t.text('done')));
    const project = servedProject(server);
    const run = await cadreIn(project, ['-p', 'hi']);
    expect(run.stdout).toBe('done\n');
    const sent = new Map(
      (server.requests[0].body as { tools: { function: { name: string; parameters: unknown } }[] }).tools.map(
        (tool) => [tool.function.name, tool.function.parameters],
      ),
    );
    // From source the built table is empty, so these are converted from the zod schemas here.
    const expected = new Map<string, unknown>(
      builtinTools(project.dir).map((tool) => [tool.name, inputJsonSchemaOf(tool.schema)]),
    );
    expected.set('fleet', FLEET_INPUT_JSON_SCHEMA);
    const task = createTaskTool({ dispatch: async () => ({ output: '' }) }, []).inputJsonSchema as {
      properties: Record<string, unknown>;
    };
    for (const name of ['read', 'grep', 'bash', 'edit', 'write', 'task']) expect(sent.has(name)).toBe(true);
    for (const [name, parameters] of sent) {
      if (name === 'task') {
        // The profile names are filled in per run; the rest is the schema.
        const { agent: _a, profile: _p, ...rest } = (parameters as typeof task).properties;
        const { agent: _b, profile: _q, ...expectedRest } = task.properties;
        expect(rest).toEqual(expectedRest);
      } else if (expected.has(name))
        expect(JSON.stringify(parameters)).toBe(JSON.stringify(expected.get(name)));
    }
  });
});
