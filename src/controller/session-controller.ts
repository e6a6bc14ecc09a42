/**
 * # The session controller: one live session, driven by any client
 *
 * A `SessionController` owns one session of the main agent (its `AgentRuntime`) and is the only thing a
 * client talks to. The terminal UI, the web UI, `cadre acp` and headless `-p` are thin views over it; it
 * knows nothing of terminals, HTTP or protocols. Several clients may watch one controller, and one process
 * may hold several controllers: there is no process-global state (the working directory is never changed;
 * the project root, config and store are values passed in).
 *
 * ## Opening and closing
 *
 *     const controller = await SessionController.open({ workspace, flags, store, interactive: true });
 *     …
 *     await controller.close();   // interrupts, withdraws asks, cancels and records subagents
 *
 * `workspace` comes from `openWorkspace(cwd, env)` (src/config/workspace.ts), `store` from
 * `openSessionStore(dir)`; the caller closes the store after the controllers using it. `interactive: true`
 * means a user answers asks; `false` is headless (asks follow `--yes`, a turn waits for its background work).
 * `open` throws `ConfigError` for bad usage (unknown `--agent`, unknown `--resume` id): exit 2 / a clear error.
 *
 * ## Watching: events with sequence ids, a snapshot, and resuming
 *
 *     const sub = controller.subscribe((e) => render(e), { after: lastSeenSeq });
 *     sub.snapshot;   // ControllerState as of sub.snapshot.seq
 *     sub.resumed;    // true: every event after `after` was replayed to the listener, in order
 *     sub.close();
 *
 * Every event is a `SequencedEvent { seq, time, event }`; `seq` counts 1, 2, 3… per controller. A client
 * that reconnects passes the last `seq` it saw as `after`: the events it missed are replayed (from a
 * bounded buffer) before live ones, without loss or repetition. When they have left the buffer (or without
 * `after`), `resumed` is false and the client rebuilds from `snapshot` plus `messages()`.
 *
 * `event` is a `ControllerEvent` (src/controller/types.ts): the runtime's `AgentEvent`s (text and reasoning
 * deltas, tool calls, permission events, subagent start/queued/end, usage, warnings, batch events…, each
 * with `agent`: 'main' or a subagent id; the runtime's `turn_start`/`turn_end` are single model calls) plus:
 * - `state`: the whole `ControllerState` whenever it changes — profile and prompt layers, plan mode,
 *   safety, model, effort, tokens, cost, context use, subagents (chain label, current step, start time for
 *   elapsed, tokens, queue cause) and batches, pending asks, queued prompts, todo list. Render from it.
 * - `turn_started` / `turn_ended`: a turn is one submitted prompt (or turn command) run to its end;
 *   `origin` says whether the user sent it, it came from the queue, or background work started it while
 *   the session was idle (SPEC 7.3). `turn_ended.outcome` carries the answer and the stop reason.
 * - `ask_opened` / `ask_closed`: asks from the main agent or any subagent at any depth (permission asks,
 *   the `question` tool, plan approval at `plan_exit`), labeled with the chain (`main › researcher`).
 * - `prompt_queued` / `prompt_dequeued`, `command_output`, `notice`, `session_changed` (`/clear`), `closed`.
 *
 * ## Driving
 *
 * - `submit(text, { whenBusy })`: a prompt or a slash command line. Idle: it starts a turn. During a turn
 *   a prompt is queued (visible in state, `cancelQueued(id)`) and sent when the turn ends; with
 *   `whenBusy: 'reject'` (ACP) it throws `SessionBusyError` instead. Commands that do not call a model
 *   (`/tasks`, `/why`, `/help`…) run at once, even during a turn. Returns `{ id, queued, outcome }`;
 *   `outcome` resolves with the `TurnOutcome`.
 * - `interrupt()`: cancels the running turn and its foreground subagents (their pending asks are answered
 *   deny; background subagents and their asks are untouched). Idle, it does nothing and returns false.
 * - `answer(askId, answer)`: allow once, always (session rule), deny, deny with feedback, or a question's
 *   answer. The first client to answer wins; the others see `ask_closed`.
 * - `setProfile(name | null)`, `setPrompt(name | null)`, `setModel(ref)`, `setEffort(level)`: the two layers
 *   of SPEC 4.1 and the model settings; refused with a message while a turn runs, and an unknown name
 *   lists the known ones and changes nothing. The slash commands call these same methods.
 * - `commands()`, `complete(line)`: the slash-command table (src/controller/slash/registry.ts) and
 *   profile names, for menus and Tab completion; `profiles()`, `prompts()` for selectors.
 * - `messages()`: the conversation as the model sees it next (plain JSON), for a client that (re)opens.
 */
