import type { AskAnswer, PermissionAsk, PermissionDecision } from '../permission/types.js';
import type { TokenUsage } from '../provider/pricing.js';
import type { WaitCause } from '../subagent/scheduler.js';
import type { CriticVerdict } from './critic.js';
import type { SessionReview } from './session-review.js';

/**
 * Everything the runtime reports, as one discriminated union. `agent` is 'main' or a subagent's id, so
 * every client (headless, TUI, web, ACP) can show and route events without knowing the runtime.
 */
export type AgentEvent =
  | { type: 'session_start'; agent: string; sessionId: string; model: string; profile?: string }
  | { type: 'turn_start'; agent: string; turn: number }
  | { type: 'text_delta'; agent: string; text: string }
  | { type: 'reasoning_delta'; agent: string; text: string }
  | { type: 'tool_call_start'; agent: string; callId: string; tool: string; input: unknown }
  | {
      type: 'tool_call_end';
      agent: string;
      callId: string;
      tool: string;
      output: string;
      isError: boolean;
      durationMs: number;
    }
  | { type: 'permission_ask'; agent: string; ask: PermissionAsk }
  | { type: 'permission_answer'; agent: string; askId: string; answer: AskAnswer }
  | {
      type: 'permission_denied';
      agent: string;
      /** The denied call: it never runs, though its `tool_call_start`/`tool_call_end` still report it. */
      callId: string;
      tool: string;
      input: unknown;
      decision: PermissionDecision;
    }
  | { type: 'retry'; agent: string; attempt: number; maxAttempts: number; delayMs: number; cause: string }
  | { type: 'usage'; agent: string; turn: number; usage: TokenUsage; costUsd: number | null }
  | { type: 'compaction'; agent: string; messagesBefore: number; messagesAfter: number }
  | { type: 'warning'; agent: string; message: string }
  | { type: 'error'; agent: string; message: string }
  | { type: 'turn_end'; agent: string; turn: number; finishReason: string }
  | {
      /** `agent` is the dispatching agent ('main' or a subagent id): the parent link of the asking chain. */
      type: 'subagent_start';
      agent: string;
      taskId: string;
      profile: string | null;
      description: string;
      background: boolean;
      /** The coordinator batch it belongs to (SPEC 8); absent outside coordinated dispatch. */
      batchId?: string;
      /** `readonly`/`readwrite`/`toolless`. */
      tier?: string;
      /** A `fleet` item (SPEC 10): its fleet, its item id and the item ids it waits for, so views draw the graph. */
      fleet?: { id: string; item: string; dependsOn: string[] };
    }
  | {
      type: 'subagent_queued';
      agent: string;
      taskId: string;
      /** Queue position; 0 for a running writer waiting for a claim before its next write. */
      position: number;
      /** What it waits for; emitted again whenever the cause changes while it waits. */
      cause: WaitCause;
      batchId?: string;
    }
  | {
      /** A writer's checkout is decided: its own worktree, or the parent checkout one writer at a time. */
      type: 'subagent_isolation';
      agent: string;
      taskId: string;
      isolation: 'worktree' | 'serialize';
      worktree?: string;
      branch?: string;
    }
  | {
      /** A task runs on a remote worker (issue 18); emitted again when another worker takes it over. */
      type: 'subagent_worker';
      agent: string;
      taskId: string;
      worker: string;
    }
  | {
      /** Every task of a coordinator batch is terminal; `text` is the one reconciliation message. */
      type: 'batch_reconciled';
      agent: string;
      batchId: string;
      taskIds: string[];
      text: string;
    }
  | {
      type: 'subagent_end';
      agent: string;
      taskId: string;
      status: 'completed' | 'failed' | 'cancelled' | 'timed_out';
      result?: string;
      error?: string;
    }
  | { type: 'plan_mode'; agent: string; active: boolean }
  /** `critic_provider`'s verdict on the final answer (SPEC 4.3). */
  | { type: 'critic'; agent: string; verdict: CriticVerdict }
  /** `review_provider`'s findings on the session's diff (`session_review`, SPEC 4.3). */
  | { type: 'review'; agent: string; review: SessionReview }
  | { type: 'done'; agent: string; result: string; isError: boolean };

export type EmitEvent = (event: AgentEvent) => void;
