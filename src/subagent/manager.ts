import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelMessage } from 'ai';
import type { EmitEvent } from '../agent/events.js';
import { type LoopResult, runAgentLoop } from '../agent/loop.js';
import type { ModelCaller } from '../agent/model-stream.js';
import type { Asker, PermissionDenialRecord } from '../agent/tool-runner.js';
import { toolSpecsFor } from '../agent/tool-specs.js';
import type { Config } from '../config/schema.js';
import { grantMcpTools } from '../mcp/grants.js';
import type { CadrePermissionGate, PermissionGateOptions } from '../permission/gate.js';
import type { ProfileRegistry } from '../profile/load.js';
import { resolveSubagentModel } from '../profile/subagent-model.js';
import type { Profile, Tier } from '../profile/types.js';
import { addUsage, costOf, ZERO_USAGE } from '../provider/pricing.js';
import { type ModelParams, type ModelRoute, routeFromAlias } from '../provider/route.js';
import type { SessionStore } from '../session/store.js';
import { createToolContext } from '../tool/context.js';
import { builtinTools } from '../tool/registry.js';
import type { AnyTool, ToolResult } from '../tool/tool.js';
import { untilAborted } from '../util/abort.js';
import { parentFactsPack } from './parent-facts.js';
import defaultSubagentPrompt from './prompts/default.txt';
import { SubagentScheduler } from './scheduler.js';
import {
  excerptResult,
  INLINE_RESULT_LIMIT,
  type LiveTask,
  type TaskState,
  TERMINAL_STATES,
} from './task-record.js';
import type { TaskInput } from './task-tool.js';
import { subagentToolNames } from './tiers.js';

/** What the manager needs from the session that owns it. */
export interface SubagentHost {
  projectRoot: string;
  config: Config;
  env: NodeJS.ProcessEnv;
  profiles: ProfileRegistry;
  mainRoute: ModelRoute;
  parentSessionId: string;
  store: SessionStore;
  /** The parent's current gate: children are composed under its ceiling (SPEC 6.7). */
  parentGate(): CadrePermissionGate;
  /** A child's own composition: its profile's policies and rules plus the session-wide ones. */
  childGateOptions(profile: Profile | undefined): Omit<PermissionGateOptions, 'ceiling'>;
  emit: EmitEvent;
  ask: Asker;
  /** Every child denial, for `permission_denials` of the whole run. */
  onDenied(record: PermissionDenialRecord): void;
  /** The session's "always allow" approvals, and where a child's new ones go (they hold for the session). */
  approvals(): readonly string[];
  onApproved(rule: string): void;
  mcpTools(): AnyTool[];
  modelCaller(route: ModelRoute, params: ModelParams): Promise<ModelCaller>;
  /** The parent's conversation so far, for the review built-ins' facts pack (SPEC 3.4). */
  parentMessages(): readonly ModelMessage[];
  /** Aborted when the whole session is cancelled; background tasks live as long as it. */
  sessionSignal: AbortSignal;
}

/** Without a profile, the default subagent gets the read-only tier: useful, and it cannot change anything. */
const DEFAULT_TIER: Tier = 'readonly';

/** Everything one child run is made of, decided at dispatch. */
interface ChildRun {
  task: LiveTask;
  profile: Profile | undefined;
  route: ModelRoute;
  params: ModelParams;
  input: TaskInput;
}

export class SubagentError extends Error {
  override name = 'SubagentError';
}

/** Runs `task` dispatches: one-shot or tooled, foreground or background, queued past the cap (SPEC 7). */
export class SubagentManager {
  private readonly tasks = new Map<string, LiveTask>();
  private readonly scheduler: SubagentScheduler;
  /** Read-write children run one at a time in the parent checkout. */
  private readonly writers = new SubagentScheduler(1);
  /** Finished background tasks whose result the main agent has not seen yet, by task id. */
  private readonly reminders = new Map<string, string>();
  private changed: (() => void)[] = [];

  constructor(private readonly host: SubagentHost) {
    this.scheduler = new SubagentScheduler(host.config.max_subagent_concurrency ?? 6);
  }