import { randomUUID } from 'node:crypto';
import type { ModelMessage } from 'ai';
import type { AgentEvent } from '../agent/events.js';
import type { LoopResult, StopReason } from '../agent/loop.js';
import { AgentRuntime, type RuntimeFlags, type RuntimeOptions } from '../agent/runtime.js';
import type { SessionReview } from '../agent/session-review.js';
import type { Asker } from '../agent/tool-runner.js';
import { openWorkspace, type Workspace } from '../config/workspace.js';
import { contextWindowOf } from '../provider/pricing.js';
import { describeRoute, EFFORTS, type Effort, type ModelRoute, resolveMainRoute } from '../provider/route.js';
import type { SessionStore } from '../session/store.js';
import { AskBroker } from './asks.js';
import { type EventListener, EventLog } from './event-log.js';
import { parseInput } from './slash/parse.js';
import { findCommand, profileTaskCommand, SLASH_COMMANDS } from './slash/registry.js';
import type { CommandResult, SlashCommand } from './slash/types.js';
import { EventTracker } from './tracker.js';
import type {
  ControllerEvent,
  ControllerOnlyEvent,
  ControllerState,
  PendingAsk,
  QueuedPrompt,
  TurnOrigin,
  TurnOutcome,
  UserAnswer,
} from './types.js';

export interface ControllerOptions {
  workspace: Workspace;
  flags: RuntimeFlags;
  store: SessionStore;
  /** A user answers asks (TUI, web, ACP). False: headless. */
  interactive: boolean;
  /** The project is trusted (trusted roots, `--trust-project`); default untrusted (SPEC 6.4). */
  projectTrusted?: boolean;
  /** Default: resolved from the config and flags. */
  mainRoute?: ModelRoute;
  /** Replaces the SDK-backed model caller (in-process tests). */
  modelCaller?: RuntimeOptions['modelCaller'];
  now?: () => number;
  /** Events kept for replay to reconnecting clients. Default 5000. */
  replayCapacity?: number;
}

export interface Subscription {
  snapshot: ControllerState;
  /** Every event after the requested `after` was replayed. */
  resumed: boolean;
  close(): void;
}

export interface SubmitHandle {
  id: string;
  queued: boolean;
  outcome: Promise<TurnOutcome>;
}

export type SwitchResult = { ok: true; message: string } | { ok: false; message: string };

/** A second prompt while one runs, where the client's protocol allows only one (ACP). */
export class SessionBusyError extends Error {
  override name = 'SessionBusyError';
}

interface ActiveTurn {
  id: string;
  origin: TurnOrigin;
  input: string | null;
  startedAt: number;
  abort: AbortController;
  done: Promise<void>;
}

type Work = { kind: 'prompt'; text: string } | { kind: 'command'; command: SlashCommand; args: string };

interface Queued extends QueuedPrompt {
  work: Work;
  resolve(outcome: TurnOutcome): void;
}

/** Events after which the snapshot may have changed although the tracker saw nothing of its own. */
const STATE_TOUCHING: ReadonlySet<string> = new Set([
  'session_start',
  'usage',
  'plan_mode',
  'compaction',
  'tool_call_end',
  'subagent_end',
]);

