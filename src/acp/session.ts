import {
  type AgentContext,
  type ContentBlock,
  methods,
  type PermissionOption,
  type PromptResponse,
  RequestError,
  type RequestPermissionResponse,
  type SessionUpdate,
  type StopReason,
  type ToolCallContent,
} from '@agentclientprotocol/sdk';
import { reviewText } from '../agent/session-review.js';
import { SessionBusyError, type SessionController } from '../controller/session-controller.js';
import type {
  ControllerEvent,
  PendingAsk,
  SequencedEvent,
  TurnOutcome,
  UserAnswer,
} from '../controller/types.js';
import { availableCommands, configOptions, sessionModes } from './modes.js';
import {
  appliedDiffs,
  proposedContent,
  snapshotFiles,
  textContent,
  toolKind,
  toolLocations,
  toolTitle,
} from './tool-calls.js';

interface TrackedCall {
  toolCallId: string;
  tool: string;
  input: unknown;
  /** The touched files before the call ran, for the diff of its update. */
  before: Map<string, string | null>;
  /** The ask it waited on, and whether that ask was denied (the call then never runs). */
  askId?: string;
  denied?: boolean;
}

/** Tool output beyond this is cut in the editor's view (the model got all of it). */
const MAX_OUTPUT_CHARS = 16 * 1024;

/**
 * One ACP session over one session controller: controller events become `session/update` notifications,
 * asks become `session/request_permission`, prompts go through `submit`. Notifications are sent in order,
 * and a prompt's response is sent only after every update of its turn.
 */
export class AcpSession {
  private readonly calls = new Map<string, TrackedCall>();
  private readonly asking = new Map<string, AbortController>();
  private sending: Promise<void> = Promise.resolve();
  private promptInFlight?: string;
  private lastFinishReason = '';
  private lastProfile: string | null;
  private readonly unsubscribe: () => void;

  constructor(
    readonly id: string,
    readonly controller: SessionController,
    private readonly client: AgentContext,
    private readonly log: (line: string) => void,
    /** The client declared form elicitation: "deny with message" asks it for the message. */
    private readonly canElicit = false,
  ) {
    this.lastProfile = controller.snapshot().profile;
    this.unsubscribe = controller.subscribe((event) => this.onEvent(event)).close;
  }

  /** Ended (by `/quit`): its controller takes no more prompts. */
  get closed(): boolean {
    return this.controller.snapshot().status === 'closed';
  }

  /** Advertises the commands once the client knows the session (after the new/load response). */
  announce(): void {
    this.send({
      sessionUpdate: 'available_commands_update',
      availableCommands: availableCommands(this.controller),
    });
  }

  /** Runs one prompt; a second one while it runs is refused, the running turn untouched. */
  async prompt(blocks: ContentBlock[]): Promise<PromptResponse> {
    if (this.promptInFlight) {
      throw RequestError.invalidRequest(
        { sessionId: this.id },
        'a prompt is already running in this session: wait for its response or send session/cancel',
      );
    }
    const text = promptText(blocks);
    this.lastFinishReason = '';
    let outcome: TurnOutcome;
    try {
      // A turn the user did not start (a background result) may be running: the prompt waits behind it.
      const handle = this.controller.submit(text, { whenBusy: 'queue' });
      this.promptInFlight = handle.id;
      outcome = await handle.outcome;
    } catch (error) {
      if (error instanceof SessionBusyError)
        throw RequestError.invalidRequest({ sessionId: this.id }, error.message);
      throw error;
    } finally {
      this.promptInFlight = undefined;
    }
    await this.sending;
    if (outcome.quit) await this.close();
    return { stopReason: this.stopReason(outcome) };
  }

  /** `session/cancel`: the running turn (or this prompt, still queued) ends `cancelled`. */
  cancel(): void {
    if (this.promptInFlight && this.controller.cancelQueued(this.promptInFlight)) return;
    this.controller.interrupt();
  }

  /** `session/set_mode` and the profile config option: `/agent <name>`, `default` is `/agent off`. */
  setProfile(value: string): void {
    const result = this.controller.setProfile(value === 'default' ? null : value);
    if (!result.ok) throw RequestError.invalidParams({ sessionId: this.id, value }, result.message);
  }

  async close(): Promise<void> {
    await this.controller.close();
    for (const abort of this.asking.values()) abort.abort();
    this.unsubscribe();
    await this.sending;
  }

  /** Waits until every update queued so far was handed to the connection. */
  flushed(): Promise<void> {
    return this.sending;
  }

  private stopReason(outcome: TurnOutcome): StopReason {
    return acpStopReason(outcome, this.lastFinishReason, this.id);
  }

