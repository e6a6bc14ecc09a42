import { createHash, randomBytes } from 'node:crypto';
import type { RequestView, ViewMessage } from './request-view.js';
import type { Script, ScriptMatch, ScriptRule, ScriptTurn } from './script.js';

export interface AnswerToolCall {
  id: string;
  name: string;
  /** Exactly what goes on the wire; malformed when the script used `raw_arguments`. */
  arguments: string;
}

/** A model reply, independent of the wire format that will carry it. */
export interface Answer {
  reasoning: string;
  text: string;
  toolCalls: AnswerToolCall[];
  finish: 'stop' | 'tool_calls';
  usage: { inputTokens: number; outputTokens: number };
}

export interface ErrorReply {
  status: number;
  message: string;
  type?: string;
  retryAfterSeconds?: number;
}

/** An error event inside a stream (Anthropic `event: error`, a Responses `error` event, …). */
export interface StreamErrorReply {
  type: string;
  message: string;
}

export type Outcome =
  | { kind: 'answer'; answer: Answer }
  | { kind: 'error'; error: ErrorReply }
  /** Send the start of `answer`, then destroy the connection. */
  | { kind: 'reset'; answer: Answer }
  /** Send the start of `answer`, then end the response cleanly, as if it were complete. */
  | { kind: 'truncated'; answer: Answer }
  /** Send `answer` with a line that is not JSON in it. */
  | { kind: 'malformed'; answer: Answer }
  /** Send the start of `answer`, then the wire's error event. */
  | { kind: 'stream_error'; answer: Answer; error: StreamErrorReply }
  /** No rule or no turn: `answer` carries the explanatory "[scripted] …" text. */
  | { kind: 'unmatched'; answer: Answer };

/** Which part of the script answered a request; recorded with it. */
export interface Resolution {
  /** Index of the matching rule, or null when none matched. */
  rule: number | null;
  ruleName?: string;
  turn: number;
  /** 0-based delivery count of this exact request at this turn (retries count up); counted only for turns
   * that script an error or a reset, 0 otherwise. */
  attempt: number;
  delayMs: number;
  outcome: Outcome;
}

export const UNMATCHED_PREFIX = '[scripted] no scripted turn for this request';

/** ~4 characters per token, the usual rule of thumb. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function firstUserText(messages: ViewMessage[]): string | undefined {
  return messages.find((m) => m.role === 'user')?.text;
}

function lastUserIndex(messages: ViewMessage[]): number {
  return messages.findLastIndex((m) => m.role === 'user');
}

/**
 * Turn k answers the request carrying k tool-result rounds after the latest user message: a round is an
 * assistant message with tool calls (answered by its results). One call per turn makes k the number of
 * tool results; parallel calls in one turn still advance by one. A new user message restarts at 0.
 */
export function turnIndex(messages: ViewMessage[]): number {
  return messages
    .slice(lastUserIndex(messages) + 1)
    .filter((m) => m.role === 'assistant' && (m.toolCalls?.length ?? 0) > 0).length;
}

function messageTexts(view: RequestView): string[] {
  return [
    view.system,
    ...view.messages.flatMap((m) => [m.text, ...(m.toolCalls ?? []).map((c) => `${c.name} ${c.arguments}`)]),
  ];
}

/** Every given condition must hold; a rule without `match` matches everything. */
export function ruleMatches(match: ScriptMatch | undefined, view: RequestView): boolean {
  if (!match) return true;
  const holds = (needle: string | undefined, haystack: string | undefined) =>
    needle === undefined || (haystack ?? '').includes(needle);
  const lastUser = view.messages[lastUserIndex(view.messages)]?.text;
  return (
    holds(match.system, view.system) &&
    holds(match.first_user, firstUserText(view.messages)) &&
    holds(match.last_user, lastUser) &&
    holds(match.model, view.model) &&
    (match.any === undefined || messageTexts(view).some((text) => text.includes(match.any ?? '')))
  );
}

function requestChars(view: RequestView): string {
  return [...messageTexts(view), ...view.tools].join('\n');
}

function describeRule(rule: ScriptRule, index: number): string {
  return rule.name ? `rule #${index} "${rule.name}"` : `rule #${index}`;
}

function quote(text: string | undefined, max = 80): string {
  if (text === undefined) return 'none';
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > max ? `${flat.slice(0, max)}…` : flat);
}

export interface ResponderOptions {
  /** Tool-call id generator; ids must be unique across the server's lifetime and across restarts. */
  newToolCallId?: (prefix: string) => string;
}

function randomToolCallId(prefix: string): string {
  return `${prefix}_${randomBytes(9).toString('base64url')}`;
}

/**
 * Decides the reply to each request from a script. Its only state is how many times each exact request
 * was delivered at each turn, which is what makes "fail N times, then answer" work under retries while
 * concurrent conversations (parallel subagents) keep separate counts.
 */
