import type { AskAnswer, PermissionAsk, PermissionDecision } from '../permission/types.js';
import type { TokenUsage } from '../provider/pricing.js';

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
  | { type: 'permission_denied'; agent: string; tool: string; input: unknown; decision: PermissionDecision }
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
    }
  | {
      type: 'subagent_queued';
      agent: string;
      taskId: string;
      position: number;
      /** What it waits for: a subagent slot, or the single writer slot of the parent checkout. */
      cause: 'slots' | 'writer';
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
  | { type: 'done'; agent: string; result: string; isError: boolean };

export type EmitEvent = (event: AgentEvent) => void;