export class SessionController {
  readonly runtime!: AgentRuntime;
  private readonly log: EventLog;
  private readonly tracker = new EventTracker();
  private readonly asks: AskBroker;
  private readonly now: () => number;
  private active?: ActiveTurn;
  private readonly queue: Queued[] = [];
  private closed = false;
  private closing?: Promise<void>;
  private lastStateKey = '';
  private idleCheck = false;

  private constructor(private readonly options: ControllerOptions) {
    this.now = options.now ?? Date.now;
    this.log = new EventLog(options.replayCapacity ?? 5000, this.now);
    this.asks = new AskBroker(this.tracker, (event) => this.publish(event), this.now);
  }

  /**
   * A user is present, but nobody waits on background work: its asks go to `approval_provider` when that
   * is set and `--yes` could approve them (issue 16 B7), each decision told to the clients as a notice.
   * Every other ask, background ones it may not decide included, goes to the user (SPEC 6.6).
   */
  private readonly routeAsk: Asker = async (ask, signal) => {
    const approver = this.runtime?.approvalAsker;
    if (!approver || ask.decision.yesApprovable !== true || !this.tracker.inBackground(ask.agent))
      return this.asks.asker(ask, signal);
    const answer = await approver(ask, signal);
    const what = `${ask.tool} for ${this.tracker.label(ask.agent)} (background)`;
    this.publish({
      type: 'notice',
      message:
        answer.kind === 'deny_feedback'
          ? `${answer.feedback}: ${what}`
          : `approval_provider approved ${what}`,
    });
    return answer;
  };

  /** Starts (or resumes, with `flags.resume`/`continue`) a session. Throws ConfigError for bad usage. */
  static async open(options: ControllerOptions): Promise<SessionController> {
    const controller = new SessionController(options);
    const { workspace, flags, store } = options;
    const runtime = AgentRuntime.start({
      loaded: workspace.loaded,
      profiles: workspace.profiles,
      prompts: workspace.prompts,
      instructions: workspace.instructions,
      mainRoute: options.mainRoute ?? resolveMainRoute(workspace.loaded.config, flags, workspace.env),
      flags,
      env: workspace.env,
      cwd: workspace.cwd,
      emit: (event) => controller.ingest(event),
      projectTrusted: options.projectTrusted,
      ask: options.interactive ? controller.routeAsk : undefined,
      user: options.interactive ? controller.asks.user : undefined,
      store,
      modelCaller: options.modelCaller,
    });
    (controller as { runtime: AgentRuntime }).runtime = runtime;
    await runtime.connectMcp();
    controller.publishState();
    return controller;
  }

  get sessionId(): string {
    return this.runtime.session.id;
  }

  get busy(): boolean {
    return this.active !== undefined;
  }

  get interactive(): boolean {
    return this.options.interactive;
  }

  // ── watching ──────────────────────────────────────────────────────────────────────────────────────

  subscribe(listener: EventListener, options: { after?: number } = {}): Subscription {
    const snapshot = this.snapshot();
    const missed = options.after === undefined ? undefined : this.log.since(options.after);
    for (const event of missed ?? []) listener(event);
    const stop = this.log.listen(listener);
    return { snapshot, resumed: missed !== undefined, close: stop };
  }

  snapshot(): ControllerState {
    return { ...this.stateBody(), seq: this.log.lastSeq };
  }

  messages(): readonly ModelMessage[] {
    return this.runtime.conversation;
  }

  pendingAsks(): PendingAsk[] {
    return this.asks.list();
  }

  // ── driving ───────────────────────────────────────────────────────────────────────────────────────

