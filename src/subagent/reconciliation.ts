import type { TaskState } from './task-record.js';

/** Where a writer ran and what is left of its checkout (SPEC 9), as the reconciliation reports it. */
export type WriterReport =
  | { isolation: 'serialize' }
  | { isolation: 'worktree'; branch: string; path: string; removed: true }
  | {
      isolation: 'worktree';
      branch: string;
      path: string;
      removed: false;
      dirty: boolean;
      commits: readonly string[];
    };

/** One task of a batch, as much as its reconciliation entry needs. */
export interface ReconciledTask {
  id: string;
  tier: string;
  prompt: string;
  state: TaskState;
  retryOf?: string;
  /** The task that retried this one, when one did. */
  retriedBy?: string;
  writer?: WriterReport;
  /** The answer (completed) or the error (otherwise), already shortened for the model. */
  outcome: string;
  /** Things cadre undid or refused after the task (a changed ref restored), reported after the outcome. */
  notes?: readonly string[];
}

export const RECONCILIATION_HEADER =
  'Coordinator batch is complete. Reconcile completed work, failures, remaining requirements, required verification, and the next action before dispatching more work.';

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function retryBudget(task: ReconciledTask): string | undefined {
  if (task.state !== 'failed' && task.state !== 'timed_out') return undefined;
  if (task.retryOf !== undefined) return `retry budget: exhausted by ${task.id}`;
  if (task.retriedBy !== undefined) return `retry budget: exhausted by ${task.retriedBy}`;
  return 'retry budget: 1/1 available';
}

export function writerLines(writer: WriterReport): string[] {
  if (writer.isolation === 'serialize') return ['writer isolation: serialized parent checkout'];
  if (writer.removed)
    return ['writer isolation: worktree', 'writer worktree removed (clean with no commits)'];
  return [
    'writer isolation: worktree',
    `writer branch: ${writer.branch}`,
    `writer worktree: ${writer.dirty ? 'dirty' : 'clean'}; retained for salvage`,
    ...(writer.commits.length > 0 ? [`writer commits: ${writer.commits.join(', ')}`] : []),
    `writer salvage path: ${writer.path}`,
  ];
}

function outcomeLine(task: ReconciledTask): string {
  if (task.state === 'completed') return `completed: ${task.outcome}`;
  if (task.state === 'cancelled') return `cancelled: ${task.outcome}`;
  return `failed: ${task.outcome}`;
}

/** The one message a finished batch is delivered as (SPEC 8), tasks in dispatch order. */
export function reconciliationText(tasks: readonly ReconciledTask[]): string {
  const entries = tasks.map((task) =>
    [
      `[task ${task.id} (${task.tier})] prompt: ${oneLine(task.prompt)}`,
      ...(task.retryOf !== undefined ? [`retry of: ${task.retryOf}`] : []),
      ...(retryBudget(task) ? [retryBudget(task) as string] : []),
      ...(task.writer ? writerLines(task.writer) : []),
      outcomeLine(task),
      ...(task.notes ?? []),
    ].join('\n'),
  );
  return [RECONCILIATION_HEADER, ...entries].join('\n\n');
}

/** What `retry_of` needs to know of the task it names. */
export interface RetryTarget {
  id: string;
  state: TaskState | 'interrupted';
  retryOf?: string | null;
  retriedBy?: string;
}

/**
 * Whether `retry_of` may retry `target` (SPEC 8): a failed or timed-out task, once. Cancelled work is
 * not retryable by design. Returns the refusal, or undefined when the retry may run.
 */
export function retryRefusal(id: string, target: RetryTarget | undefined): string | undefined {
  const refused = `retry_of ${id} refused:`;
  if (!target) return `${refused} unknown task "${id}" (no task of this session has that id)`;
  if (target.retriedBy !== undefined)
    return `${refused} task ${target.id} was already retried by ${target.retriedBy}; a task is retried at most once`;
  if (target.retryOf)
    return `${refused} task ${target.id} is itself the retry of ${target.retryOf}; its retry budget is exhausted`;
  switch (target.state) {
    case 'failed':
    case 'timed_out':
    case 'interrupted':
      return undefined;
    case 'completed':
      return `${refused} task ${target.id} completed; only failed or timed-out tasks are retried`;
    case 'cancelled':
      return `${refused} task ${target.id} was cancelled; cancelled work is not retryable by design — dispatch new work if it is still needed`;
    default:
      return `${refused} task ${target.id} is still ${target.state}; only failed or timed-out tasks are retried`;
  }
}
