import { z } from 'zod';
import { lazySchema } from '../util/lazy-schema.js';
import { BUILT_INPUT_SCHEMAS } from './built-input-schemas.js';
import type { PlanMode } from './plan-mode.js';
import { ok } from './result.js';
import type { Tool } from './tool.js';

const schema = lazySchema(() =>
  z.object({
    plan: z.string().optional().describe('What you intend to investigate, if you already know'),
  }),
);

export type PlanEnterInput = z.output<typeof schema>;

/** `plan_enter`: the session goes under the read-only floor until `plan_exit` is approved. */
export function createPlanEnterTool(mode: PlanMode): Tool<PlanEnterInput> {
  return {
    name: 'plan_enter',
    description:
      'Enter plan mode: only reading tools work until you present a plan with plan_exit and the user approves it.',
    schema,
    inputJsonSchema: BUILT_INPUT_SCHEMAS.plan_enter,
    safety: 'read',
    subject: () => ({ kind: 'none' }),
    async execute() {
      if (mode.active()) return ok('Plan mode is already on.');
      mode.enter();
      return ok(
        'Plan mode is on: only reading tools are allowed. Investigate, then call plan_exit with your plan for the user to approve.',
      );
    },
  };
}
