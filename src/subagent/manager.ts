import { resolveSubagentModel } from '../profile/subagent-model.js';
import type { Profile, Tier } from '../profile/types.js';
import { ZERO_USAGE } from '../provider/pricing.js';
import { type ModelParams, type ModelRoute, routeFromAlias } from '../provider/route.js';
import type { SessionStore } from '../session/store.js';
import { WRITER_TOOLS } from '../tool/names.js';
import type { ToolResult } from '../tool/tool.js';
import { untilAborted } from '../util/abort.js';
import { type ChildBackend, childBackend } from './backend.js';
import { Batches } from './batches.js';
import { type ChildRun, childGate, childTools } from './child-loop.js';
import type { Coordination } from './dispatch-strategy.js';
import type { FleetInput } from './fleet-plan.js';
import { type FleetRun, startFleet } from './fleet-run.js';
import {
  cancelReason,
  type DispatchOptions,
  SubagentError,
  type SubagentHost,
  schedulerLimits,
} from './host.js';
import { OwnWrites } from './own-writes.js';
import { type RetryTarget, retryRefusal } from './reconciliation.js';
import { type Lease, type SlotRequest, SubagentScheduler, type WaitCause } from './scheduler.js';
import { type LiveTask, type TaskState, TERMINAL_STATES } from './task-record.js';
import { recordIsolation, runAdmitted, settleWriter } from './task-runner.js';
import { modelText, reconciledEntry, resultFor } from './task-text.js';
import type { TaskInput } from './task-tool.js';
import {
  type PreparedWriter,
  planWriter,
  prepareWriter,
  type WriteIsolation,
  type WriterPlan,
} from './writer.js';
import { type WriterSandbox, writerSandbox } from './writer-sandbox.js';

export { type DispatchOptions, SubagentError, type SubagentHost } from './host.js';

/** Without a profile, the default subagent gets the read-only tier: useful, and it cannot change anything. */
const DEFAULT_TIER: Tier = 'readonly';
/** A launched task and the promise of its run, or why it could not be launched. */
type Launch = { task: LiveTask; run: Promise<void>; forcedBackground: boolean } | { error: string };

/** The readonly runner keeps a toolless profile toolless and gives every tooled one the readonly tier. */
function runnerTier(tier: Tier, readOnlyRunner: boolean): Tier {
  return readOnlyRunner && tier === 'readwrite' ? 'readonly' : tier;
}

/**
 * Runs `task` dispatches (SPEC 7-9): one-shot or tooled, foreground or background, queued through the
 * shared scheduler; under coordinated dispatch background tasks form batches delivered in one
 * reconciliation; read-write children run in their own worktree or serialized in the parent checkout.
 */
export class SubagentManager {
  private readonly tasks = new Map<string, LiveTask>();
  private readonly fleets = new Map<string, FleetRun>();
  private readonly scheduler: SubagentScheduler;
  private readonly batches = new Batches();
  /** Finished independent background tasks whose result the main agent has not seen yet, by task id. */
  private readonly reminders = new Map<string, string>();
  private readonly lastCause = new Map<string, WaitCause>();
  private readonly warned = new Set<string>();
  private coordination: Coordination = { strategy: 'off', readonly: [], readwrite: [], warnings: [] };
  private changed: (() => void)[] = [];
  private readonly sandbox: WriterSandbox;
  /** What this session's serialized writers left in the parent checkout (the dirty-parent check). */
  private readonly ownWrites = new OwnWrites();

  private readonly backend: ChildBackend;

  constructor(private readonly host: SubagentHost) {
    this.scheduler = new SubagentScheduler(schedulerLimits(host.config));
    this.sandbox = host.writerSandbox ?? writerSandbox(host.sandbox);
    this.backend = childBackend(host);
    this.scheduler.onChange(() => this.reportCauses());
  }

  get schedulerState(): SubagentScheduler {
    return this.scheduler;
  }

  get coordinated(): boolean {
    return this.coordination.strategy !== 'off';
  }

  /** Set once at start, after the strategy was resolved against the session's gate (SPEC 8). */
  setCoordination(coordination: Coordination): void {
    this.coordination = coordination;
  }

