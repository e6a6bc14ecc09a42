// The built-in tools' input JSON schemas, by tool name, derived from their zod schemas exactly as the
// model is sent them (src/agent/tool-specs.ts). The build bundles and runs this, and bundles cadre with the
// result as src/tool/built-input-schemas.ts (scripts/build.mjs), so a start builds no zod schema for them.
import { inputJsonSchemaOf } from '../src/agent/tool-specs.js';
import { createSkillTool } from '../src/skill/tool.js';
import { FleetInputSchema } from '../src/subagent/fleet-plan.js';
import { createTaskStatusTool, TaskInputSchema } from '../src/subagent/task-tool.js';
import { createPlanEnterTool } from '../src/tool/plan-enter.js';
import { createPlanExitTool } from '../src/tool/plan-exit.js';
import { createQuestionTool } from '../src/tool/question.js';
import { builtinTools } from '../src/tool/registry.js';
import type { AnyTool } from '../src/tool/tool.js';

export function toolInputSchemas(): Record<string, Record<string, unknown>> {
  // Only the schemas are read: the tools are never run, so their dependencies are left out.
  const unused = undefined as never;
  const tools: AnyTool[] = [
    ...builtinTools('/'),
    createPlanEnterTool(unused),
    createPlanExitTool(unused, unused),
    createQuestionTool(unused),
    createSkillTool(() => []),
    createTaskStatusTool(unused),
  ];
  return {
    ...Object.fromEntries(tools.map((tool) => [tool.name, inputJsonSchemaOf(tool.schema)])),
    fleet: inputJsonSchemaOf(FleetInputSchema),
    task: inputJsonSchemaOf(TaskInputSchema),
  };
}