  get schedulerState(): SubagentScheduler {
    return this.scheduler;
  }

  list(): LiveTask[] {
    return [...this.tasks.values()];
  }

  /**
   * Dispatches one task for `parent` ('main' or the dispatching subagent's id); foreground waits for the
   * answer, background returns the id at once. `observe` receives the live task once it exists.
   */
  async dispatch(
    input: TaskInput,
    signal: AbortSignal,
    parent = 'main',
    observe?: (task: LiveTask) => void,
  ): Promise<ToolResult> {
    const name = input.agent ?? input.profile;
    const profile = name === undefined ? undefined : this.host.profiles.profiles.get(name);
    if (name !== undefined && !profile) {
      const known = [...this.host.profiles.profiles.keys()].join(', ');
      return { output: `Unknown agent "${name}". Known agents: ${known}.`, isError: true };
    }
    const choice = resolveSubagentModel({
      profile,
      call: { model: input.model, effort: input.effort },
      config: this.host.config,
    });
    if (!choice.ok) return { output: `Cannot start the subagent: ${choice.error}.`, isError: true };
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
    const tier = profile?.tier ?? DEFAULT_TIER;
    const background = input.background === true;
    const record = this.host.store.createTask({
      parentSessionId: this.host.parentSessionId,
      prompt: input.prompt,
      profile: profile?.name,
      tier,
      model: route.model,
      description: input.description,
      background,
      retryOf: input.retry_of,
      writePaths: input.write_paths,
    });
    let settle!: () => void;
    const task: LiveTask = {
      id: record.id,
      parent,
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
    };
    this.tasks.set(task.id, task);
    observe?.(task);
    const signals = [task.controller.signal, this.host.sessionSignal, ...(background ? [] : [signal])];
    const run = this.run({ task, profile, route, params, input }, AbortSignal.any(signals))
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
    if (background) {
      const position = this.writers.position(task.id) || this.scheduler.position(task.id);
      const queued =
        position > 0 ? ` It is queued, position ${position}; it starts when a slot frees up.` : '';
      return {
        output: `Started background task ${task.id} (${task.profile ?? 'default subagent'}).${queued} Its result will be delivered to you when it finishes; use task_status to check on it.`,
      };
    }
    await run;
    return this.resultFor(task);
  }

  private async run(child: ChildRun, signal: AbortSignal): Promise<void> {
    const { task, profile } = child;
    const { emit, store } = this.host;
    emit({
      type: 'subagent_start',
      agent: task.parent,
      taskId: task.id,
      profile: task.profile,
      description: task.description,
      background: task.background,
    });
    let release: () => void;
    try {
      release = await this.acquireSlots(task, signal);
    } catch {
      this.finish(task, 'cancelled', { error: 'cancelled before it started' });
      return;
    }
    try {
      this.setState(task, 'running');
      task.startedAt = Date.now();
      store.updateTask(task.id, { status: 'running', startedAt: task.startedAt });
      const timeoutSecs = profile?.timeoutSecs ?? 600;
      const timeout = AbortSignal.timeout(timeoutSecs * 1000);
      const result = await this.runLoop(child, AbortSignal.any([signal, timeout]));
      if (result.stopReason === 'completed') this.finish(task, 'completed', { result: result.text });
      else if (timeout.aborted) {
        this.finish(task, 'timed_out', {
          error: `timed out after ${timeoutSecs} s`,
          result: result.text || undefined,
        });
      } else if (result.stopReason === 'cancelled') this.finish(task, 'cancelled', { error: 'cancelled' });
      else this.finish(task, 'failed', { error: result.error ?? result.stopReason, result: result.text });
    } catch (error) {
      if (!TERMINAL_STATES.has(task.state))
        this.finish(task, 'failed', { error: (error as Error).message ?? String(error) });
    } finally {
      release();
    }
  }

