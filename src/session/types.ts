import type { PermissionAction } from '../permission/types.js';

/** Lifecycle of a session; the runtime decides when it changes. */
export type SessionStatus = 'active' | 'completed' | 'failed' | 'cancelled';

export const SESSION_STATUSES: readonly SessionStatus[] = ['active', 'completed', 'failed', 'cancelled'];

export interface SessionRecord {
  /** Time-prefixed, so ids sort by creation time. */
  id: string;
  /** Set on the child session of a subagent. */
  parentId: string | null;
  /** Epoch milliseconds. */
  createdAt: number;
  updatedAt: number;
  projectRoot: string;
  cwd: string;
  /** The active profile's name. */
  agent: string | null;
  model: string | null;
  /** The first user message, single-line and truncated. */
  title: string | null;
  status: SessionStatus;
}

export interface NewSession {
  projectRoot: string;
  cwd: string;
  parentId?: string;
  agent?: string;
  model?: string;
}

export interface SessionPatch {
  agent?: string | null;
  model?: string | null;
  title?: string | null;
  status?: SessionStatus;
}

export interface SessionQuery {
  projectRoot?: string;
  /** Default 50. */
  limit?: number;
  /** Child sessions of subagents are left out unless asked for. */
  includeChildren?: boolean;
}

/** How the permission engine decided a tool call (SPEC 6.8). */
export interface ToolCallDecision {
  action: PermissionAction;
  layer: string;
  rule?: string;
}

export interface NewToolCall {
  sessionId: string;
  turn: number;
  callId: string;
  tool: string;
  /** Any JSON-serialisable value; stored as JSON. */
  input: unknown;
  /** Stored as a truncated copy (see TOOL_OUTPUT_KEEP_CHARS); the full text lives in the messages. */
  output: string;
  isError: boolean;
  decision?: ToolCallDecision;
  startedAt: number;
  endedAt: number;
}

export interface ToolCallRecord extends Omit<NewToolCall, 'decision'> {
  decision: ToolCallDecision | null;
  /** True when `output` is a cut-down copy. */
  outputTruncated: boolean;
}

export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  reasoningTokens?: number;
  cachedInputTokens?: number;
  /** Null or absent when the price of the model is unknown. */
  costUsd?: number | null;
}

export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  cachedInputTokens: number;
  /** Sum of the known costs; null when no recorded turn had a cost. */
  costUsd: number | null;
  /** Number of usage records summed. */
  records: number;
}

export type TaskStatus =
  | 'queued'
  | 'running'
  | 'completed'
  | 'failed'
  | 'cancelled'
  | 'timed_out'
  /** Left queued or running by a cadre process that exited (a crash or kill); retryable like failed. */
  | 'interrupted';

export const TASK_STATUSES: readonly TaskStatus[] = [
  'queued',
  'running',
  'completed',
  'failed',
  'cancelled',
  'timed_out',
  'interrupted',
];

export type TaskTier = 'toolless' | 'readonly' | 'readwrite';

export type WriterIsolation = 'worktree' | 'serialize';

/**
 * A writer worktree's life (SPEC 9): `active` while the writer runs (a crash leaves it so), `retained`
 * (dirty or with commits, kept for salvage), `removed` (clean with no commits), `merged` and `discarded`
 * by `cadre tasks`.
 */
export type WorktreeState = 'active' | 'retained' | 'removed' | 'merged' | 'discarded';

export interface TaskRecord {
  id: string;
  parentSessionId: string;
  childSessionId: string | null;
  /** Profile name; null for the default subagent. */
  profile: string | null;
  tier: TaskTier | null;
  model: string | null;
  description: string | null;
  prompt: string;
  status: TaskStatus;
  background: boolean;
  /** The full final answer, however large. */
  result: string | null;
  error: string | null;
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
  createdAt: number;
  startedAt: number | null;
  endedAt: number | null;
  isolation: WriterIsolation | null;
  worktreePath: string | null;
  branch: string | null;
  retryOf: string | null;
  /** The cadre process that created the task and runs it. */
  ownerPid: number | null;
  /** The `write_paths` the dispatch declared, when it declared any. */
  writePaths: string[] | null;
  /** The coordinator batch it ran in (SPEC 8). */
  batchId: string | null;
  /** The checkout a writer's worktree was made from (and is merged into). */
  repoRoot: string | null;
  /** The commit a writer's worktree started from. */
  worktreeBase: string | null;
  worktreeState: WorktreeState | null;
  /** Full shas of the writer's commits, oldest first (as of its last inspection). */
  commits: string[] | null;
  changedFiles: string[] | null;
}

export interface NewTask {
  parentSessionId: string;
  prompt: string;
  profile?: string;
  tier?: TaskTier;
  model?: string;
  description?: string;
  background?: boolean;
  /** Default 'queued'. */
  status?: TaskStatus;
  retryOf?: string;
  writePaths?: readonly string[];
  batchId?: string;
}

export type TaskPatch = Partial<
  Pick<
    TaskRecord,
    | 'childSessionId'
    | 'model'
    | 'status'
    | 'result'
    | 'error'
    | 'inputTokens'
    | 'outputTokens'
    | 'costUsd'
    | 'startedAt'
    | 'endedAt'
    | 'isolation'
    | 'worktreePath'
    | 'branch'
    | 'repoRoot'
    | 'worktreeBase'
    | 'worktreeState'
    | 'commits'
    | 'changedFiles'
  >
>;

export interface TaskQuery {
  parentSessionId?: string;
  projectRoot?: string;
  status?: TaskStatus;
  /** Default 100. */
  limit?: number;
}
