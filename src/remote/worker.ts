import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { LanguageModel } from 'ai';
import type { Job, Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { EmitEvent } from '../agent/events.js';
import { type LoopResult, runAgentLoop } from '../agent/loop.js';
import { type ModelCaller, sdkModelCaller } from '../agent/model-stream.js';
import type { Asker } from '../agent/tool-runner.js';
import { toolSpecsFor } from '../agent/tool-specs.js';
import type { LoadedConfig } from '../config/load.js';
import type { McpManager } from '../mcp/manager.js';
import { createPermissionGate } from '../permission/gate.js';
import { createLanguageModel } from '../provider/model.js';
import { costOf } from '../provider/pricing.js';
import { aliasRoute, type ModelRoute, resolveMainRoute } from '../provider/route.js';
import { chooseBackend, closeSandbox, openSandbox, type SandboxMode } from '../sandbox/sandbox.js';
import { sandboxSettings } from '../sandbox/settings.js';
import { childMcpTools } from '../subagent/child-loop.js';
import { claimAware } from '../subagent/claimed-tools.js';
import type { ClaimDeadlockError } from '../subagent/scheduler.js';
import { createToolContext } from '../tool/context.js';
import { builtinTools } from '../tool/registry.js';
import type { AnyTool } from '../tool/tool.js';
import { type JobSpec, jobRefusal, workerMismatch } from './job.js';
import type { RemoteResult, WorkerMessage } from './messages.js';
import {
  append,
  connect,
  eventsKey,
  loadQueueLibraries,
  QUEUE_NAME,
  type QueueLibraries,
  ready,
  repliesKey,
  STREAM_TTL_SECONDS,
} from './redis.js';
import { liveWorkerNames, REOFFER_DELAY_MS, refusalsKey, refusalVerdict } from './refusals.js';
import { ReplyChannel } from './reply-channel.js';
import { CADRE_VERSION } from './version.js';
import { type JobCheckout, WorkerRepo } from './worker-repo.js';

/** `caller`, calling `called` once a call has gone out (the turn after it starts: its request is written). */
function noticingCall(caller: ModelCaller, called: () => void): ModelCaller {
  return async function* (request) {
    setImmediate(called);
    yield* caller(request);
  };
}

/** How long after a job's end its worktree is cleaned for the next (git calls stall the worker a moment each). */
const TIDY_DELAY_MS = 250;
/**
 * How long after a job's first model call its worktree is switched to its base: a job this worker picks
 * up at the same moment (a fleet's items come together) starts its own child first.
 */
const SWITCH_DELAY_MS = 100;

export interface WorkerOptions {
  name: string;
  redis: string;
  concurrency: number;
  /** The worker's cache: the shared repository's store, worktrees, the ids it ran. */
  dir: string;
  loaded: LoadedConfig;
  env: NodeJS.ProcessEnv;
  secret: string;
  /** `workers.stalled_after_ms`: lock duration and stalled-check interval. */
  stalledAfterMs: number;
  /** Reports what the worker does, one line at a time. */
  log(line: string): void;
}

export class JobRefused extends Error {
  override name = 'JobRefused';
}

/** The ids this worker has run, kept on disk: a replayed job is refused across restarts too. */
class RanIds {
  private readonly ids = new Set<string>();
  constructor(private readonly file: string) {
    if (existsSync(file)) for (const id of readFileSync(file, 'utf8').split('\n')) if (id) this.ids.add(id);
  }
  has(id: string): boolean {
    return this.ids.has(id);
  }
  add(id: string): void {
    this.ids.add(id);
    appendFileSync(this.file, `${id}\n`);
  }
}

/**
 * `cadre worker` (issue 18): takes signed jobs from the queue, checks each (signature, expiry, replay,
 * version, repository, sandbox, model alias), runs the child in a worktree of the job's base under the
 * same sandbox and rules a local child gets, pushes the task branch after every commit, streams progress
 * and asks home, and answers with the result.
 */
export class CadreWorker {
  private libs!: QueueLibraries;
  private worker?: Worker;
  private mcp?: McpManager;
  private queue?: Queue;
  private commands!: Redis;
  /** The BullMQ worker's blocking connection: ours to close, BullMQ does not. */
  private blocking?: Redis;
  private readonly ran: RanIds;
  private readonly sandboxMode: SandboxMode;
  private readonly confining: { ok: boolean; reason?: string };
  /** Jobs running here, by id: one handed back while it still runs here (a lock lost under load) joins it. */
  private readonly running = new Map<string, Promise<RemoteResult>>();
  private readonly reported = new Set<string>();
  /** Checkouts of finished jobs being made ready for the next (or removed). */
  private readonly tidying = new Set<Promise<void>>();
  /** Jobs this worker refused (logged and reported home once, however often they are offered again). */
  private readonly refused = new Set<string>();
  private readonly repos = new Map<string, WorkerRepo>();

  constructor(private readonly options: WorkerOptions) {
    mkdirSync(options.dir, { recursive: true });
    this.ran = new RanIds(join(options.dir, 'ran-job-ids'));
    this.sandboxMode = options.loaded.config.sandbox ?? 'auto';
    const backend = chooseBackend(this.sandboxMode);
    this.confining = { ok: backend.backend !== 'none', reason: backend.reason };
  }

  async start(): Promise<void> {
    const { options } = this;
    // The worker's own MCP servers, up before it takes a job: remote children are granted tools from them.
    const servers = options.loaded.config.mcp_servers ?? {};
    if (Object.keys(servers).length > 0) {
      const { startMcp } = await import('../mcp/manager.js');
      this.mcp = startMcp(servers, {
        cwd: options.loaded.projectRoot,
        onWarning: (message) => options.log(`MCP: ${message}`),
      });
      await this.mcp.ready;
    }
    // The repository this worker accepts gets its worktree pool now (while the libraries load), as large
    // as busy slots keep it (one each, and a spare each): its first jobs neither make nor add one.
    const repository = options.loaded.config.workers?.repository;
    const warming = repository
      ? this.repo(repository)
          .warm(2 * options.concurrency)
          .catch((error: Error) =>
            options.log(`cannot prepare worktrees for ${repository}: ${error.message}`),
          )
      : undefined;
    this.libs = await loadQueueLibraries();
    await warming;
    this.commands = connect(this.libs, options.redis, true);
    await ready(this.commands);
    const connection = connect(this.libs, options.redis, true);
    this.blocking = connection;
    this.queue = new this.libs.bullmq.Queue(QUEUE_NAME, { connection: this.commands });
    this.worker = new this.libs.bullmq.Worker(QUEUE_NAME, (job, token) => this.process(job, token), {
      connection,
      concurrency: options.concurrency,
      name: options.name,
      lockDuration: options.stalledAfterMs,
      stalledInterval: options.stalledAfterMs,
      maxStalledCount: 1,
      autorun: false,
    });
    this.worker.on('error', (error) => {
      // A lost lock is retried every few hundred ms: say it once per job.
      const key = error.message.replace(/^could not renew lock for job /, 'lock ');
      if (this.reported.has(key)) return;
      this.reported.add(key);
      options.log(`queue error: ${error.message}`);
    });
    void this.worker.run();
    await this.worker.waitUntilReady();
    const mcp = (this.mcp?.status() ?? []).map((s) => `${s.name} (${s.state}, ${s.toolCount} tools)`);
    options.log(
      `worker ${options.name} ready: concurrency ${options.concurrency}, sandbox ${this.confining.ok ? 'confining' : `none (${this.confining.reason})`}${mcp.length > 0 ? `, MCP servers: ${mcp.join(', ')}` : ''}`,
    );
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await Promise.all(this.tidying);
    await Promise.all([...this.repos.values()].map((repo) => repo.close()));
    await this.queue?.close().catch(() => undefined);
    this.commands?.disconnect();
    this.blocking?.disconnect();
    await this.mcp?.close();
  }

  private send(jobId: string, message: WorkerMessage): Promise<void> {
    return append(this.commands, eventsKey(jobId), message).catch(() => undefined);
  }

  /** Why this worker will not run `spec` beyond its signature; undefined when it will. */
  private mismatch(spec: JobSpec): string | undefined {
    const { config } = this.options.loaded;
    return workerMismatch(spec, {
      version: CADRE_VERSION,
      sandbox: this.confining,
      repository: config.workers?.repository,
      aliases: Object.keys(config.providers ?? {}),
    });
  }

  /**
   * Refuses `job`: records why, then offers it again to the other live workers, or fails it with every
   * worker's reason once all of them refused it.
   */
  private async refuse(job: Job, token: string | undefined, reason: string): Promise<never> {
    const { options, libs } = this;
    const jobId = String(job.id);
    const key = refusalsKey(jobId);
    await this.commands.multi().hset(key, options.name, reason).expire(key, STREAM_TTL_SECONDS).exec();
    if (!this.refused.has(jobId)) {
      this.refused.add(jobId);
      options.log(`refused job ${jobId}: ${reason}`);
      await this.send(jobId, { k: 'refused', worker: options.name, reason });
    }
    const [refusals, clients] = await Promise.all([
      this.commands.hgetall(key),
      (this.queue as Queue).getWorkers(),
    ]);
    const verdict = refusalVerdict(refusals, liveWorkerNames(clients.map((c) => c.rawname)));
    if ('failed' in verdict) {
      this.refused.delete(jobId);
      throw new libs.bullmq.UnrecoverableError(verdict.failed);
    }
    await job.moveToDelayed(Date.now() + REOFFER_DELAY_MS, token);
    throw new libs.bullmq.DelayedError();
  }

  private async process(job: Job, token: string | undefined): Promise<RemoteResult> {
    const { options } = this;
    const jobId = String(job.id);
    const spec = (job.data as { spec?: JobSpec } | null)?.spec;
    const refusal =
      jobRefusal(job.data, options.secret, {
        now: Date.now(),
        alreadyRan: (id) => this.ran.has(id) && !this.running.has(id),
      }) ?? this.mismatch(spec as JobSpec);
    if (refusal) return this.refuse(job, token, refusal);
    const accepted = spec as JobSpec;
    const already = this.running.get(accepted.id);
    if (already) {
      options.log(`job ${jobId} came back while it still runs here (its lock expired): joining that run`);
      return already;
    }
    this.ran.add(accepted.id);
    // Handed back after a stall: an earlier attempt may have pushed commits to the task branch.
    const run = this.accepted(jobId, accepted, (job.stalledCounter ?? 0) > 0 || job.attemptsMade > 0);
    this.running.set(accepted.id, run);
    try {
      return await run;
    } finally {
      this.running.delete(accepted.id);
    }
  }

  private async accepted(jobId: string, spec: JobSpec, retried: boolean): Promise<RemoteResult> {
    const { options } = this;
    options.log(`job ${jobId}: task ${spec.taskId} (${spec.tier}) started`);
    // Not waited for: the job's messages keep their order on the one connection, and the checkout starts now.
    void this.send(jobId, { k: 'started', worker: options.name });
    const cleanup: (() => Promise<void>)[] = [];
    try {
      const result = await this.runJob(jobId, spec, retried, cleanup);
      options.log(`job ${jobId}: task ${spec.taskId} ${result.stopReason}`);
      await this.send(jobId, { k: 'result', result });
      return result;
    } finally {
      // After the result went home, and outside the job: the root does not wait for the tidying, and
      // this worker's next job waits only for a worktree being made ready when no other is idle. It
      // starts a moment later: the job that follows on the freed slot is picked up and placed first.
      const tidying = (async () => {
        await new Promise((resolve) => setTimeout(resolve, TIDY_DELAY_MS));
        for (const step of cleanup) await step().catch(() => undefined);
      })();
      this.tidying.add(tidying);
      void tidying.then(() => this.tidying.delete(tidying));
    }
  }

  /** The worker's cache of `repository`, one for all its jobs. */
  private repo(repository: string): WorkerRepo {
    let repo = this.repos.get(repository);
    if (!repo) {
      // As many spare worktrees as slots: a slot's next job never waits for its last one's cleaning.
      repo = new WorkerRepo(this.options.dir, repository, this.options.concurrency);
      this.repos.set(repository, repo);
    }
    return repo;
  }

  /** The job's model through this worker's own provider entry for its alias. */
  private async model(spec: JobSpec): Promise<{ route: ModelRoute; language: LanguageModel }> {
    const { config } = this.options.loaded;
    const base = spec.model.alias
      ? aliasRoute(config, spec.model.alias, this.options.env)
      : resolveMainRoute(config, {}, this.options.env);
    if (!base) throw new JobRefused(`this worker has no provider alias "${spec.model.alias}"`);
    const route = { ...base, model: spec.model.model };
    return { route, language: await createLanguageModel(route) };
  }

  private async runJob(
    jobId: string,
    spec: JobSpec,
    retried: boolean,
    cleanup: (() => Promise<void>)[],
  ): Promise<RemoteResult> {
    const { options } = this;
    const controller = new AbortController();
    // The root stops the task at its time limit; this only covers a root that is gone.
    const timeout = AbortSignal.timeout(spec.timeoutSecs * 1000 + 30_000);
    const signal = AbortSignal.any([controller.signal, timeout]);
    const replies = new ReplyChannel(connect(this.libs, options.redis, true), repliesKey(jobId), (reason) =>
      controller.abort(new Error(reason)),
    );
    replies.start();
    // The model client is made while the checkout is: neither waits for the other.
    const model = this.model(spec);
    model.catch(() => undefined);
    const repo = spec.base ? this.repo(spec.repository) : undefined;
    let checkout: JobCheckout | undefined;
    /** Where the child runs: the job's worktree, or a scratch folder for a job without a base. */
    let root: string;
    let pushed: string | undefined;
    /** Whether the child ran a tool: a child that ran none changed nothing (no git calls to find out). */
    let acted = false;
    const pushIfMoved = async () => {
      if (!repo || !checkout?.branch || !acted) return;
      const head = await repo.head(checkout);
      if (head === pushed || head === checkout.start) return;
      pushed = await repo.push(checkout);
      // The root hears of it first: a worker killed right after this line has told it what it pushed.
      await this.send(jobId, { k: 'pushed', sha: pushed });
      options.log(`job ${jobId}: pushed ${checkout.branch} at ${pushed}`);
    };
    /** The job's worktree switched to its branch: the child's first model call does not wait for it. */
    let ready: Promise<unknown> = Promise.resolve();
    let calling!: () => void;
    /** The child's first model call has gone out (or the job ended without one). */
    const called = new Promise<void>((resolve) => {
      calling = resolve;
    });
    try {
      if (repo && spec.base) {
        const based = spec.base.announced ? replies.based : undefined;
        const settledIn = called.then(() => new Promise((resolve) => setTimeout(resolve, SWITCH_DELAY_MS)));
        const placed = await repo.place(spec.id, spec.base, spec.branch, retried, settledIn, based);
        root = placed.path;
        ready = placed.ready.then((made) => {
          checkout = made;
        });
        // A worktree that cannot be switched ends the job with git's reason (below).
        ready.catch((error: Error) => controller.abort(error));
        cleanup.push(async () => {
          const made = await placed.ready.catch(() => undefined);
          if (made) await repo.release(made);
        });
      } else {
        mkdirSync(join(options.dir, 'scratch'), { recursive: true });
        const made = mkdtempSync(join(options.dir, 'scratch', 'job-'));
        root = made;
        cleanup.push(async () => rmSync(made, { recursive: true, force: true }));
      }
      const hooks = {
        ready,
        called: calling,
        after: () => {
          acted = true;
          return pushIfMoved();
        },
      };
      const loop = await this.runChild(jobId, spec, root, await model, signal, replies, hooks, (error) =>
        controller.abort(error),
      );
      // A child that ran no tool changed nothing: its result does not wait for its worktree.
      if (acted) await ready;
      await pushIfMoved();
      const patch = repo && checkout?.branch && acted ? await repo.uncommitted(checkout) : undefined;
      return {
        worker: options.name,
        stopReason: timeout.aborted ? 'cancelled' : loop.stopReason,
        text: loop.text,
        error: timeout.aborted ? `timed out after ${spec.timeoutSecs} s` : loop.error,
        turns: loop.turns,
        head: spec.branch && spec.base ? (pushed ?? checkout?.start ?? spec.base.sha) : undefined,
        patch,
      };
    } catch (error) {
      await pushIfMoved().catch(() => undefined);
      return {
        worker: options.name,
        stopReason: 'model_error',
        text: '',
        error: (error as Error).message,
        turns: 0,
        head: pushed,
      };
    } finally {
      calling();
      replies.stop();
    }
  }

  /** The child's loop: the job's tools, gate and prompt, in `root`, under this machine's sandbox. */
  private async runChild(
    jobId: string,
    spec: JobSpec,
    root: string,
    model: { route: ModelRoute; language: LanguageModel },
    signal: AbortSignal,
    replies: ReplyChannel,
    /**
     * Every tool call waits for `ready` (the worktree in place); `after` each one, new commits go home;
     * `called` when the child's first model call has gone out.
     */
    hooks: { ready: Promise<unknown>; called: () => void; after: () => Promise<void> },
    onDeadlock: (error: ClaimDeadlockError) => void,
  ): Promise<LoopResult> {
    const { options } = this;
    const settings = sandboxSettings(
      options.loaded,
      spec.sandbox.readOnly ? 'read-only' : 'full',
      options.env,
    );
    // The job's network setting is the ceiling: the worker's config may narrow it, never widen it.
    settings.network = settings.network && spec.sandbox.network;
    const { sandbox } = openSandbox(settings, root, this.sandboxMode);
    const gate = createPermissionGate({ ...spec.gate.options, root, ceiling: spec.gate.ceiling });
    for (const rule of spec.gate.approvals) gate.approve(rule);
    const send = (message: WorkerMessage) => this.send(jobId, message);
    const emit: EmitEvent = (event) => void this.send(jobId, { k: 'event', event });
    const own = [
      ...builtinTools(root).filter((t) => spec.tools.includes(t.name)),
      ...childMcpTools(this.mcp?.tools() ?? [], spec.mcp, (warning) =>
        emit({ type: 'warning', agent: spec.taskId, message: `on worker ${options.name}: ${warning}` }),
      ),
    ];
    // A writer's claim is held by the root's scheduler: its writes wait for the root's decision there.
    const claimed =
      spec.tier === 'readwrite' ? claimAware(own, replies.lease(spec.taskId, send), root, onDeadlock) : own;
    const tools: AnyTool[] = claimed.map((tool) => ({
      ...tool,
      // Not before the job's worktree is in place; after every tool call a writer's new commits go home
      // at once: a killed worker loses only what was not committed.
      async execute(input, ctx) {
        await hooks.ready;
        try {
          return await tool.execute(input, ctx);
        } finally {
          await hooks
            .after()
            .catch((error: unknown) => options.log(`job ${jobId}: push failed: ${(error as Error).message}`));
        }
      },
    }));
    const visible = new Set(gate.visibleTools(tools));
    const context = createToolContext({ root, agent: spec.taskId, sessionId: jobId, signal, sandbox });
    const { route, language } = model;
    const ask: Asker = (request, askSignal) => replies.ask(request, askSignal, spec.askTimeoutMs, send);
    try {
      return await runAgentLoop({
        agent: spec.taskId,
        callModel: noticingCall(sdkModelCaller(language, route, spec.model.params), hooks.called),
        system: spec.system,
        messages: [{ role: 'user', content: spec.prompt }],
        toolSpecs: toolSpecsFor(tools.filter((t) => visible.has(t.name))),
        tools: {
          tools: new Map(tools.map((t) => [t.name, t])),
          gate,
          ask,
          context,
          onDenied: (record) => void this.send(jobId, { k: 'denied', record }),
          onApproved: (rule) => void this.send(jobId, { k: 'approved', rule }),
        },
        maxTurns: spec.maxTurns,
        turnCapLabel: spec.turnCapLabel,
        emit,
        signal,
        costOf: (usage) => costOf(route.model, usage),
        onTurnCommitted: (added, turn, usage) => void this.send(jobId, { k: 'turn', added, turn, usage }),
      });
    } finally {
      context.jobs.killAll();
      closeSandbox(sandbox);
    }
  }
}
