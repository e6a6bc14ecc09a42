import { inputJsonSchemaOf } from '../agent/tool-specs.js';
import { BUILT_INPUT_SCHEMAS } from '../tool/built-input-schemas.js';
import type { Tool, ToolResult } from '../tool/tool.js';
import { type FleetInput, FleetInputSchema } from './fleet-plan.js';

const DESCRIPTION =
  'Run 2 to 64 subagent tasks as a graph: items start when their depends_on items have completed, as many ' +
  'at once as the subagent and writer limits allow. Writers with disjoint write_paths run together; two ' +
  'items writing the same file must be ordered with depends_on. Dependents of a failed item are skipped; ' +
  'fail_fast starts nothing new after a failure. Profiles are named as for the task tool. The result lists ' +
  'every item with its state, answer or error, tokens and cost.';

/**
 * The schema sent to the model: the same bytes whatever profiles exist (SPEC 10, prompt-cache stability).
 * Made at build time (src/tool/built-input-schemas.ts), so loading this builds no zod schema.
 */
export const FLEET_INPUT_JSON_SCHEMA = BUILT_INPUT_SCHEMAS.fleet ?? inputJsonSchemaOf(FleetInputSchema);

/** The `fleet` tool (SPEC 10). */
export function createFleetTool(runner: {
  runFleet(input: FleetInput, signal: AbortSignal): Promise<ToolResult>;
}): Tool<FleetInput> {
  return {
    name: 'fleet',
    description: DESCRIPTION,
    schema: FleetInputSchema,
    inputJsonSchema: FLEET_INPUT_JSON_SCHEMA,
    safety: 'read',
    subject: () => ({ kind: 'none' }),
    execute: (input, ctx) => runner.runFleet(input, ctx.signal),
  };
}