  /**
   * A slot among `max_subagent_concurrency`; a read-write child first takes the single writer slot, since
   * writers share the parent checkout until worktree isolation exists (SPEC 9, serialized mode). The
   * writer slot is taken first so a waiting writer never holds a slot readers could use.
   */
  private async acquireSlots(task: LiveTask, signal: AbortSignal): Promise<() => void> {
    const { emit } = this.host;
    let releaseWriter = () => {};
    if (task.tier === 'readwrite') {
      const waiting = this.writers.acquire(task.id, signal);
      const position = this.writers.position(task.id);
      if (position > 0)
        emit({ type: 'subagent_queued', agent: task.parent, taskId: task.id, position, cause: 'writer' });
      releaseWriter = await waiting;
    }
    const waiting = this.scheduler.acquire(task.id, signal);
    const position = this.scheduler.position(task.id);
    if (position > 0)
      emit({ type: 'subagent_queued', agent: task.parent, taskId: task.id, position, cause: 'slots' });
    try {
      const releaseSlot = await waiting;
      return () => {
        releaseSlot();
        releaseWriter();
      };
    } catch (error) {
      releaseWriter();
      throw error;
    }
  }

  private async runLoop(
    { task, profile, route, params, input }: ChildRun,
    signal: AbortSignal,
  ): Promise<LoopResult> {
    const { host } = this;
    // The child sees none of the parent's conversation, except the facts pack its profile asks for.
    const facts = profile?.parentFacts ? parentFactsPack(host.parentMessages()) : '';
    const firstMessage: ModelMessage = {
      role: 'user',
      content: facts ? `${facts}\n\n${input.prompt}` : input.prompt,
    };
    const tools = this.childTools(task, profile, input);
    const gate = host.parentGate().narrowFor(host.childGateOptions(profile));
    for (const rule of host.approvals()) gate.approve(rule);
    const visible = new Set(gate.visibleTools(tools));
    const allowed = tools.filter((t) => visible.has(t.name));
    let sessionId = host.parentSessionId;
    if (task.tier !== 'toolless') {
      const child = host.store.createSession({
        projectRoot: host.projectRoot,
        cwd: host.projectRoot,
        parentId: host.parentSessionId,
        agent: task.profile ?? undefined,
        model: route.model,
      });
      sessionId = child.id;
      task.childSessionId = child.id;
      host.store.updateTask(task.id, { childSessionId: child.id });
      host.store.appendMessages(child.id, [firstMessage], 0);
    }
    const context = createToolContext({ root: host.projectRoot, agent: task.id, sessionId, signal });
    const maxSteps = input.max_steps ?? profile?.maxTurns ?? 25;
    try {
      return await runAgentLoop({
        agent: task.id,
        callModel: await host.modelCaller(route, params),
        system: profile?.prompt || defaultSubagentPrompt,
        messages: [firstMessage],
        toolSpecs: toolSpecsFor(allowed),
        tools: {
          tools: new Map(tools.map((t) => [t.name, t])),
          gate,
          ask: host.ask,
          context,
          onDenied: (record) => host.onDenied(record),
          onApproved: (rule) => host.onApproved(rule),
        },
        maxTurns: task.tier === 'toolless' ? 1 : maxSteps,
        turnCapLabel:
          task.tier === 'toolless'
            ? 'a toolless subagent answers in one model call'
            : `max_steps ${maxSteps}`,
        emit: host.emit,
        signal,
        costOf: (usage) => costOf(route.model, usage),
        onTurnCommitted: (added, turn, usage) => {
          const cost = costOf(route.model, usage);
          task.usage = addUsage(task.usage, usage);
          if (cost !== null) task.costUsd = (task.costUsd ?? 0) + cost;
          if (task.childSessionId) {
            host.store.appendMessages(task.childSessionId, added, turn);
            host.store.recordUsage(task.childSessionId, turn, { ...usage, costUsd: cost ?? undefined });
          }
        },
      });
    } finally {
      context.jobs.killAll();
    }
  }