export class ScriptResponder {
  private readonly attempts = new Map<string, number>();
  private readonly newToolCallId: (prefix: string) => string;

  constructor(
    private readonly script: Script,
    options: ResponderOptions = {},
  ) {
    this.newToolCallId = options.newToolCallId ?? randomToolCallId;
  }

  respond(view: RequestView, toolCallIdPrefix: string): Resolution {
    const turn = turnIndex(view.messages);
    const ruleIndex = this.script.rules.findIndex((rule) => ruleMatches(rule.match, view));
    const inputTokens = estimateTokens(requestChars(view));
    const unmatched = (detail: string) => ({
      attempt: 0,
      delayMs: 0,
      outcome: {
        kind: 'unmatched',
        answer: textAnswer(`${UNMATCHED_PREFIX} (${detail})`, inputTokens),
      } as const,
    });
    if (ruleIndex === -1) {
      const firstUser = quote(firstUserText(view.messages));
      return {
        rule: null,
        turn,
        ...unmatched(`no rule matches; first user message: ${firstUser}, turn ${turn}`),
      };
    }
    const rule = this.script.rules[ruleIndex];
    const base = { rule: ruleIndex, ...(rule.name ? { ruleName: rule.name } : {}), turn };
    const scripted = rule.turns[turn];
    if (!scripted) {
      const count = `${rule.turns.length} turn${rule.turns.length === 1 ? '' : 's'}`;
      return {
        ...base,
        ...unmatched(`${describeRule(rule, ruleIndex)}, turn ${turn}; the rule has ${count}`),
      };
    }
    const failures = [
      ['error', failureCount(scripted.error)],
      ['reset', failureCount(scripted.reset)],
      ['truncated', failureCount(scripted.truncate)],
      ['malformed', failureCount(scripted.malformed)],
      ['stream_error', failureCount(scripted.stream_error)],
    ] as const;
    const failing = failures.some(([, count]) => count > 0);
    const attempt = failing ? this.nextAttempt(ruleIndex, turn, view) : 0;
    const kind = failureAt(failures, attempt);
    let outcome: Outcome;
    if (kind === 'error' && scripted.error) {
      const { status, message, type, retry_after } = scripted.error;
      outcome = { kind: 'error', error: { status, message, type, retryAfterSeconds: retry_after } };
    } else if (kind === 'stream_error' && scripted.stream_error) {
      const { type = 'api_error', message } = scripted.stream_error;
      const answer = this.answerOf(scripted, inputTokens, toolCallIdPrefix);
      outcome = { kind: 'stream_error', answer, error: { type, message } };
    } else {
      const answer = this.answerOf(scripted, inputTokens, toolCallIdPrefix);
      outcome = { kind: kind ?? 'answer', answer } as Outcome;
    }
    return { ...base, attempt, delayMs: scripted.delay_ms ?? 0, outcome };
  }

  private nextAttempt(ruleIndex: number, turn: number, view: RequestView): number {
    const key = createHash('sha256')
      .update(JSON.stringify([ruleIndex, turn, view.model, view.system, view.messages]))
      .digest('base64url');
    const attempt = this.attempts.get(key) ?? 0;
    this.attempts.set(key, attempt + 1);
    return attempt;
  }

  private answerOf(turn: ScriptTurn, inputTokens: number, idPrefix: string): Answer {
    const toolCalls = (turn.tool_calls ?? []).map((call) => ({
      id: this.newToolCallId(idPrefix),
      name: call.name,
      arguments: call.raw_arguments ?? JSON.stringify(call.arguments ?? {}),
    }));
    const reasoning = turn.reasoning ?? '';
    const text = turn.text ?? '';
    const outputChars = reasoning + text + toolCalls.map((c) => c.name + c.arguments).join('');
    return {
      reasoning,
      text,
      toolCalls,
      finish: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      usage: turn.usage
        ? { inputTokens: turn.usage.input_tokens, outputTokens: turn.usage.output_tokens }
        : { inputTokens, outputTokens: estimateTokens(outputChars) },
    };
  }
}

/** Deliveries a scripted failure applies to: its `times`, or every one when absent. */
function failureCount(failure: { times?: number } | true | undefined): number {
  if (failure === undefined) return 0;
  return failure === true ? Number.POSITIVE_INFINITY : (failure.times ?? Number.POSITIVE_INFINITY);
}

/** Which failure delivery `attempt` gets: errors first, then resets, truncations, malformed replies, stream errors. */
function failureAt<K extends string>(
  failures: readonly (readonly [K, number])[],
  attempt: number,
): K | undefined {
  let remaining = attempt;
  for (const [kind, count] of failures) {
    if (remaining < count) return kind;
    remaining -= count;
  }
  return undefined;
}

function textAnswer(text: string, inputTokens: number): Answer {
  return {
    reasoning: '',
    text,
    toolCalls: [],
    finish: 'stop',
    usage: { inputTokens, outputTokens: estimateTokens(text) },
  };
}
