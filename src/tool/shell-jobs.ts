import type { WriteGrant } from '../sandbox/policy.js';
import type { ShellSandbox } from '../sandbox/sandbox.js';
import { killProcessGroup, spawnShell, whenFinished } from './shell-process.js';
import type { ShellJob, ShellJobs } from './tool.js';

/** Undrained output kept per job; older output is dropped (with a count) if nobody reads it. */
const DEFAULT_MAX_PENDING_CHARS = 1_000_000;

export interface LocalShellJob extends ShellJob {
  /** Settles when the job's process has ended and its output has been collected. */
  finished: Promise<void>;
}

export interface LocalShellJobs extends ShellJobs {
  start(command: string, cwd: string, grants?: readonly WriteGrant[]): LocalShellJob;
  get(id: string): LocalShellJob | undefined;
  list(): LocalShellJob[];
}

export interface ShellJobsOptions {
  /** The agent's sandbox: background jobs are confined like its foreground commands. */
  sandbox?: ShellSandbox;
  maxPendingChars?: number;
  /** Injected for tests; defaults to Date.now. */
  now?: () => number;
}

function startJob(
  id: string,
  command: string,
  cwd: string,
  grants: readonly WriteGrant[],
  options: ShellJobsOptions,
): LocalShellJob {
  const maxPending = options.maxPendingChars ?? DEFAULT_MAX_PENDING_CHARS;
  const child = spawnShell(command, cwd, options.sandbox, grants);
  let pending = '';
  let dropped = 0;
  let state: 'running' | 'exited' | 'killed' = 'running';
  let code: number | null = null;
  const append = (chunk: string) => {
    pending += chunk;
    if (pending.length > maxPending) {
      dropped += pending.length - maxPending;
      pending = pending.slice(pending.length - maxPending);
    }
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  child.once('error', (error) => {
    append(`could not start the shell: ${error.message}\n`);
    if (state === 'running') state = 'exited';
  });
  child.once('exit', (exitCode) => {
    code = exitCode;
    if (state === 'running') state = 'exited';
  });
  return {
    id,
    command,
    startedAt: (options.now ?? Date.now)(),
    // A job's own `&` children end with it.
    finished: whenFinished(child).then(() => killProcessGroup(child)),
    drain() {
      const note = dropped > 0 ? `[... ${dropped} earlier characters dropped ...]\n` : '';
      const text = note + pending;
      pending = '';
      dropped = 0;
      return text;
    },
    status: () => state,
    exitCode: () => code,
    kill() {
      if (state !== 'running') return;
      state = 'killed';
      killProcessGroup(child);
    },
  };
}

/** Background shell jobs of one agent (an isolated writer gets its own, in its own sandbox). */
export function createShellJobs(options: ShellJobsOptions = {}): LocalShellJobs {
  const jobs = new Map<string, LocalShellJob>();
  let counter = 0;
  return {
    start(command, cwd, grants = []) {
      counter++;
      const job = startJob(`job-${counter}`, command, cwd, grants, options);
      jobs.set(job.id, job);
      return job;
    },
    get: (id) => jobs.get(id),
    list: () => [...jobs.values()],
    killAll() {
      for (const job of jobs.values()) job.kill();
    },
  };
}
