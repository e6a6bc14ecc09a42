import { z } from 'zod';
import { inputJsonSchemaOf } from '../agent/tool-specs.js';
import type { Profile } from '../profile/types.js';
import { EFFORTS } from '../provider/route.js';
import { BUILT_INPUT_SCHEMAS } from '../tool/built-input-schemas.js';
import type { Tool, ToolResult } from '../tool/tool.js';
import { lazySchema } from '../util/lazy-schema.js';

export const TaskInputSchema = lazySchema(() =>
  z.object({
    prompt: z
      .string()
      .min(1)
      .describe('The complete task for the subagent: it sees nothing of this conversation.'),
    description: z.string().optional().describe('A few words shown while it runs.'),
    agent: z.string().optional().describe('The profile to run; omit for the default subagent.'),
    profile: z.string().optional().describe('Same as agent.'),
    background: z
      .boolean()
      .optional()
      .describe('Return a task id at once; the result arrives when it finishes.'),
    retry_of: z.string().optional().describe('The id of a failed task this retries.'),
    write_paths: z.array(z.string()).optional().describe('Files or directories the subagent will write.'),
    model: z.string().optional().describe('A providers alias or model name for this run.'),
    effort: z.enum(EFFORTS).optional().describe('Reasoning effort for this run.'),
    max_steps: z.number().int().min(1).max(500).optional().describe('Cap on the subagent tool loop turns.'),
    tools: z.array(z.string()).optional().describe('Narrow the subagent tool set to these names.'),
  }),
);
export type TaskInput = z.infer<typeof TaskInputSchema>;

export interface TaskDispatcher {
  /** `parent` is the dispatching agent ('main' or a subagent id), so asks can be labeled with the chain. */
  dispatch(input: TaskInput, signal: AbortSignal, parent: string): Promise<ToolResult>;
}

const BASE_DESCRIPTION =
  'Hand a self-contained task to a subagent and get its final answer. Subagents run with their own ' +
  'profile (prompt, model, tools); several background tasks run in parallel.';

/**
 * The `task` tool (SPEC 7.1). `agent` is advertised as an enum of the profiles the caller may use, with
 * their descriptions; the schema changes only when that set changes (prompt-cache stability).
 */
export function createTaskTool(dispatcher: TaskDispatcher, usable: readonly Profile[]): Tool<TaskInput> {
  const listing = usable.map((p) => `- ${p.name}: ${p.description ?? `(${p.tier} subagent)`}`).join('\n');
  const description = usable.length > 0 ? `${BASE_DESCRIPTION}\nAgents:\n${listing}` : BASE_DESCRIPTION;
  // A copy: the built table's entry is shared, and the profile names are written into this one.
  const inputJsonSchema = structuredClone(
    BUILT_INPUT_SCHEMAS.task ?? inputJsonSchemaOf(TaskInputSchema),
  ) as Record<string, unknown> & { properties: Record<string, Record<string, unknown>> };
  if (usable.length > 0) {
    const names = usable.map((p) => p.name);
    inputJsonSchema.properties.agent = { ...inputJsonSchema.properties.agent, enum: names };
    inputJsonSchema.properties.profile = { ...inputJsonSchema.properties.profile, enum: names };
  }
  return {
    name: 'task',
    description,
    schema: TaskInputSchema,
    inputJsonSchema,
    safety: 'read',
    subject: (input) => ({ kind: 'name', value: input.agent ?? input.profile ?? 'default' }),
    execute: (input, ctx) => dispatcher.dispatch(input, ctx.signal, ctx.agent),
  };
}

export const TaskStatusInputSchema = lazySchema(() =>
  z.object({
    task_id: z.string().min(1).describe('The id returned by a background task (a unique prefix works).'),
    wait: z.boolean().optional().describe('Wait until the task finishes.'),
  }),
);
export type TaskStatusInput = z.infer<typeof TaskStatusInputSchema>;

export function createTaskStatusTool(manager: {
  status(taskId: string, wait: boolean, signal: AbortSignal): Promise<ToolResult>;
}): Tool<TaskStatusInput> {
  return {
    name: 'task_status',
    description:
      'The state of a subagent task; with wait: true, waits for it to finish and returns its result.',
    schema: TaskStatusInputSchema,
    inputJsonSchema: BUILT_INPUT_SCHEMAS.task_status,
    safety: 'read',
    subject: () => ({ kind: 'none' }),
    execute: (input, ctx) => manager.status(input.task_id, input.wait === true, ctx.signal),
  };
}