  list(): LiveTask[] {
    return [...this.tasks.values()];
  }

  /** The built-in tools a child of `profile` really gets in the parent checkout (tier, lists, gate). */
  toolNamesOf(profile: Profile): string[] {
    const task = { id: profile.name, tier: profile.tier } as LiveTask;
    const tools = childTools(
      this.host,
      { task, profile, input: { prompt: '' } },
      this.host.projectRoot,
      false,
    );
    const options = this.host.childGateOptions(profile);
    const gate = childGate(this.host, profile, this.host.projectRoot);
    const mcp = new Set(this.host.mcpTools().map((t) => t.name));
    // Under the read-only floor the shell stays visible for reading, but nothing of the writer tier writes.
    const inert: ReadonlySet<string> = new Set(options.safety === 'read-only' ? WRITER_TOOLS : []);
    return gate.visibleTools(tools).filter((name) => !mcp.has(name) && !inert.has(name));
  }

  /**
   * Dispatches one task for `parent` ('main' or the dispatching subagent's id); foreground waits for the
   * answer, background returns the id at once.
   */
  async dispatch(input: TaskInput, signal: AbortSignal, parent = 'main'): Promise<ToolResult> {
    const launched = await this.launch(input, signal, { parent });
    if ('error' in launched) return { output: launched.error, isError: true };
    const { task, run, forcedBackground } = launched;
    if (task.background) return { output: this.startedText(task, forcedBackground) };
    await run;
    return resultFor(this.host, task);
  }

  /**
   * `fleet` (SPEC 10): preflight, then every item as a task held until its dependencies complete, through
   * the same scheduler. Foreground waits for the whole fleet; background returns its id at once.
   */
  async runFleet(input: FleetInput, signal: AbortSignal, parent = 'main'): Promise<ToolResult> {
    const started = await startFleet(
      {
        projectRoot: this.host.projectRoot,
        profileNames: () => new Set(this.host.profiles.profiles.keys()),
        mayDispatch: (name) => this.host.mayDispatch?.(name) ?? true,
        launch: async (taskInput, itemSignal, fleetItem) => {
          const launched = await this.launch(taskInput, itemSignal, { parent, fleetItem });
          return 'error' in launched ? launched : { task: launched.task };
        },
        cancel: (task, reason) => task.controller.abort(new SubagentError(reason)),
        text: (task) => modelText(this.host, task, task.result ?? ''),
      },
      input,
      signal,
    );
    if ('error' in started) return { output: started.error, isError: true };
    const { fleet } = started;
    this.fleets.set(fleet.id, fleet);
    if (fleet.background) {
      const batch = [...fleet.tasks.values()][0]?.batchId;
      return {
        output: `Started fleet ${fleet.id} with ${fleet.items.length} items in the background. ${
          batch
            ? `Its items belong to coordinator batch ${batch}; they are delivered at its reconciliation.`
            : 'Its result is delivered when every item has finished; task_status on the fleet id reads it.'
        }`,
      };
    }
    await untilAborted(fleet.finished(), signal);
    fleet.delivered = true;
    return { output: fleet.resultText((task) => modelText(this.host, task, task.result ?? '')) };
  }

  /** `task_status` on a fleet id: progress, or the whole result (with `wait`, once every item finished). */
  private async fleetStatus(fleet: FleetRun, wait: boolean, signal: AbortSignal): Promise<ToolResult> {
    const batch = [...fleet.tasks.values()].find((t) => t.batchId)?.batchId;
    if (batch && !this.batches.isReconciled(batch))
      return {
        output: `${fleet.progress((t) => this.whereIs(t))}
Its items belong to coordinator batch ${batch}; their results will be delivered at reconciliation.`,
      };
    if (wait) await untilAborted(fleet.finished(), signal);
    if (!fleet.done()) return { output: fleet.progress((t) => this.whereIs(t)) };
    fleet.delivered = true;
    return { output: fleet.resultText((task) => modelText(this.host, task, task.result ?? '')) };
  }

