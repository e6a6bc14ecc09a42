import { z } from 'zod';
import { lazySchema } from '../util/lazy-schema.js';
import { BUILT_INPUT_SCHEMAS } from './built-input-schemas.js';
import { fail, ok } from './result.js';
import type { ShellJob, ShellJobs, Tool } from './tool.js';

const schema = lazySchema(() =>
  z.object({
    job_id: z.string().min(1).describe('Background job id returned by bash'),
  }),
);

export type JobInput = z.output<typeof schema>;
export const jobInputSchema = schema;

export function describeStatus(job: ShellJob): string {
  const status = job.status();
  if (status === 'exited') return `exited (exit code ${job.exitCode() ?? 'none: killed by a signal'})`;
  return status;
}

/** Finds a job or explains which ids exist. */
export function lookupJob(jobs: ShellJobs, id: string): ShellJob | string {
  const job = jobs.get(id);
  if (job) return job;
  const known = jobs.list().map((candidate) => candidate.id);
  return `no background job ${id}; ${known.length > 0 ? `known jobs: ${known.join(', ')}` : 'no jobs were started'}`;
}

export const bashOutputTool: Tool<JobInput> = {
  name: 'bash_output',
  description: 'Return the new output of a background bash job since the last call, and its status.',
  schema,
  inputJsonSchema: BUILT_INPUT_SCHEMAS.bash_output,
  safety: 'read',
  subject: () => ({ kind: 'none' }),
  async execute(input, ctx) {
    const job = lookupJob(ctx.jobs, input.job_id);
    if (typeof job === 'string') return fail(job);
    const output = job.drain();
    return ok(
      `status: ${describeStatus(job)}\n${output === '' ? '(no new output)' : output.replace(/\n$/, '')}`,
    );
  },
};
