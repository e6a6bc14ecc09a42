import type { TokenUsage } from '../provider/pricing.js';
import type { WriterReport } from './reconciliation.js';

export type TaskState = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled' | 'timed_out';

export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set([
  'completed',
  'failed',
  'cancelled',
  'timed_out',
]);

/** A subagent run as the manager tracks it in memory (the store keeps the durable copy). */
export interface LiveTask {
  id: string;
  /** The agent that dispatched it: 'main' or a subagent's id. */
  parent: string;
  profile: string | null;
  description: string;
  prompt: string;
  background: boolean;
  tier: string;
  model: string;
  state: TaskState;
  childSessionId: string | null;
  usage: TokenUsage;
  costUsd: number | null;
  result?: string;
  error?: string;
  startedAt?: number;
  endedAt?: number;
  controller: AbortController;
  /** Settles when the task reaches a terminal state (a writer's worktree already settled too). */
  finished: Promise<void>;
  /** Its long result has been stored whole (session blob and `.cadre/tasks/<id>.md`). */
  stored?: boolean;
  /** The coordinator batch it belongs to (SPEC 8). */
  batchId?: string;
  retryOf?: string;
  /** The task that retried this one. */
  retriedBy?: string;
  /** Where a writer ran and what was kept of its worktree. */
  writer?: WriterReport;
  /** What cadre undid after the task (refs or hooks changed in the shared git store). */
  notes?: string[];
  /** The fleet item it runs (SPEC 10). */
  fleet?: { id: string; item: string };
  /** The remote worker running it (issue 18's queue backend). */
  worker?: string;
  /** A fleet item that never started (a dependency did not complete, or fail_fast). */
  skipped?: boolean;
}

/** Results over this size are shown to the model as head + tail + a reference (SPEC 7.3). */
export const INLINE_RESULT_LIMIT = 8 * 1024;
const EXCERPT = 3 * 1024;

export function excerptResult(result: string, reference: string): string {
  if (Buffer.byteLength(result, 'utf8') <= INLINE_RESULT_LIMIT) return result;
  const head = result.slice(0, EXCERPT);
  const tail = result.slice(-EXCERPT);
  const omitted = result.length - head.length - tail.length;
  return `${head}\n\n[… ${omitted} characters omitted; the full result (${result.length} characters) is stored at ${reference} — read it with the read tool …]\n\n${tail}`;
}
