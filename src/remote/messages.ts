import type { ModelMessage } from 'ai';
import type { AgentEvent } from '../agent/events.js';
import type { StopReason } from '../agent/loop.js';
import type { PermissionDenialRecord } from '../agent/tool-runner.js';
import type { AskAnswer, PermissionAsk } from '../permission/types.js';
import type { TokenUsage } from '../provider/pricing.js';

/** How a remote child ended, as its worker reports it. */
export interface RemoteResult {
  worker: string;
  stopReason: StopReason;
  text: string;
  error?: string;
  turns: number;
  /** The task branch's last commit as pushed (writers). */
  head?: string;
  /** Uncommitted changes the child left, as a binary diff against `head`: the root's worktree gets them. */
  patch?: string;
}

/** Worker → root, on the job's events stream, in order. */
export type WorkerMessage =
  | { k: 'started'; worker: string }
  | { k: 'refused'; worker: string; reason: string }
  | { k: 'event'; event: AgentEvent }
  | { k: 'turn'; added: ModelMessage[]; turn: number; usage: TokenUsage }
  | { k: 'ask'; ask: PermissionAsk }
  /** The worker stopped waiting for an answer (its ask timeout): the root withdraws the question. */
  | { k: 'ask_closed'; askId: string; reason: string }
  | { k: 'approved'; rule: string }
  | { k: 'denied'; record: PermissionDenialRecord }
  | { k: 'pushed'; sha: string }
  /** The child is about to write: the root's scheduler decides (`realize`, `widen`), or is told (`shrink`). */
  | { k: 'claim'; id: string; op: 'realize' | 'widen' | 'shrink'; path?: string }
  | { k: 'result'; result: RemoteResult };

/** Root → worker, on the job's reply channel. */
export type RootMessage =
  | { k: 'answer'; askId: string; answer: AskAnswer }
  /** The scheduler's decision on a `claim`: granted, or why not (a claim deadlock ends the task). */
  | { k: 'claimed'; id: string; error?: string; deadlock?: boolean }
  | { k: 'cancel'; reason: string }
  /** The job's base ref is in the shared repository (for a job whose base is `announced`). */
  | { k: 'base' };