  submit(text: string, options: { whenBusy?: 'queue' | 'reject' } = {}): SubmitHandle {
    const id = randomUUID();
    if (this.closed) return this.settled(id, text, 'refused', 'the session is closed');
    if (text.trim() === '') return this.settled(id, text, 'refused', 'the prompt is empty: nothing to send');
    const parsed = parseInput(
      text,
      (name) => this.lookupCommand(name),
      () => this.commandNames(),
    );
    if (parsed.kind === 'unknown') {
      const message = `unknown command /${parsed.name}; did you mean ${parsed.suggestions.map((s) => `/${s}`).join(', ')}? (/help lists every command)`;
      this.publish({ type: 'command_output', command: parsed.name, text: message, isError: true });
      return this.settled(id, text, 'refused', message, parsed.name);
    }
    const work: Work =
      parsed.kind === 'prompt'
        ? { kind: 'prompt', text }
        : { kind: 'command', command: parsed.command, args: parsed.args };
    if (work.kind === 'command' && !work.command.turn?.(work.args)) {
      return { id, queued: false, outcome: this.runInstant(id, text, work.command, work.args) };
    }
    if (this.active) {
      if (options.whenBusy === 'reject') {
        throw new SessionBusyError(
          'a turn is already running in this session: wait for it to end, or cancel it, before sending another prompt',
        );
      }
      let resolve!: (outcome: TurnOutcome) => void;
      const outcome = new Promise<TurnOutcome>((r) => {
        resolve = r;
      });
      const queued: Queued = { id, text, queuedAt: this.now(), work, resolve };
      this.queue.push(queued);
      this.publish({ type: 'prompt_queued', prompt: { id, text, queuedAt: queued.queuedAt } });
      this.publishState();
      return { id, queued: true, outcome };
    }
    return { id, queued: false, outcome: this.startTurn(id, 'user', text, work) };
  }

  /** Removes a queued prompt before it is sent; false when it is not (or no longer) queued. */
  cancelQueued(id: string): boolean {
    const index = this.queue.findIndex((q) => q.id === id);
    if (index === -1) return false;
    const [queued] = this.queue.splice(index, 1);
    this.publish({ type: 'prompt_dequeued', promptId: id, reason: 'cancelled' });
    this.publishState();
    queued.resolve(
      this.refusal(id, 'queued', queued.text, 'cancelled', 'removed from the queue before it was sent'),
    );
    return true;
  }

  /** Cancels the running turn and its foreground subagents. Idle: nothing happens (false). */
  interrupt(): boolean {
    if (!this.active || this.active.abort.signal.aborted) return false;
    this.active.abort.abort(new Error('interrupted by the user'));
    return true;
  }

  answer(askId: string, answer: UserAnswer): { ok: true } | { ok: false; message: string } {
    return this.asks.answer(askId, answer);
  }

  // ── switching (SPEC 4.1); refused while a turn runs ───────────────────────────────────────────────

  setProfile(name: string | null): SwitchResult {
    return this.switching('switch the profile', () => {
      if (name === null || name === 'off') {
        this.runtime.deactivateProfile();
        return { ok: true, message: this.layersLine('profile off') };
      }
      const change = this.runtime.activateProfile(name);
      return change.ok
        ? { ok: true, message: this.layersLine(`profile ${name}`) }
        : { ok: false, message: change.message };
    });
  }

  setPrompt(name: string | null): SwitchResult {
    return this.switching('switch the prompt', () => {
      const change = this.runtime.selectPrompt(name ?? 'default');
      return change.ok
        ? {
            ok: true,
            message: this.layersLine(
              name === null || name === 'default' ? 'prompt default' : `prompt ${name}`,
            ),
          }
        : { ok: false, message: change.message };
    });
  }

  setModel(reference: string): SwitchResult {
    return this.switching('change the model', () => {
      const result = this.runtime.override({ model: reference });
      return result.ok ? { ok: true, message: `model: ${describeRoute(this.runtime.modelRoute)}` } : result;
    });
  }

  setEffort(level: string): SwitchResult {
    return this.switching('change the effort', () => {
      if (!(EFFORTS as readonly string[]).includes(level))
        return { ok: false, message: `unknown effort "${level}"; known: ${EFFORTS.join(', ')}` };
      const result = this.runtime.override({ effort: level as Effort });
      return result.ok ? { ok: true, message: `effort: ${level}` } : result;
    });
  }

