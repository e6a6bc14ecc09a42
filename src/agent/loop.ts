import type { ModelMessage, ToolResultPart } from 'ai';
import { addUsage, type TokenUsage, ZERO_USAGE } from '../provider/pricing.js';
import { classifyModelError, type RetryPolicy, retryDelayMs, retryPolicyFromEnv } from '../provider/retry.js';
import { abortableSleep } from '../util/abort.js';
import type { EmitEvent } from './events.js';
import type { ModelCaller, StreamedToolCall, ToolSpec } from './model-stream.js';
import { runToolCalls, type ToolRunnerDeps } from './tool-runner.js';

export interface LoopOptions {
  agent: string;
  callModel: ModelCaller;
  system: string;
  /** The conversation so far, ending with the new user message. Not mutated. */
  messages: ModelMessage[];
  /** A function when the list may change mid-run (plan mode changes the floor). */
  toolSpecs: ToolSpec[] | (() => ToolSpec[]);
  tools: Omit<ToolRunnerDeps, 'emit' | 'agent'>;
  maxTurns: number;
  emit: EmitEvent;
  signal: AbortSignal;
  /** Default: the standard policy, base delay overridable by `CADRE_RETRY_BASE_MS`. */
  retry?: RetryPolicy;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  costOf: (usage: TokenUsage) => number | null;
  /** Persists a completed turn (assistant message + tool results) before the next one starts. */
  onTurnCommitted?: (messages: ModelMessage[], turn: number, usage: TokenUsage) => void;
  /**
   * Called before each model turn: replaces older history with a summary when the context nears the
   * model's window, returning the new list (undefined: leave it).
   */
  compact?: (messages: ModelMessage[], lastInputTokens: number) => Promise<ModelMessage[] | undefined>;
  /** A stronger model tried for one turn after `afterTurns` consecutive turns of unusable tool input (SPEC 4.3). */
  escalation?: { afterTurns: number; label: string; caller: () => Promise<ModelCaller> };
  /** System reminders (background task results) delivered before a turn, acknowledged once committed. */
  reminders?: ReminderSource;
  /** How the turn cap is named in its error, e.g. `--max-turns 100` or `max_steps 25`. */
  turnCapLabel?: string;
}

export interface ReminderSource {
  /** Reminders not yet delivered, oldest first; they stay pending until `delivered` names them. */
  pending(): { id: string; text: string }[];
  delivered(ids: readonly string[]): void;
  /** Waits for work that will produce a reminder; false when there is none (or the signal aborted). */
  wait(signal: AbortSignal): Promise<boolean>;
}

export type StopReason = 'completed' | 'max_turns' | 'model_error' | 'cancelled';

export interface LoopResult {
  text: string;
  messages: ModelMessage[];
  usage: TokenUsage;
  turns: number;
  stopReason: StopReason;
  error?: string;
}

export class ModelCallFailed extends Error {
  override name = 'ModelCallFailed';
}

interface TurnOutput {
  text: string;
  calls: StreamedToolCall[];
  usage: TokenUsage;
  finishReason: string;
  assistant: ModelMessage[];
}

/** One model call, retried on 429/5xx/reset/timeout with backoff; partial output of a failed try is dropped. */
async function modelTurn(
  opts: LoopOptions,
  policy: RetryPolicy,
  callModel: ModelCaller,
  messages: ModelMessage[],
  turn: number,
  warned: Set<string>,
): Promise<TurnOutput> {
  const sleep = opts.sleep ?? abortableSleep;
  let emptyRetried = false;
  for (let attempt = 1; ; attempt++) {
    const out: TurnOutput = {
      text: '',
      calls: [],
      usage: ZERO_USAGE,
      finishReason: 'unknown',
      assistant: [],
    };
    let failure: unknown;
    for await (const part of callModel({
      system: opts.system,
      messages,
      tools: typeof opts.toolSpecs === 'function' ? opts.toolSpecs() : opts.toolSpecs,
      signal: opts.signal,
    })) {
      if (part.type === 'text' || part.type === 'reasoning') {
        // Streamed live; a later 'retry' event tells clients to discard this turn's partial text.
        if (part.type === 'text') out.text += part.text;
        opts.emit({
          type: part.type === 'text' ? 'text_delta' : 'reasoning_delta',
          agent: opts.agent,
          text: part.text,
        });
      } else if (part.type === 'tool_call') {
        out.calls.push(part.call);
      } else if (part.type === 'warning') {
        // Providers repeat the same warning on every call; the user needs it once per run.
        if (!warned.has(part.message)) {
          warned.add(part.message);
          opts.emit({ type: 'warning', agent: opts.agent, message: part.message });
        }
      } else if (part.type === 'finish') {
        out.usage = part.usage;
        out.finishReason = part.finishReason;
        out.assistant = part.assistant;
      } else {
        failure = part.error;
      }
    }
    if (failure === undefined) {
      if (out.calls.length > 0 || out.text.trim() !== '') return out;
      // An empty final answer (no text, no tool call) is asked for once more, then it is an error.
      if (emptyRetried) throw new ModelCallFailed(`the model returned an empty answer twice (turn ${turn})`);
      emptyRetried = true;
      opts.emit({
        type: 'retry',
        agent: opts.agent,
        attempt,
        maxAttempts: policy.maxAttempts,
        delayMs: 0,
        cause: 'empty answer',
      });
      continue;
    }
    if (opts.signal.aborted) throw opts.signal.reason ?? new Error('cancelled');
    const classified = classifyModelError(failure);
    if (!classified.retryable || attempt >= policy.maxAttempts) {
      const tries = attempt > 1 ? ` after ${attempt} attempts` : '';
      throw new ModelCallFailed(`model call failed${tries} (turn ${turn}): ${classified.message}`);
    }
    const delayMs = retryDelayMs(attempt, policy, classified.retryAfterMs);
    opts.emit({
      type: 'retry',
      agent: opts.agent,
      attempt,
      maxAttempts: policy.maxAttempts,
      delayMs,
      cause: classified.cause,
    });
    await sleep(delayMs, opts.signal);
  }
}