  /** Built-in tools of the tier (narrowed by profile and call) plus granted MCP tools. */
  private childTools(task: LiveTask, profile: Profile | undefined, input: TaskInput): AnyTool[] {
    const tier = task.tier as Tier;
    const names = subagentToolNames({
      tier,
      allow: profile?.subagentAllow,
      deny: profile?.subagentDeny,
      callTools: input.tools,
    });
    const builtins = builtinTools(this.host.projectRoot).filter((t) => names.includes(t.name));
    const granted = grantMcpTools(profile?.mcp, tier, this.host.mcpTools());
    for (const warning of granted.warnings) {
      this.host.emit({
        type: 'warning',
        agent: task.id,
        message: `profile ${profile?.name ?? 'default'}: ${warning}`,
      });
    }
    const mcp = input.tools ? granted.tools.filter((t) => input.tools?.includes(t.name)) : granted.tools;
    return [...builtins, ...mcp];
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
    if (task.background) {
      this.reminders.set(
        task.id,
        `Background task ${task.id} (${task.profile ?? 'default subagent'}) ${this.resultFor(task).output}`,
      );
    }
  }

  /** What the model is told about a finished task; long results are excerpted with a readable reference. */
  private resultFor(task: LiveTask): ToolResult {
    if (task.state === 'completed') {
      return { output: `completed:\n${this.modelText(task, task.result ?? '')}` };
    }
    const partial = task.result ? `\nPartial output:\n${this.modelText(task, task.result)}` : '';
    return {
      output: `${task.state.replace('_', ' ')}: ${task.error ?? 'no reason given'}${partial}`,
      isError: true,
    };
  }

  /** The text the model sees; a long result is stored whole once (session and file) and excerpted. */
  private modelText(task: LiveTask, text: string): string {
    if (Buffer.byteLength(text, 'utf8') <= INLINE_RESULT_LIMIT) return text;
    const reference = `.cadre/tasks/${task.id}.md`;
    if (!task.stored) {
      const dir = join(this.host.projectRoot, '.cadre', 'tasks');
      mkdirSync(dir, { recursive: true });
      // Kept out of version control: results are session records, not project files.
      writeFileSync(join(dir, '.gitignore'), '*\n');
      writeFileSync(join(this.host.projectRoot, reference), text);
      this.host.store.storeBlob(task.childSessionId ?? this.host.parentSessionId, text);
      task.stored = true;
    }
    return excerptResult(text, reference);
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

  /** `task_status`: the state of one task; with `wait`, blocks until it is terminal. */
  async status(taskId: string, wait: boolean, signal: AbortSignal): Promise<ToolResult> {
    const task = this.lookup(taskId);
    if (typeof task === 'string') return { output: task, isError: true };
    if (wait && !TERMINAL_STATES.has(task.state)) {
      await untilAborted(task.finished, signal);
    }
    if (!TERMINAL_STATES.has(task.state)) {
      const position = this.scheduler.position(task.id);
      const where = task.state === 'queued' ? `queued, position ${position}` : 'running';
      const elapsed = task.startedAt
        ? `, ${((Date.now() - task.startedAt) / 1000).toFixed(1)} s elapsed`
        : '';
      return { output: `Task ${task.id} (${task.profile ?? 'default subagent'}) is ${where}${elapsed}.` };
    }
    this.reminders.delete(task.id);
    const result = this.resultFor(task);
    return { ...result, output: `Task ${task.id} (${task.profile ?? 'default subagent'}) ${result.output}` };
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

  cancelAll(reason = 'the session was cancelled'): void {
    for (const task of this.tasks.values())
      if (!TERMINAL_STATES.has(task.state)) task.controller.abort(new SubagentError(reason));
  }

  /** Background results the main agent has not seen, as system reminders (SPEC 7.3). */
  pendingReminders(): { id: string; text: string }[] {
    return [...this.reminders].map(([id, text]) => ({ id, text }));
  }

  remindersDelivered(ids: readonly string[]): void {
    for (const id of ids) this.reminders.delete(id);
  }

  /** Waits until a background task finishes; false when none is pending. */
  async waitForReminders(signal: AbortSignal): Promise<boolean> {
    if (this.reminders.size > 0) return true;
    const pending = [...this.tasks.values()].filter((t) => t.background && !TERMINAL_STATES.has(t.state));
    if (pending.length === 0) return false;
    await untilAborted(Promise.race(pending.map((t) => t.finished)), signal);
    return !signal.aborted;
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