  /** `/agents reload`: re-reads every profile and prompt source. */
  reloadProfiles(): SwitchResult {
    return this.switching('reload profiles', () => {
      const { cwd, env } = this.options.workspace;
      const fresh = openWorkspace(cwd, env, { trustProject: this.options.workspace.loaded.projectTrusted });
      const notes = this.runtime.reloadProfiles(fresh.profiles, fresh.prompts);
      const lines = [
        `reloaded: ${fresh.profiles.profiles.size} profiles, ${fresh.prompts.prompts.size} prompts`,
        ...fresh.warnings.map((w) => `warning: ${w.path}: ${w.reason}`),
        ...fresh.profiles.collisions.map(
          (c) =>
            `collision: ${c.name}: ${c.winner.source} ${c.winner.path ?? ''} wins over ${c.losers.map((l) => `${l.source} ${l.path ?? ''}`.trim()).join('; ')}`,
        ),
        ...notes,
      ];
      for (const note of notes) this.publish({ type: 'notice', message: note });
      return { ok: true, message: lines.join('\n') };
    });
  }

  /** `/clear`: a new conversation (and session record); layers, approvals and subagents stay. */
  clear(): SwitchResult {
    return this.switching('clear the conversation', () => {
      const session = this.runtime.clear();
      this.publish({ type: 'session_changed', sessionId: session.id });
      return { ok: true, message: `new conversation (session ${session.id})` };
    });
  }

  // ── listing and completion ────────────────────────────────────────────────────────────────────────

  commands(): { name: string; summary: string; args: string }[] {
    return SLASH_COMMANDS.map(({ name, summary, args }) => ({ name, summary, args }));
  }

  /** The loaded profiles, for selectors (`default` is the profile layer off). */
  profiles(): LayerChoice[] {
    return choices(this.runtime.profileRegistry.profiles.values(), this.runtime.activeProfile);
  }

  /** The prompt files (`default` is the prompt layer off). */
  prompts(): LayerChoice[] {
    return choices(this.runtime.promptSet.prompts.values(), this.runtime.activePrompt);
  }

  /** Completions of a partly typed line: command and profile names, then the command's arguments. */
  complete(line: string): string[] {
    const match = /^\/(\S*)(\s+([\s\S]*))?$/.exec(line);
    if (!match) return [];
    const [, name, space, partial = ''] = match;
    if (space === undefined) {
      return this.commandNames()
        .filter((n) => n.startsWith(name))
        .sort()
        .map((n) => `/${n}`);
    }
    const command = this.lookupCommand(name);
    return (command?.complete?.(this, partial) ?? []).map((c) => `/${name} ${c}`);
  }

  // ── closing ───────────────────────────────────────────────────────────────────────────────────────

  /**
   * With `session_review: true`, `review_provider` reviews what the session changed since the review
   * before (SPEC 4.3); its `review` event reaches every client. `close()` runs it, so each client shows
   * the review when its session ends; a client that must have it after the events stop takes the result.
   */
  review(): Promise<SessionReview | undefined> {
    return this.runtime.reviewSession();
  }

  /**
   * Interrupts, withdraws asks and queued prompts, reviews the session (when on), cancels and records
   * subagents. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      for (const queued of this.queue.splice(0)) {
        this.publish({ type: 'prompt_dequeued', promptId: queued.id, reason: 'cancelled' });
        queued.resolve(this.refusal(queued.id, 'queued', queued.text, 'cancelled', 'the session was closed'));
      }
      this.interrupt();
      this.asks.cancelAll();
      await this.active?.done;
      await this.review();
      await this.runtime.close();
      this.publishState();
      this.publish({ type: 'closed' });
    })();
    return this.closing;
  }

  // ── internals ─────────────────────────────────────────────────────────────────────────────────────

  private ingest(event: AgentEvent): void {
    const changed = this.tracker.apply(event, this.now());
    this.publish(event);
    if (!this.runtime) return;
    if (changed || STATE_TOUCHING.has(event.type)) this.publishState();
    if (!this.active) this.scheduleIdleCheck();
  }

  private publish(event: ControllerEvent | ControllerOnlyEvent): void {
    this.log.append(event);
  }

  /** Emits a `state` event when the snapshot differs from the last one emitted. */
  private publishState(): void {
    if (!this.runtime) return;
    const body = this.stateBody();
    const key = JSON.stringify(body);
    if (key === this.lastStateKey) return;
    this.lastStateKey = key;
    this.publish({ type: 'state', state: { ...body, seq: this.log.lastSeq + 1 } });
  }