  /**
   * Runs one task to its end outside any model turn (`cadre subagent try|run`, SPEC 11): the same
   * dispatch, scheduler, isolation and task record as `task`. Resolves with the finished task, or rejects
   * with a SubagentError saying why it could not start (unknown profile, invalid model or effort).
   */
  async runToEnd(input: TaskInput, signal: AbortSignal, options: DispatchOptions = {}): Promise<LiveTask> {
    const launched = await this.launch(input, signal, options);
    if ('error' in launched) throw new SubagentError(launched.error);
    await launched.task.finished;
    return launched.task;
  }

  private async launch(
    input: TaskInput,
    signal: AbortSignal,
    options: DispatchOptions = {},
  ): Promise<Launch> {
    let retried: RetryTarget | undefined;
    if (input.retry_of !== undefined) {
      retried = this.retryTarget(input.retry_of);
      const refusal = retryRefusal(input.retry_of, retried);
      if (refusal) return { error: refusal };
    }
    const retriedProfile = retried
      ? (this.tasks.get(retried.id)?.profile ?? this.host.store.getTask(retried.id)?.profile)
      : undefined;
    const name = input.agent ?? input.profile ?? retriedProfile ?? undefined;
    const profile = name === undefined ? undefined : this.host.profiles.profiles.get(name);
    if (name !== undefined && !profile) {
      const known = [...this.host.profiles.profiles.keys()].join(', ');
      return { error: `Unknown agent "${name}". Known agents: ${known}.` };
    }
    const choice = resolveSubagentModel({
      profile,
      call: { model: input.model, effort: input.effort },
      config: this.host.config,
      fallbackModel: options.defaultModel,
    });
    if (!choice.ok) return { error: `Cannot start the subagent: ${choice.error}.` };
    const route: ModelRoute =
      choice.model === null
        ? this.host.mainRoute
        : choice.model.kind === 'alias'
          ? routeFromAlias(choice.model.alias, choice.model.provider, this.host.env)
          : { ...this.host.mainRoute, model: choice.model.model };
    const params: ModelParams = {
      effort: choice.effort,
      temperature: profile?.temperature,
      maxOutputTokens: profile?.maxOutputTokens,
    };
    const readOnlyRunner = options.readOnlyRunner === true;
    const tier = runnerTier(profile?.tier ?? DEFAULT_TIER, readOnlyRunner);
    const writer = tier === 'readwrite';
    let plan: WriterPlan | undefined;
    if (writer) {
      const planned = await planWriter(this.isolationMode(), this.host.projectRoot, this.sandbox);
      if (!planned.ok) return { error: `Cannot start the subagent: ${planned.error}.` };
      plan = planned.plan;
      if (planned.warning) this.warnOnce(planned.warning);
    }
    const fleetItem = options.fleetItem;
    // Under coordination a writer's isolation and lifecycle are tracked per batch: always background
    // (a fleet decides for all its items).
    const forcedBackground = this.coordinated && writer && input.background !== true && !fleetItem;
    const background = fleetItem ? fleetItem.background : input.background === true || forcedBackground;
    const batchId = this.coordinated && background ? this.batches.join() : undefined;
    const record = this.host.store.createTask({
      parentSessionId: this.host.parentSessionId,
      prompt: input.prompt,
      profile: profile?.name,
      tier,
      model: route.model,
      description: input.description,
      background,
      retryOf: retried?.id,
      writePaths: input.write_paths,
      batchId,
    });
    let settle!: () => void;
    const task: LiveTask = {
      id: record.id,
      parent: options.parent ?? 'main',
      profile: profile?.name ?? null,
      description: input.description ?? input.prompt.slice(0, 80),
      prompt: input.prompt,
      background,
      tier,
      model: route.model,
      state: 'queued',
      childSessionId: null,
      usage: ZERO_USAGE,
      costUsd: null,
      controller: new AbortController(),
      finished: new Promise<void>((resolve) => {
        settle = resolve;
      }),
      batchId,
      retryOf: retried?.id,
      fleet: fleetItem ? { id: fleetItem.id, item: fleetItem.item } : undefined,
    };
    this.tasks.set(task.id, task);
    if (batchId) this.batches.add(batchId, task.id);
    if (retried) {
      const original = this.tasks.get(retried.id);
      if (original) original.retriedBy = task.id;
    }
    const signals = [task.controller.signal, this.host.sessionSignal, ...(background ? [] : [signal])];
    const child = { task, profile, route, params, input, readOnlyRunner };
    const run = this.run(child, plan, AbortSignal.any(signals), fleetItem)
      .catch((error: unknown) => {
        // Recording the outcome itself failed (e.g. the store is gone): the run must not become an unhandled rejection.
        this.host.emit({
          type: 'error',
          agent: task.id,
          message: `subagent ${task.id}: ${(error as Error).message}`,
        });
      })
      .finally(() => {
        settle();
        this.notify();
      });
    return { task, run, forcedBackground };
  }

