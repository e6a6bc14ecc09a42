/**
 * The runner side of the seam between admission and running (SPEC 10). The scheduler admits a task: it
 * hands out a Lease (slot, writer slot, claim), and nothing else. Whatever holds the lease runs the task:
 * here, in process, `runAdmitted` runs the child loop in the checkout prepared for it, with its tools under
 * the lease's claim, and says how it ended. A queue backend that runs tasks elsewhere replaces this module
 * and keeps the same contract: call `realize`/`widen` before writes, `release` when the task has ended
 * (before any cleanup of its checkout, so the next task starts at once).
 */

import { type ChildBackend, localBackend } from './backend.js';
import type { ChildRun } from './child-loop.js';
import { cancelReason, type SubagentHost } from './host.js';
import type { ClaimDeadlockError, Lease } from './scheduler.js';
import type { LiveTask, TaskState } from './task-record.js';
import { finishWriter, type PreparedWriter } from './writer.js';

/** How a run ended: a terminal state with the answer (or partial answer) and the error. */
export interface Outcome {
  state: Exclude<TaskState, 'queued' | 'running'>;
  result?: string;
  error?: string;
}

/** Runs an admitted task to its end (timeout, cancel and claim deadlock included). Never settles a worktree. */
export async function runAdmitted(
  host: SubagentHost,
  child: ChildRun,
  prepared: PreparedWriter,
  lease: Lease,
  signal: AbortSignal,
  /** Where the child runs (issue 18): in process unless the config sends it to workers. */
  backend?: ChildBackend,
): Promise<Outcome> {
  const timeoutSecs = child.profile?.timeoutSecs ?? 600;
  const timeout = AbortSignal.timeout(timeoutSecs * 1000);
  // A claim deadlock ends the task as failed, with the message naming the writers.
  const deadlock = new AbortController();
  const run = backend ?? localBackend(host);
  const result = await run.run(
    child,
    prepared,
    AbortSignal.any([signal, timeout, deadlock.signal]),
    lease,
    (error: ClaimDeadlockError) => deadlock.abort(error),
  );
  if (result.stopReason === 'completed') return { state: 'completed', result: result.text };
  if (timeout.aborted)
    return {
      state: 'timed_out',
      error: `timed out after ${timeoutSecs} s`,
      result: result.text || undefined,
    };
  if (deadlock.signal.aborted && !signal.aborted)
    return {
      state: 'failed',
      error: (deadlock.signal.reason as Error).message,
      result: result.text || undefined,
    };
  if (result.stopReason === 'cancelled') return { state: 'cancelled', error: cancelReason(signal) };
  return { state: 'failed', error: result.error ?? result.stopReason, result: result.text };
}

/** Records where a writer runs (store, task, `subagent_isolation` event). */
export function recordIsolation(host: SubagentHost, task: LiveTask, prepared: PreparedWriter): void {
  const worktree = prepared.worktree;
  host.store.updateTask(task.id, {
    isolation: worktree ? 'worktree' : 'serialize',
    worktreePath: worktree?.path,
    branch: worktree?.branch,
    repoRoot: worktree?.repoTop,
    worktreeBase: worktree?.base,
    worktreeState: worktree ? 'active' : undefined,
  });
  task.writer = worktree
    ? {
        isolation: 'worktree',
        branch: worktree.branch,
        path: worktree.path,
        removed: false,
        dirty: false,
        commits: [],
      }
    : { isolation: 'serialize' };
  host.emit({
    type: 'subagent_isolation',
    agent: 'main',
    taskId: task.id,
    isolation: worktree ? 'worktree' : 'serialize',
    worktree: worktree?.path,
    branch: worktree?.branch,
  });
}

/** A finished writer's worktree: the shared store checked, then retained or removed (SPEC 9), recorded. */
export async function settleWriter(
  host: SubagentHost,
  task: LiveTask,
  prepared: PreparedWriter | undefined,
): Promise<void> {
  const worktree = prepared?.worktree;
  if (!worktree) return;
  const done = await finishWriter(worktree);
  task.notes = done.blocked.map((note) => `cadre kept a change out of the shared git store: ${note}`);
  for (const note of task.notes)
    host.emit({ type: 'warning', agent: task.id, message: `writer ${task.id}: ${note}` });
  task.writer = done.removed
    ? { isolation: 'worktree', branch: worktree.branch, path: worktree.path, removed: true }
    : {
        isolation: 'worktree',
        branch: worktree.branch,
        path: worktree.path,
        removed: false,
        dirty: done.state.dirty,
        commits: done.state.commits,
      };
  host.store.updateTask(task.id, {
    worktreeState: done.removed ? 'removed' : 'retained',
    commits: done.state.commits,
    changedFiles: done.state.changedFiles,
  });
}