  private stateBody(): Omit<ControllerState, 'seq'> {
    const runtime = this.runtime;
    const route = runtime.modelRoute;
    const { usage, costUsd } = runtime.totals;
    const active = this.active;
    return {
      sessionId: runtime.session.id,
      projectRoot: runtime.projectRoot,
      status: this.closed && !active ? 'closed' : active ? 'running' : 'idle',
      turn: active
        ? { id: active.id, origin: active.origin, input: active.input, startedAt: active.startedAt }
        : null,
      profile: runtime.activeProfile ?? null,
      prompt: runtime.activePrompt ?? null,
      planMode: runtime.inPlanMode,
      safety: runtime.safety,
      model: {
        label: describeRoute(route),
        model: route.model,
        alias: route.alias ?? null,
        contextWindow: route.contextWindow ?? contextWindowOf(route.model),
      },
      effort: runtime.effort ?? null,
      usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens },
      costUsd,
      contextTokens: this.tracker.contextTokens,
      subagents: this.tracker.list(),
      batches: this.tracker.batchList(),
      asks: this.asks.list(),
      queue: this.queue.map(({ id, text, queuedAt }) => ({ id, text, queuedAt })),
      todos: runtime.todos,
    };
  }

  private lookupCommand(name: string): SlashCommand | undefined {
    const command = findCommand(name);
    if (command) return command;
    return this.runtime.profileRegistry.profiles.has(name) ? profileTaskCommand(name) : undefined;
  }

  private commandNames(): string[] {
    return [...SLASH_COMMANDS.map((c) => c.name), ...this.runtime.profileRegistry.profiles.keys()];
  }

  private switching(what: string, change: () => SwitchResult): SwitchResult {
    if (this.closed) return { ok: false, message: 'the session is closed' };
    if (this.active) {
      return {
        ok: false,
        message: `cannot ${what} while a turn is running: wait for it to end or interrupt it first`,
      };
    }
    const result = change();
    this.publishState();
    return result;
  }

  private layersLine(what: string): string {
    const profile = this.runtime.activeProfile ?? 'off';
    const prompt = this.runtime.activePrompt ?? 'default';
    return `${what} (profile: ${profile}, prompt: ${prompt}, model: ${describeRoute(this.runtime.modelRoute)})`;
  }

  private async runInstant(
    id: string,
    input: string,
    command: SlashCommand,
    args: string,
  ): Promise<TurnOutcome> {
    const result = await this.runCommand(command, args, new AbortController().signal);
    return this.commandOutcome(id, 'user', input, command, result);
  }

  private async runCommand(command: SlashCommand, args: string, signal: AbortSignal): Promise<CommandResult> {
    let result: CommandResult;
    try {
      result = await command.run({ session: this, args, signal });
    } catch (error) {
      result = { text: `/${command.name}: ${(error as Error).message ?? String(error)}`, isError: true };
      // A command that calls a model (`/compact`) and throws was interrupted, or failed; it was not refused.
      if (command.turn?.(args)) result.stopReason = signal.aborted ? 'cancelled' : 'model_error';
    }
    this.publish({
      type: 'command_output',
      command: command.name,
      text: result.text,
      isError: result.isError === true,
    });
    return result;
  }

  private commandOutcome(
    id: string,
    origin: TurnOrigin,
    input: string,
    command: SlashCommand,
    result: CommandResult,
  ): TurnOutcome {
    return {
      turnId: id,
      origin,
      input,
      stopReason: result.stopReason ?? (result.isError ? 'refused' : 'completed'),
      // An error is the outcome's `error`; `text` is an answer (what headless prints on stdout).
      text: result.isError ? '' : result.text,
      isError: result.isError === true,
      error: result.isError ? result.text : undefined,
      turns: 0,
      command: command.name,
      quit: result.quit,
    };
  }

  private refusal(
    id: string,
    origin: TurnOrigin,
    input: string | null,
    stopReason: TurnOutcome['stopReason'],
    message: string,
    command?: string,
  ): TurnOutcome {
    return {
      turnId: id,
      origin,
      input,
      stopReason,
      text: '',
      isError: true,
      error: message,
      turns: 0,
      command,
    };
  }

  private settled(
    id: string,
    input: string,
    stopReason: TurnOutcome['stopReason'],
    message: string,
    command?: string,
  ): SubmitHandle {
    return {
      id,
      queued: false,
      outcome: Promise.resolve(this.refusal(id, 'user', input, stopReason, message, command)),
    };
  }

  /** Runs one turn to its end, then the next queued prompt or the background work that is waiting. */
  private startTurn(
    id: string,
    origin: TurnOrigin,
    input: string | null,
    work: Work | undefined,
  ): Promise<TurnOutcome> {
    const abort = new AbortController();
    let finished!: () => void;
    const turn: ActiveTurn = {
      id,
      origin,
      input,
      startedAt: this.now(),
      abort,
      done: new Promise<void>((resolve) => {
        finished = resolve;
      }),
    };
    this.active = turn;
    this.publish({ type: 'turn_started', turnId: id, origin, input });
    this.publishState();
    return (async () => {
      const outcome = await this.runWork(turn, work);
      this.active = undefined;
      this.publish({ type: 'turn_ended', outcome });
      this.publishState();
      finished();
      this.next();
      return outcome;
    })();
  }

  private async runWork(turn: ActiveTurn, work: Work | undefined): Promise<TurnOutcome> {
    const { id, origin, input, abort } = turn;
    try {
      if (work?.kind === 'command') {
        const result = await this.runCommand(work.command, work.args, abort.signal);
        return this.commandOutcome(id, origin, input ?? '', work.command, result);
      }
      const result =
        work === undefined
          ? await this.runtime.resume(abort.signal)
          : await this.runtime.prompt(work.text, abort.signal);
      return loopOutcome(id, origin, input, result);
    } catch (error) {
      const message = (error as Error).message ?? String(error);
      this.publish({ type: 'error', agent: 'main', message });
      return { ...this.refusal(id, origin, input, 'failed', message), failure: error };
    }
  }

  private next(): void {
    if (this.closed || this.active) return;
    const queued = this.queue.shift();
    if (queued) {
      this.publish({ type: 'prompt_dequeued', promptId: queued.id, reason: 'started' });
      this.startTurn(queued.id, 'queued', queued.text, queued.work).then(queued.resolve);
      return;
    }
    if (this.options.interactive && this.runtime.hasPendingReminders()) {
      void this.startTurn(randomUUID(), 'background', null, undefined);
    }
  }

  /** While idle, a background result (or reconciliation) that arrives starts a turn by itself (SPEC 7.3). */
  private scheduleIdleCheck(): void {
    if (this.idleCheck || !this.options.interactive) return;
    this.idleCheck = true;
    queueMicrotask(() => {
      this.idleCheck = false;
      this.next();
    });
  }
}

export interface LayerChoice {
  name: string;
  description: string | null;
  active: boolean;
}

function choices(
  items: Iterable<{ name: string; description?: string }>,
  active: string | undefined,
): LayerChoice[] {
  return [...items].map((item) => ({
    name: item.name,
    description: item.description ?? null,
    active: item.name === active,
  }));
}

function loopOutcome(id: string, origin: TurnOrigin, input: string | null, result: LoopResult): TurnOutcome {
  const stopReason: StopReason = result.stopReason;
  return {
    turnId: id,
    origin,
    input,
    stopReason,
    text: result.text,
    isError: stopReason !== 'completed',
    error: result.error,
    turns: result.turns,
  };
}
