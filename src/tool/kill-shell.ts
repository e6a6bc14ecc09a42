import { describeStatus, type JobInput, jobInputSchema, lookupJob } from './bash-output.js';
import { BUILT_INPUT_SCHEMAS } from './built-input-schemas.js';
import { fail, ok } from './result.js';
import type { Tool } from './tool.js';

export const killShellTool: Tool<JobInput> = {
  name: 'kill_shell',
  description: 'Stop a background bash job and every process it started.',
  schema: jobInputSchema,
  inputJsonSchema: BUILT_INPUT_SCHEMAS.kill_shell,
  safety: 'write',
  subject: () => ({ kind: 'none' }),
  async execute(input, ctx) {
    const job = lookupJob(ctx.jobs, input.job_id);
    if (typeof job === 'string') return fail(job);
    if (job.status() !== 'running') return ok(`${job.id} is no longer running: ${describeStatus(job)}`);
    job.kill();
    return ok(`Killed ${job.id}`);
  },
};