function toolResultMessage(
  outcomes: { call: StreamedToolCall; result: { output: string; isError?: boolean } }[],
): ModelMessage {
  const content: ToolResultPart[] = outcomes.map(({ call, result }) => ({
    type: 'tool-result',
    toolCallId: call.id,
    toolName: call.name,
    output: result.isError
      ? { type: 'error-text', value: result.output }
      : { type: 'text', value: result.output },
  }));
  return { role: 'tool', content };
}

/**
 * The assistant message for history: the caller's own (which keeps reasoning signatures and stores invalid
 * tool inputs as `{}`), else one built from the streamed text and calls.
 */
function assistantMessage(out: TurnOutput): ModelMessage[] {
  const fromCaller = out.assistant.filter((m) => m.role === 'assistant');
  if (fromCaller.length > 0) return fromCaller;
  const invalid = new Set(out.calls.filter((c) => c.inputError !== undefined).map((c) => c.id));
  const content: Exclude<ModelMessage & { role: 'assistant' }, undefined>['content'] = [];
  if (out.text) content.push({ type: 'text', text: out.text });
  for (const call of out.calls) {
    content.push({
      type: 'tool-call',
      toolCallId: call.id,
      toolName: call.name,
      input: invalid.has(call.id) ? {} : call.input,
    });
  }
  return [{ role: 'assistant', content }];
}

function reminderMessage(reminders: string[]): ModelMessage {
  return {
    role: 'user',
    content: reminders.map((r) => `<system-reminder>\n${r}\n</system-reminder>`).join('\n'),
  };
}

/**
 * The agent loop: call the model, run its tool calls through the permission gate, feed the results back,
 * until the model answers without tools, the turn cap is reached, or the run is cancelled.
 */
export async function runAgentLoop(opts: LoopOptions): Promise<LoopResult> {
  let messages = [...opts.messages];
  let usage = ZERO_USAGE;
  let lastText = '';
  let turn = 0;
  const warned = new Set<string>();
  let lastInputTokens = 0;
  let invalidTurns = 0;
  let escalated = false;
  const deps: ToolRunnerDeps = { ...opts.tools, agent: opts.agent, emit: opts.emit };
  // Read once per run: the environment is read through a getter that copies each value.
  const policy = opts.retry ?? retryPolicyFromEnv(process.env);
  const finish = (stopReason: StopReason, error?: string): LoopResult => ({
    text: lastText,
    messages,
    usage,
    turns: turn,
    stopReason,
    error,
  });
  try {
    for (;;) {
      if (turn >= opts.maxTurns) {
        return finish(
          'max_turns',
          `reached the turn cap (${opts.turnCapLabel ?? `--max-turns ${opts.maxTurns}`})`,
        );
      }
      const reminders = opts.reminders?.pending() ?? [];
      const pending = reminders.length > 0 ? [reminderMessage(reminders.map((r) => r.text))] : [];
      if (opts.compact) {
        const compacted = await opts.compact(messages, lastInputTokens);
        if (compacted) {
          opts.emit({
            type: 'compaction',
            agent: opts.agent,
            messagesBefore: messages.length,
            messagesAfter: compacted.length,
          });
          messages = compacted;
        }
      }
      turn++;
      opts.emit({ type: 'turn_start', agent: opts.agent, turn });
      let callModel = opts.callModel;
      if (opts.escalation && !escalated && invalidTurns >= opts.escalation.afterTurns) {
        escalated = true;
        opts.emit({
          type: 'warning',
          agent: opts.agent,
          message: `escalating to ${opts.escalation.label} for one turn after ${invalidTurns} turns of unusable tool input`,
        });
        callModel = await opts.escalation.caller();
      }
      const out = await modelTurn(opts, policy, callModel, [...messages, ...pending], turn, warned);
      lastInputTokens = out.usage.inputTokens;
      usage = addUsage(usage, out.usage);
      opts.emit({
        type: 'usage',
        agent: opts.agent,
        turn,
        usage: out.usage,
        costUsd: opts.costOf(out.usage),
      });
      const added: ModelMessage[] = [...pending, ...assistantMessage(out)];
      if (out.text) lastText = out.text;
      if (out.calls.length > 0) {
        const outcomes = await runToolCalls(out.calls, deps);
        added.push(toolResultMessage(outcomes));
        invalidTurns = outcomes.every((o) => o.invalidInput) ? invalidTurns + 1 : 0;
      }
      messages = [...messages, ...added];
      opts.onTurnCommitted?.(added, turn, out.usage);
      opts.reminders?.delivered(reminders.map((r) => r.id));
      opts.emit({ type: 'turn_end', agent: opts.agent, turn, finishReason: out.finishReason });
      if (opts.signal.aborted) return finish('cancelled', 'cancelled');
      if (out.calls.length === 0) {
        if (opts.reminders && (await opts.reminders.wait(opts.signal))) continue;
        if (opts.signal.aborted) return finish('cancelled', 'cancelled');
        return finish('completed');
      }
    }
  } catch (error) {
    if (opts.signal.aborted) return finish('cancelled', 'cancelled');
    if (error instanceof ModelCallFailed) return finish('model_error', error.message);
    throw error;
  }
}