  private startedText(task: LiveTask, forcedBackground: boolean): string {
    const who = `${task.id} (${task.profile ?? 'default subagent'})`;
    const parts = [
      `Started background task ${who}${task.batchId ? ` in coordinator batch ${task.batchId}` : ''}.`,
    ];
    if (forcedBackground)
      parts.push(
        'Readwrite profiles always run in the background under coordinated dispatch, so this one does too.',
      );
    const position = this.scheduler.position(task.id);
    if (position > 0)
      parts.push(
        `It is queued, position ${position} (waiting for ${this.scheduler.causeOf(task.id)}); it starts when that frees up.`,
      );
    parts.push(
      task.batchId
        ? 'Its result will be delivered at the batch reconciliation, once every task of the batch has finished.'
        : 'Its result will be delivered to you when it finishes; use task_status to check on it.',
    );
    return parts.join(' ');
  }

  private isolationMode(): WriteIsolation {
    return this.host.config.subagent_write_isolation ?? 'auto';
  }

  private warnOnce(message: string): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    this.host.emit({ type: 'warning', agent: 'main', message });
  }

  /** What `retry_of` names: a task of this session, live or recorded (e.g. before a `--continue`). */
  private retryTarget(idOrPrefix: string): RetryTarget | undefined {
    const live = this.lookup(idOrPrefix);
    if (typeof live !== 'string')
      return { id: live.id, state: live.state, retryOf: live.retryOf, retriedBy: live.retriedBy };
    let stored: ReturnType<SessionStore['getTask']>;
    try {
      stored = this.host.store.getTask(idOrPrefix);
    } catch {
      return undefined;
    }
    if (!stored || stored.parentSessionId !== this.host.parentSessionId) return undefined;
    const retriedBy = this.host.store
      .listTasks({ parentSessionId: this.host.parentSessionId })
      .find((t) => t.retryOf === stored.id)?.id;
    return { id: stored.id, state: stored.status, retryOf: stored.retryOf, retriedBy };
  }

  private slotRequest(
    task: LiveTask,
    plan: WriterPlan | undefined,
    input: TaskInput,
    fleetItem: DispatchOptions['fleetItem'],
  ): SlotRequest {
    const label = fleetItem ? `fleet item "${fleetItem.item}" (task ${task.id})` : undefined;
    const request: SlotRequest = { taskId: task.id, batch: task.batchId, parent: task.parent, label };
    const fleetClaim = fleetItem?.claim;
    if (!plan) return request;
    request.writer = true;
    const checkout = this.host.projectRoot;
    const declared =
      fleetClaim ?? (input.write_paths && input.write_paths.length > 0 ? input.write_paths : undefined);
    // A serialized `task` writer holds its whole (shared) checkout; a fleet item there holds what it
    // declared, or the whole workspace; an isolated writer only what it declared (SPEC 9, 10).
    if (plan.isolation === 'serialize')
      request.claim = task.fleet
        ? { checkout, paths: declared ?? 'workspace', shrinkable: declared === undefined }
        : { checkout, paths: 'workspace' };
    else if (declared) request.claim = { checkout, paths: declared, ownCheckout: true };
    return request;
  }

  /**
   * One task from dispatch to its end: the fleet gate, then admission by the scheduler (an isolated
   * writer's worktree is made meanwhile, so it is ready when the slot is), then the runner; the lease is
   * released before the worktree is settled, so the next task starts while this one is cleaned up.
   */
  private async run(
    child: ChildRun,
    plan: WriterPlan | undefined,
    signal: AbortSignal,
    fleetItem?: DispatchOptions['fleetItem'],
  ): Promise<void> {
    const { task } = child;
    const { emit, store } = this.host;
    emit({
      type: 'subagent_start',
      agent: task.parent,
      taskId: task.id,
      profile: task.profile,
      description: task.description,
      background: task.background,
      batchId: task.batchId,
      tier: task.tier,
      ...(fleetItem
        ? { fleet: { id: fleetItem.id, item: fleetItem.item, dependsOn: fleetItem.dependsOn ?? [] } }
        : {}),
    });
    let lease: Lease;
    let preparing: Promise<PreparedWriter> | undefined;
    // An isolated writer's worktree is made while it waits: a fleet item without dependencies already
    // while the fleet launches, so the fleet's first writers start together. A serialized writer checks
    // the parent checkout once admitted (the writer before it may leave it dirty).
    const prepare = (worktreePlan: WriterPlan) => {
      preparing ??= prepareWriter(worktreePlan, this.host.projectRoot, this.sandbox, this.host.env);
      preparing.catch(() => undefined);
    };
    try {
      if (plan?.isolation === 'worktree' && !fleetItem?.dependsOn?.length) prepare(plan);
      const skip = fleetItem ? await untilAborted(fleetItem.gate(), signal) : undefined;
      if (signal.aborted) throw signal.reason;
      if (skip !== undefined) {
        await preparing?.then((p) => settleWriter(this.host, task, p)).catch(() => undefined);
        task.skipped = true;
        this.finish(task, 'cancelled', { error: skip });
        return;
      }
      if (plan?.isolation === 'worktree') prepare(plan);
      lease = await this.scheduler.acquire(this.slotRequest(task, plan, child.input, fleetItem), signal);
    } catch (error) {
      // A worktree made while the task queued holds nothing yet: it is removed.
      await preparing?.then((p) => settleWriter(this.host, task, p)).catch(() => undefined);
      if (signal.aborted) {
        const reason = cancelReason(signal);
        task.skipped = reason.startsWith('skipped:');
        this.finish(task, 'cancelled', { error: task.skipped ? reason : `${reason} before it started` });
      } else this.finish(task, 'failed', { error: (error as Error).message });
      return;
    }
    let prepared: PreparedWriter | undefined;
    try {
      this.setState(task, 'running');
      task.startedAt = Date.now();
      store.updateTask(task.id, { status: 'running', startedAt: task.startedAt });
      prepared = plan
        ? await (preparing ??
            prepareWriter(plan, this.host.projectRoot, this.sandbox, this.host.env, this.ownWrites))
        : { root: this.host.projectRoot };
      if (plan) recordIsolation(this.host, task, prepared);
      const outcome = await runAdmitted(this.host, child, prepared, lease, signal, this.backend);
      lease.release();
      await settleWriter(this.host, task, prepared);
      this.finish(task, outcome.state, outcome);
    } catch (error) {
      lease.release();
      if (!TERMINAL_STATES.has(task.state)) {
        await settleWriter(this.host, task, prepared).catch((e: unknown) => {
          task.notes = [
            ...(task.notes ?? []),
            `cadre could not settle the worktree: ${(e as Error).message}`,
          ];
        });
        this.finish(task, signal.aborted ? 'cancelled' : 'failed', {
          error: signal.aborted ? cancelReason(signal) : ((error as Error).message ?? String(error)),
        });
      }
    }
  }

  private setState(task: LiveTask, state: TaskState): void {
    task.state = state;
    this.notify();
  }

  private finish(task: LiveTask, state: TaskState, outcome: { result?: string; error?: string }): void {
    task.result = outcome.result;
    task.error = outcome.error;
    task.endedAt = Date.now();
    this.setState(task, state);
    this.host.store.updateTask(task.id, {
      status: state,
      result: outcome.result ?? null,
      error: outcome.error ?? null,
      inputTokens: task.usage.inputTokens,
      outputTokens: task.usage.outputTokens,
      costUsd: task.costUsd,
      endedAt: task.endedAt,
    });
    this.host.emit({
      type: 'subagent_end',
      agent: task.parent,
      taskId: task.id,
      status: state as 'completed' | 'failed' | 'cancelled' | 'timed_out',
      result: outcome.result,
      error: outcome.error,
    });
    if (task.background && !task.batchId && !task.fleet) {
      this.reminders.set(
        task.id,
        `Background task ${task.id} (${task.profile ?? 'default subagent'}) ${resultFor(this.host, task).output}`,
      );
    }
  }

  /** A task by id or unique id prefix; otherwise why not (unknown, or which tasks the prefix matches). */
  private lookup(taskId: string): LiveTask | string {
    const exact = this.tasks.get(taskId);
    if (exact) return exact;
    const matches = [...this.tasks.values()].filter((t) => t.id.startsWith(taskId));
    if (matches.length === 1) return matches[0];
    if (matches.length > 1)
      return `Task id prefix "${taskId}" is ambiguous: ${matches.map((t) => t.id).join(', ')}.`;
    return `Unknown task "${taskId}". Tasks of this session: ${[...this.tasks.keys()].join(', ') || '(none)'}.`;
  }

  private whereIs(task: LiveTask): string {
    if (task.state === 'running') {
      const cause = this.scheduler.causeOf(task.id);
      const where = task.worker ? `running on worker ${task.worker}` : 'running';
      return cause ? `${where}, waiting for ${cause} before its next write` : where;
    }
    if (task.state !== 'queued') return `finished (${task.state.replace('_', ' ')})`;
    const cause = this.scheduler.causeOf(task.id);
    return `queued, position ${this.scheduler.position(task.id)}${cause ? `, waiting for ${cause}` : ''}`;
  }

  /** `task_status`: the state of one task; with `wait`, blocks until it is terminal. */
  async status(taskId: string, wait: boolean, signal: AbortSignal): Promise<ToolResult> {
    const fleet = [...this.fleets.values()].find(
      (f) => f.id === taskId || (taskId.length > 2 && f.id.startsWith(taskId)),
    );
    if (fleet) return this.fleetStatus(fleet, wait, signal);
    const task = this.lookup(taskId);
    if (typeof task === 'string') return { output: task, isError: true };
    const who = `Task ${task.id} (${task.profile ?? 'default subagent'})`;
    if (task.batchId && !this.batches.isReconciled(task.batchId)) {
      // The barrier (SPEC 8): nothing of an open batch reaches the model before its reconciliation.
      return {
        output: `${who} is ${this.whereIs(task)}; it belongs to coordinator batch ${task.batchId}, whose results will be delivered at reconciliation, once every task of the batch has finished. No partial output is given before then.`,
      };
    }
    if (wait && !TERMINAL_STATES.has(task.state)) await untilAborted(task.finished, signal);
    if (!TERMINAL_STATES.has(task.state)) {
      const elapsed = task.startedAt
        ? `, ${((Date.now() - task.startedAt) / 1000).toFixed(1)} s elapsed`
        : '';
      return { output: `${who} is ${this.whereIs(task)}${elapsed}.` };
    }
    this.reminders.delete(task.id);
    const result = resultFor(this.host, task);
    return { ...result, output: `${who} ${result.output}` };
  }

  /** Cancels a running or queued task by id or unique prefix; false when there is no such live task. */
  cancel(taskId: string, reason = 'cancelled by the user'): boolean {
    return this.kill(taskId, reason).ok;
  }

  /** `/kill <id-prefix>`: cancels a live task, or says why not (unknown, ambiguous, already ended). */
  kill(
    taskId: string,
    reason = 'cancelled by the user',
  ): { ok: true; taskId: string } | { ok: false; message: string } {
    const task = this.lookup(taskId);
    if (typeof task === 'string') return { ok: false, message: task };
    if (TERMINAL_STATES.has(task.state))
      return { ok: false, message: `Task ${task.id} is not running (${task.state.replace('_', ' ')}).` };
    task.controller.abort(new SubagentError(reason));
    return { ok: true, taskId: task.id };
  }

  /** Resolves once every task has reached a terminal state and been recorded. */
  async settled(): Promise<void> {
    await Promise.all([...this.tasks.values()].map((t) => t.finished));
  }

  /** Releases what the backend holds between tasks (the queue backend's Redis connections). */
  async closeBackend(): Promise<void> {
    await this.backend.close?.();
  }

  cancelAll(reason = 'the session was cancelled'): void {
    for (const task of this.tasks.values())
      if (!TERMINAL_STATES.has(task.state)) task.controller.abort(new SubagentError(reason));
  }

  /**
   * What the main agent has not seen, as system reminders (SPEC 7.3, 8): independent background results,
   * and one reconciliation per coordinator batch whose tasks are all terminal.
   */
  pendingReminders(): { id: string; text: string }[] {
    const complete = this.batches.closeComplete(
      (id) => this.tasks.get(id) as LiveTask,
      (tasks) => tasks.map((t) => reconciledEntry(this.host, t)),
    );
    for (const batch of complete) {
      this.host.emit({
        type: 'batch_reconciled',
        agent: 'main',
        batchId: batch.id,
        taskIds: batch.taskIds,
        text: batch.text,
      });
    }
    // A background fleet outside coordination is delivered as one reminder once every item finished.
    const fleets = [...this.fleets.values()].filter(
      (f) => f.background && !f.delivered && f.done() && ![...f.tasks.values()].some((t) => t.batchId),
    );
    return [
      ...[...this.reminders].map(([id, text]) => ({ id, text })),
      ...fleets.map((f) => ({
        id: `fleet:${f.id}`,
        text: `Background ${f.resultText((task) => modelText(this.host, task, task.result ?? ''))}`,
      })),
      ...this.batches.undelivered().map((b) => ({ id: `batch:${b.id}`, text: b.text })),
    ];
  }

  remindersDelivered(ids: readonly string[]): void {
    for (const id of ids) {
      if (id.startsWith('batch:')) this.batches.delivered(id.slice('batch:'.length));
      else if (id.startsWith('fleet:')) {
        const fleet = this.fleets.get(id.slice('fleet:'.length));
        if (fleet) fleet.delivered = true;
      } else this.reminders.delete(id);
    }
  }

  /** Waits until there is something to deliver; false when nothing is pending or will be. */
  async waitForReminders(signal: AbortSignal): Promise<boolean> {
    for (;;) {
      if (this.pendingReminders().length > 0) return true;
      const pending = [...this.tasks.values()].filter((t) => t.background && !TERMINAL_STATES.has(t.state));
      if (pending.length === 0 || signal.aborted) return false;
      await untilAborted(Promise.race(pending.map((t) => t.finished)), signal);
      if (signal.aborted) return false;
    }
  }

  /** Emits `subagent_queued` for every queued task whose cause is new or changed. */
  private reportCauses(): void {
    // A running writer waiting to realize a claim is reported at position 0.
    const waiting = this.scheduler.waitingToWrite().map((w) => ({ ...w, position: 0 }));
    for (const entry of [...this.scheduler.queued(), ...waiting]) {
      if (this.lastCause.get(entry.taskId) === entry.cause) continue;
      this.lastCause.set(entry.taskId, entry.cause);
      this.host.emit({
        type: 'subagent_queued',
        agent: this.tasks.get(entry.taskId)?.parent ?? 'main',
        taskId: entry.taskId,
        position: entry.position,
        cause: entry.cause,
        batchId: this.tasks.get(entry.taskId)?.batchId,
      });
    }
    for (const taskId of this.lastCause.keys())
      if (this.scheduler.causeOf(taskId) === undefined) this.lastCause.delete(taskId);
  }

  private notify(): void {
    const listeners = this.changed;
    this.changed = [];
    for (const listener of listeners) listener();
  }

  /** Resolves when `predicate` holds (tests and clients wait on state, not time). */
  waitFor(predicate: (m: SubagentManager) => boolean): Promise<void> {
    if (predicate(this)) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (predicate(this)) resolve();
        else this.changed.push(check);
      };
      this.changed.push(check);
    });
  }
}