  private send(update: SessionUpdate): void {
    const params = { sessionId: this.id, update };
    this.sending = this.sending
      .then(() => this.client.notify(methods.client.session.update, params))
      .catch((error: unknown) => this.log(`cannot send an update: ${(error as Error).message}`));
  }

  private onEvent({ event }: SequencedEvent): void {
    switch (event.type) {
      case 'text_delta':
      case 'reasoning_delta':
        if (event.agent === 'main') {
          this.send({
            sessionUpdate: event.type === 'text_delta' ? 'agent_message_chunk' : 'agent_thought_chunk',
            content: { type: 'text', text: event.text },
          });
        }
        break;
      case 'turn_end':
        if (event.agent === 'main') this.lastFinishReason = event.finishReason;
        break;
      case 'tool_call_start':
        this.toolStarted(event);
        break;
      case 'tool_call_end':
        this.toolEnded(event);
        break;
      case 'ask_opened':
        void this.requestPermission(event.ask);
        break;
      case 'permission_denied': {
        // Denied by a rule (or after its ask): announced pending if not yet seen, it never runs.
        const { call } = this.track(event.agent, event.callId, event.tool, event.input, 'pending');
        call.denied = true;
        break;
      }
      case 'ask_closed':
        this.asking.get(event.askId)?.abort();
        if (event.answer.kind === 'deny' || event.answer.kind === 'deny_feedback')
          for (const call of this.calls.values()) if (call.askId === event.askId) call.denied = true;
        break;
      case 'command_output':
        this.send({
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: `${event.text}\n` },
        });
        // `/agents reload` may have changed the profiles: commands and modes follow.
        if (event.command === 'agents') {
          this.announce();
          this.modesChanged();
        }
        break;
      case 'review': {
        // The session review (SPEC 4.3) as the agent's words; stderr keeps it when the client is gone.
        const text = reviewText(event.review);
        this.log(text);
        this.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `\n${text}\n` } });
        break;
      }
      case 'notice':
        this.send({
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: `${event.message}\n` },
        });
        break;
      case 'state':
        if (event.state.profile !== this.lastProfile) {
          this.lastProfile = event.state.profile;
          this.modesChanged();
        }
        break;
      case 'warning':
      case 'error':
        this.log(`${event.type === 'warning' ? 'warning: ' : ''}${event.message}`);
        break;
      case 'retry':
        this.log(`model call failed (${event.cause}); retrying in ${(event.delayMs / 1000).toFixed(1)} s`);
        break;
      default:
        break;
    }
  }

  private modesChanged(): void {
    this.send({
      sessionUpdate: 'current_mode_update',
      currentModeId: sessionModes(this.controller).currentModeId,
    });
    this.send({ sessionUpdate: 'config_option_update', configOptions: configOptions(this.controller) });
  }

  private label(agent: string): string {
    return agent === 'main'
      ? 'main'
      : (this.controller.snapshot().subagents.find((s) => s.id === agent)?.label ?? `main › ${agent}`);
  }

  /** A call first seen at its ask is announced there (pending); otherwise when it starts. */
  private track(
    agent: string,
    callId: string,
    tool: string,
    input: unknown,
    status: 'pending' | 'in_progress',
  ) {
    const key = `${agent}:${callId}`;
    const known = this.calls.get(key);
    if (known) return { call: known, fresh: false };
    const root = this.controller.runtime.projectRoot;
    const call: TrackedCall = { toolCallId: key, tool, input, before: snapshotFiles(tool, input, root) };
    this.calls.set(key, call);
    this.send({
      sessionUpdate: 'tool_call',
      toolCallId: key,
      title: toolTitle(tool, input, this.label(agent)),
      kind: toolKind(tool),
      status,
      locations: toolLocations(tool, input, root),
      content: status === 'pending' ? proposedContent(tool, input, root) : [],
      rawInput: input,
    });
    return { call, fresh: true };
  }

  private toolStarted(event: Extract<ControllerEvent, { type: 'tool_call_start' }>): void {
    const { call, fresh } = this.track(event.agent, event.callId, event.tool, event.input, 'in_progress');
    // A denied call is reported (failed) but never ran: it does not pass through in_progress.
    if (!fresh && !call.denied)
      this.send({ sessionUpdate: 'tool_call_update', toolCallId: call.toolCallId, status: 'in_progress' });
  }

  private toolEnded(event: Extract<ControllerEvent, { type: 'tool_call_end' }>): void {
    const key = `${event.agent}:${event.callId}`;
    const call = this.calls.get(key);
    if (!call) return;
    this.calls.delete(key);
    const root = this.controller.runtime.projectRoot;
    const output =
      event.output.length > MAX_OUTPUT_CHARS
        ? `${event.output.slice(0, MAX_OUTPUT_CHARS)}\n… (${event.output.length - MAX_OUTPUT_CHARS} more characters)`
        : event.output;
    const content: ToolCallContent[] = [
      ...(event.isError ? [] : appliedDiffs(event.tool, call.before, root)),
      ...(output ? [textContent(output)] : []),
    ];
    this.send({
      sessionUpdate: 'tool_call_update',
      toolCallId: key,
      status: event.isError ? 'failed' : 'completed',
      content,
      rawOutput: { output: event.output, isError: event.isError },
    });
    if (event.tool === 'write_todo_list' && !event.isError && event.agent === 'main')
      this.sendPlan(call.input);
  }

  private sendPlan(input: unknown): void {
    const todos = (input as { todos?: { content: string; status: string }[] }).todos ?? [];
    this.send({
      sessionUpdate: 'plan',
      entries: todos.map((t) => ({
        content: t.content,
        priority: 'medium',
        status:
          t.status === 'completed' ? 'completed' : t.status === 'in_progress' ? 'in_progress' : 'pending',
      })),
    });
  }

  /** Every ask (permission, question, plan) as one `session/request_permission`, the chain in its title. */
  private async requestPermission(ask: PendingAsk): Promise<void> {
    const abort = new AbortController();
    this.asking.set(ask.id, abort);
    const { toolCallId, title, content, options } = this.describeAsk(ask);
    try {
      await this.sending;
      const response: RequestPermissionResponse = await this.client.request(
        methods.client.session.requestPermission,
        {
          sessionId: this.id,
          toolCall: { toolCallId, title, status: 'pending', content },
          options,
        },
        { cancellationSignal: abort.signal },
      );
      let answer = answerFor(ask, response);
      if (answer.kind === 'deny_feedback' && answer.feedback === '') {
        const feedback = this.canElicit
          ? await this.elicitText(
              toolCallId,
              `${ask.label}: what should cadre tell the model instead?`,
              'Message to the model',
              abort.signal,
            )
          : NO_MESSAGE_YET;
        answer = feedback === null ? { kind: 'deny' } : { kind: 'deny_feedback', feedback };
      }
      if (answer.kind === 'answer' && answer.text === '' && ask.kind === 'question') {
        const text = await this.elicitText(
          toolCallId,
          `${ask.label} asks: ${ask.question}`,
          'Your answer',
          abort.signal,
        );
        answer = text === null ? { kind: 'deny' } : { kind: 'answer', text };
      }
      this.controller.answer(ask.id, answer);
    } catch (error) {
      if (!abort.signal.aborted) this.log(`permission request failed, denying: ${(error as Error).message}`);
      this.controller.answer(ask.id, { kind: 'deny' });
    } finally {
      this.asking.delete(ask.id);
    }
  }

  /** One line of text from the user through a form elicitation; null when they dismissed it. */
  private async elicitText(
    toolCallId: string,
    message: string,
    title: string,
    signal: AbortSignal,
  ): Promise<string | null> {
    const reply = await this.client.request(
      methods.client.elicitation.create,
      {
        mode: 'form',
        sessionId: this.id,
        toolCallId,
        message,
        requestedSchema: {
          type: 'object',
          properties: { text: { type: 'string', title, minLength: 1 } },
          required: ['text'],
        },
      },
      { cancellationSignal: signal },
    );
    const content = reply.action === 'accept' ? (reply.content as Record<string, unknown> | null) : null;
    const text = content?.text;
    return typeof text === 'string' && text.trim() !== '' ? text.trim() : null;
  }

  private describeAsk(ask: PendingAsk): {
    toolCallId: string;
    title: string;
    content: ToolCallContent[];
    options: PermissionOption[];
  } {
    if (ask.kind === 'permission') {
      const { permission } = ask;
      const tracked = permission.callId
        ? this.track(ask.agent, permission.callId, permission.tool, permission.input, 'pending').call
        : undefined;
      if (tracked) tracked.askId = ask.id;
      const root = this.controller.runtime.projectRoot;
      return {
        toolCallId: tracked?.toolCallId ?? `ask:${ask.id}`,
        title: `${ask.label}: ${toolTitle(permission.tool, permission.input, 'main')}`,
        content: [
          ...proposedContent(permission.tool, permission.input, root),
          textContent(permission.decision.reason),
        ],
        options: [
          { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
          { optionId: 'always', name: `Always allow ${permission.suggestedRule}`, kind: 'allow_always' },
          { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
          DENY_WITH_MESSAGE,
        ],
      };
    }
    const toolCallId = `ask:${ask.id}`;
    if (ask.kind === 'question') {
      this.send({
        sessionUpdate: 'tool_call',
        toolCallId,
        title: `${ask.label}: question`,
        kind: 'other',
        status: 'pending',
      });
      const choices = (ask.options ?? []).map(
        (option, i): PermissionOption => ({ optionId: `answer:${i}`, name: option, kind: 'allow_once' }),
      );
      return {
        toolCallId,
        title: `${ask.label} asks: ${ask.question}`,
        content: [textContent(ask.question)],
        options: [
          ...choices,
          // A client that renders forms takes a typed answer; without one, the user answers in the next prompt.
          ...(this.canElicit ? [TYPE_AN_ANSWER] : []),
          {
            optionId: 'deny',
            name:
              choices.length > 0 || this.canElicit
                ? 'Decline to answer'
                : 'Dismiss (answer in your next message)',
            kind: 'reject_once',
          },
        ],
      };
    }
    this.send({
      sessionUpdate: 'tool_call',
      toolCallId,
      title: `${ask.label}: plan`,
      kind: 'switch_mode',
      status: 'pending',
    });
    return {
      toolCallId,
      title: `${ask.label}: approve this plan?`,
      content: [textContent(ask.plan)],
      options: [
        { optionId: 'allow_once', name: 'Approve the plan', kind: 'allow_once' },
        { optionId: 'deny', name: 'Keep planning', kind: 'reject_once' },
        { ...DENY_WITH_MESSAGE, name: 'Keep planning, with a message' },
      ],
    };
  }
}

/**
 * ACP's permission response has no text field: "deny with message" takes its message from the response's
 * `_meta.message` (or the selected outcome's), else from a form elicitation, else the user says it next.
 */
const DENY_WITH_MESSAGE: PermissionOption = {
  optionId: 'deny_feedback',
  name: 'Deny with message',
  kind: 'reject_once',
};

const TYPE_AN_ANSWER: PermissionOption = {
  optionId: 'answer_text',
  name: 'Type an answer',
  kind: 'allow_once',
};

const NO_MESSAGE_YET =
  'the user denied this and will say why in their next message: end your turn now and wait for it';

function metaMessage(...metas: ({ [key: string]: unknown } | null | undefined)[]): string {
  for (const meta of metas) {
    const message = meta?.message;
    if (typeof message === 'string' && message.trim() !== '') return message.trim();
  }
  return '';
}

/** The user's answer; a message or a typed answer still to be asked for is left empty (`''`). */
export function answerFor(ask: PendingAsk, response: RequestPermissionResponse): UserAnswer {
  const { outcome } = response;
  if (outcome.outcome !== 'selected') return { kind: 'deny' };
  const id = outcome.optionId;
  if (id === 'allow_once') return { kind: 'allow_once' };
  if (id === 'always') return { kind: 'always' };
  if (id === DENY_WITH_MESSAGE.optionId && ask.kind !== 'question')
    return { kind: 'deny_feedback', feedback: metaMessage(outcome._meta, response._meta) };
  // The text is asked for next (a form elicitation).
  if (id === TYPE_AN_ANSWER.optionId && ask.kind === 'question') return { kind: 'answer', text: '' };
  if (id.startsWith('answer:') && ask.kind === 'question') {
    const text = ask.options?.[Number(id.slice('answer:'.length))];
    if (text !== undefined) return { kind: 'answer', text };
  }
  return { kind: 'deny' };
}

/**
 * The ACP stop reason of a finished turn, from its outcome and the main agent's last finish reason (the
 * model's `length` and `content-filter` are `max_tokens` and `refusal`). A failed turn is an error response.
 */
export function acpStopReason(outcome: TurnOutcome, finishReason: string, sessionId: string): StopReason {
  switch (outcome.stopReason) {
    case 'cancelled':
      return 'cancelled';
    case 'max_turns':
      return 'max_turn_requests';
    case 'model_error':
    case 'failed':
      throw RequestError.internalError({ sessionId }, outcome.error ?? 'the turn failed');
    case 'refused':
      // A command's refusal was shown as its output; anything else refused (a closed session) is an error.
      if (outcome.command === undefined)
        throw RequestError.invalidRequest({ sessionId }, outcome.error ?? 'the prompt was refused');
      return 'end_turn';
    default:
      if (finishReason === 'length') return 'max_tokens';
      if (finishReason === 'content-filter') return 'refusal';
      return 'end_turn';
  }
}

/** The prompt's content blocks as one text: text as is, embedded files with their path, links by name. */
export function promptText(blocks: ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        parts.push(block.text);
        break;
      case 'resource': {
        const resource = block.resource as { uri: string; text?: string };
        if (typeof resource.text === 'string')
          parts.push(`<file uri="${resource.uri}">\n${resource.text}\n</file>`);
        else parts.push(`(attached: ${resource.uri})`);
        break;
      }
      case 'resource_link':
        parts.push(`@${block.uri}`);
        break;
      default:
        throw RequestError.invalidParams(
          { type: block.type },
          `cadre does not accept ${block.type} content (see the prompt capabilities from initialize)`,
        );
    }
  }
  return parts.join('\n');
}
