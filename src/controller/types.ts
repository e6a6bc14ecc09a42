import type { AgentEvent } from '../agent/events.js';
import type { StopReason } from '../agent/loop.js';
import type { SafetyFloor } from '../permission/decide.js';
import type { PermissionAsk } from '../permission/types.js';
import type { TodoItem } from '../tool/tool.js';

/** Why a turn started: typed by the user, sent from the queue, a command, or background work (SPEC 7.3). */
export type TurnOrigin = 'user' | 'queued' | 'background';

/** What asks the user something: a permission ask, the `question` tool, or a plan at `plan_exit`. */
export type AskKind = 'permission' | 'question' | 'plan';

interface AskBase {
  id: string;
  /** 'main' or the asking subagent's id. */
  agent: string;
  /** Labels from the root down to the asker: `['main', 'researcher', 'explore']`. */
  chain: string[];
  /** The chain for display: `main › researcher › explore`. */
  label: string;
  /** Asked inside background work: an interrupt of the turn leaves it pending. */
  background: boolean;
  /** Epoch milliseconds. */
  openedAt: number;
}

export type PendingAsk = AskBase &
  (
    | { kind: 'permission'; permission: PermissionAsk }
    | { kind: 'question'; question: string; options?: string[] }
    | { kind: 'plan'; plan: string }
  );

/**
 * A user's answer to any ask. Permission: all but `answer` (`always` takes the ask's suggested rule when
 * no pattern is given). Question: `answer` (or a deny). Plan: `allow_once`/`always` approve it.
 */
export type UserAnswer =
  | { kind: 'allow_once' }
  | { kind: 'always'; pattern?: string }
  | { kind: 'deny' }
  | { kind: 'deny_feedback'; feedback: string }
  | { kind: 'answer'; text: string };

export interface QueuedPrompt {
  id: string;
  text: string;
  queuedAt: number;
}

export interface SubagentView {
  id: string;
  /** The dispatching agent: 'main' or a subagent id. */
  parent: string;
  /** `main › researcher`; `main › writer@worker-2` for a task on a remote worker. */
  label: string;
  profile: string | null;
  /** The remote worker running it (issue 18). */
  worker?: string;
  description: string;
  background: boolean;
  state: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled' | 'timed_out';
  /** While queued: the position and what it waits for. */
  queue?: { position: number; cause: string };
  /** The tool it is in (`edit src/a.ts`), null between tools. */
  step: string | null;
  /** Epoch milliseconds; clients show elapsed time from it. */
  startedAt: number;
  endedAt?: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
  /** A `fleet` item: its fleet, its item id and the item ids it depends on (SPEC 10). */
  fleet?: { id: string; item: string; dependsOn: string[] };
}

/**
 * A group of subagents shown together: a coordinator batch (SPEC 8), open from its first task until its
 * `batch_*` events say otherwise, or a `fleet` (SPEC 10), running until every item is terminal.
 */
export interface BatchView {
  id: string;
  kind: 'batch' | 'fleet';
  /** `open` while it runs; then the last batch event's `status` (else its type without `batch_`), or a fleet's `completed`/`failed`. */
  status: string;
  taskIds: string[];
  startedAt: number;
  endedAt?: number;
}

/** Everything a client shows besides the transcript, as one plain-data snapshot. */
export interface ControllerState {
  /** The sequence id of the last event included in this snapshot. */
  seq: number;
  sessionId: string;
  projectRoot: string;
  status: 'idle' | 'running' | 'closed';
  turn: { id: string; origin: TurnOrigin; input: string | null; startedAt: number } | null;
  profile: string | null;
  prompt: string | null;
  planMode: boolean;
  safety: SafetyFloor;
  model: { label: string; model: string; alias: string | null; contextWindow: number };
  effort: string | null;
  /** Tokens of the whole session, subagents included (SPEC 7.4). */
  usage: { inputTokens: number; outputTokens: number };
  costUsd: number | null;
  /** Input tokens of the main agent's last request: how full the context is. */
  contextTokens: number;
  subagents: SubagentView[];
  batches: BatchView[];
  /** In the order they were asked; clients answer the first (or any). */
  asks: PendingAsk[];
  queue: QueuedPrompt[];
  todos: TodoItem[];
}

/** How a turn (or a command) ended. */
export interface TurnOutcome {
  turnId: string;
  origin: TurnOrigin;
  /** What was submitted; null for a background turn. */
  input: string | null;
  /** `refused`: a command that did not run (unknown, bad arguments, switch mid-turn). `failed`: it threw. */
  stopReason: StopReason | 'refused' | 'failed';
  /** The final answer, or a command's output. */
  text: string;
  isError: boolean;
  error?: string;
  /** Model turns the main loop ran. */
  turns: number;
  /** The command run, when the input was one. */
  command?: string;
  /** `/quit` asked the client to end. */
  quit?: boolean;
  /** The thrown error when `stopReason` is `failed` (a route that cannot be built is a ConfigError). */
  failure?: unknown;
}

/** Events only the controller emits; together with the runtime's AgentEvent they make the stream. */
export type ControllerOnlyEvent =
  | { type: 'state'; state: ControllerState }
  | { type: 'turn_started'; turnId: string; origin: TurnOrigin; input: string | null }
  | { type: 'turn_ended'; outcome: TurnOutcome }
  | { type: 'ask_opened'; ask: PendingAsk }
  | { type: 'ask_closed'; askId: string; answer: UserAnswer; by: 'user' | 'cancelled' }
  | { type: 'prompt_queued'; prompt: QueuedPrompt }
  | { type: 'prompt_dequeued'; promptId: string; reason: 'started' | 'cancelled' }
  | { type: 'command_output'; command: string; text: string; isError: boolean }
  | { type: 'notice'; message: string }
  | { type: 'session_changed'; sessionId: string }
  | { type: 'closed' };

export type ControllerEvent = AgentEvent | ControllerOnlyEvent;

export interface SequencedEvent {
  /** 1, 2, 3, … per controller; a reconnecting client resumes after the last one it saw. */
  seq: number;
  /** Epoch milliseconds. */
  time: number;
  event: ControllerEvent;
}

const CONTROLLER_ONLY: ReadonlySet<string> = new Set<ControllerOnlyEvent['type']>([
  'state',
  'turn_started',
  'turn_ended',
  'ask_opened',
  'ask_closed',
  'prompt_queued',
  'prompt_dequeued',
  'command_output',
  'notice',
  'session_changed',
  'closed',
]);

/** The runtime's own events (what headless `stream-json` prints), as opposed to controller bookkeeping. */
export function isAgentEvent(event: ControllerEvent): event is AgentEvent {
  return !CONTROLLER_ONLY.has(event.type);
}
