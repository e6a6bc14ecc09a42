import { z } from 'zod';
import type { UserChannel } from '../agent/user-channel.js';
import { lazySchema } from '../util/lazy-schema.js';
import { BUILT_INPUT_SCHEMAS } from './built-input-schemas.js';
import type { PlanMode } from './plan-mode.js';
import { fail, ok } from './result.js';
import type { Tool } from './tool.js';

const schema = lazySchema(() =>
  z.object({
    plan: z.string().min(1).optional().describe('The plan to carry out, as the user should read it'),
  }),
);

export type PlanExitInput = z.output<typeof schema>;

/** `plan_exit`: the plan goes to the user for approval; approved, plan mode ends and the work may start. */
export function createPlanExitTool(mode: PlanMode, user: UserChannel): Tool<PlanExitInput> {
  return {
    name: 'plan_exit',
    description:
      'Present your plan to the user and leave plan mode once they approve it; if they refuse, revise the plan.',
    schema,
    inputJsonSchema: BUILT_INPUT_SCHEMAS.plan_exit,
    safety: 'read',
    subject: () => ({ kind: 'none' }),
    async execute(input, ctx) {
      if (!mode.active()) return fail('Plan mode is not on; there is nothing to exit.');
      const plan = input.plan?.trim();
      if (!plan) return fail('Give the plan to approve in the "plan" parameter.');
      const verdict = await user.approvePlan({ agent: ctx.agent, plan }, ctx.signal);
      if (!verdict.approved) return fail(`The plan was not approved: ${verdict.reason}. Plan mode stays on.`);
      mode.exit();
      return ok('The user approved the plan. Plan mode is off: carry it out.');
    },
  };
}
