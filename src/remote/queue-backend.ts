import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { realpathSync } from 'node:fs';
import type { LoopResult } from '../agent/loop.js';
import type { ChildBackend } from '../subagent/backend.js';
import {
  type ChildRun,
  childBuiltins,
  childFirstMessage,
  childSystem,
  childTurns,
  mcpChoice,
  openChildSession,
  recordChildTurn,
} from '../subagent/child-loop.js';
import type { SubagentHost } from '../subagent/host.js';
import { ClaimDeadlockError, type Lease } from '../subagent/scheduler.js';
import type { PreparedWriter } from '../subagent/writer.js';
import { git, gitRun, HARDENING } from '../worktree/git.js';
import { inspectRepo } from '../worktree/repo.js';
import { BaseRefs } from './base-refs.js';
import { Dispatches } from './dispatches.js';
import { type JobSpec, signJob } from './job.js';
import { Link } from './link.js';
import type { RemoteResult, RootMessage, WorkerMessage } from './messages.js';
import { append, connect, describeRedis, eventsKey, parseEntries, repliesKey } from './redis.js';
import { liveWorkerNames } from './refusals.js';
import type { QueueSettings } from './settings.js';
import { CADRE_VERSION } from './version.js';

type Outcome = { result: RemoteResult } | { failed: string };

/**
 * The `queue` backend (issue 18): an admitted child becomes a signed BullMQ job that a `cadre worker`
 * runs. The root pushes the job's base to the shared repository, streams the worker's progress, usage
 * and asks back into this session as they happen, answers asks on the job's reply channel, and at the end
 * fetches the task branch into the writer's local worktree, so retention and reconciliation are the
 * local ones. Redis unreachable: the task runs locally with `fallback: "local"`, else fails with why.
 */
export function queueBackend(host: SubagentHost, local: ChildBackend, settings: QueueSettings): ChildBackend {
  const warn = (message: string) => host.emit({ type: 'warning', agent: 'main', message });
  const link = new Link(
    settings.redis,
    warn,
    settings.fallback === 'local'
      ? 'new tasks run locally meanwhile (fallback: local)'
      : 'new tasks fail meanwhile (set workers.fallback "local" to run them here)',
  );
  link.warm();
  const bases = new BaseRefs(settings.repository as string);
  const dispatches = new Dispatches();
  const warned = new Set<string>();
  const warnOnce = (message: string) => {
    if (warned.has(message)) return;
    warned.add(message);
    warn(message);
  };
  return {
    async run(child, prepared, signal, lease, onDeadlock) {
      const dispatched = dispatches.begin();
      try {
        return await runQueued(child, prepared, signal, dispatched, lease, onDeadlock);
      } finally {
        dispatched();
      }
    },
    close: () => link.close(),
  };

  async function runQueued(
    child: ChildRun,
    prepared: PreparedWriter,
    signal: AbortSignal,
    dispatched: () => void,
    lease?: Lease,
    onDeadlock?: (error: ClaimDeadlockError) => void,
  ): Promise<LoopResult> {
    // Reaching Redis and pushing the base both take a while: they happen at once.
    const linking = link.acquire().then(
      () => undefined,
      (error: Error) => error.message,
    );
    const base = await jobBase(host, child, prepared);
    if ('local' in base) {
      if ((await linking) === undefined) link.release();
      warnOnce(base.local);
      dispatched();
      return local.run(child, prepared, signal, lease, onDeadlock);
    }
    const commit = base.base;
    // The job goes to the queue while its base ref is pushed: the worker fetches it once it is there.
    const claim = commit && bases.take(commit.top, commit.sha);
    const unreachable = await linking;
    if (unreachable !== undefined) {
      if (commit) await dropBase(bases, commit, warn);
      if (settings.fallback !== 'local') throw new Error(`${unreachable}; the task was not run`);
      warn(`${unreachable}; task ${child.task.id} runs locally (fallback: local)`);
      dispatched();
      return local.run(child, prepared, signal, lease, onDeadlock);
    }
    try {
      const queue = { link, bases, settings, dispatched, quiet: () => dispatches.quiet() };
      const job: RemoteJob =
        claim && commit
          ? { id: claim.id, base: { ...commit, ref: claim.ref, pushed: claim.pushed, landed: claim.landed } }
          : { id: randomUUID() };
      return await runRemote(host, queue, child, prepared, job, signal, lease, onDeadlock);
    } finally {
      link.release();
    }
  }
}

/** A task from `base` was reconciled: its commit's refs go after the last one (a failed drop is said, not fatal). */
async function dropBase(
  bases: BaseRefs,
  base: { top: string; sha: string },
  warn: (message: string) => void,
): Promise<void> {
  await bases
    .release(base.top, base.sha)
    .catch((error: Error) =>
      warn(`could not drop job bases (refs/cadre/base/*) from the shared repository: ${error.message}`),
    );
}

/** The commit a job starts from; `local` says why a child cannot go to a worker and runs here instead. */
async function jobBase(
  host: SubagentHost,
  child: ChildRun,
  prepared: PreparedWriter,
): Promise<{ base?: { top: string; sha: string } } | { local: string }> {
  if (child.task.tier === 'toolless') return {};
  if (prepared.worktree) return { base: { top: prepared.worktree.repoTop, sha: prepared.worktree.base } };
  if (child.task.tier === 'readwrite')
    return { local: 'read-write subagents serialized in the parent checkout run locally, not on workers' };
  // A reader needs only the checkout and its HEAD commit (one git call, no status of the tree).
  const head = await gitRun(host.projectRoot, [
    'rev-parse',
    '--show-toplevel',
    '--verify',
    '-q',
    'HEAD^{commit}',
  ]);
  const [top, sha] = head.stdout.trim().split('\n');
  if (head.code === 0 && top && sha) return { base: { top: realpathSync(top), sha } };
  const repo = await inspectRepo(host.projectRoot);
  return {
    local: `readonly subagents run locally: workers check out a commit, and ${repo.kind === 'none' ? repo.reason : 'the repository has no commits yet'}`,
  };
}

/** The job of one child: everything it is made of, computed here; the worker's config never widens it. */
function jobSpec(
  host: SubagentHost,
  settings: QueueSettings,
  child: ChildRun,
  prepared: PreparedWriter,
  job: RemoteJob,
): JobSpec {
  const { task, profile, route, params } = child;
  const { root: _root, home: _home, ...options } = host.childGateOptions(profile);
  const turns = childTurns(child);
  const first = childFirstMessage(host, child);
  const timeoutSecs = profile?.timeoutSecs ?? 600;
  const sandbox = host.sandbox?.settings;
  return {
    id: job.id,
    taskId: task.id,
    // Room to wait for a worker, to be retried once after a stall, and to run.
    expiresAt: Date.now() + settings.pickupTimeoutMs + 3 * settings.stalledAfterMs + timeoutSecs * 1000,
    version: CADRE_VERSION,
    repository: settings.repository ?? '',
    base: job.base && {
      ref: job.base.ref,
      sha: job.base.sha,
      // Still being pushed: the worker fetches it only once the root says it is there.
      ...(job.base.landed() ? {} : { announced: true }),
    },
    branch: prepared.worktree?.branch,
    sandbox: {
      required: task.tier === 'toolless' ? 'none' : 'confining',
      network: sandbox?.network ?? true,
      readOnly: sandbox?.readOnly ?? false,
    },
    tier: task.tier,
    tools: task.tier === 'toolless' ? [] : childBuiltins(child, prepared.root).map((t) => t.name),
    // The worker's own MCP servers, chosen from as a local child chooses from this session's.
    mcp: mcpChoice(child, prepared.worktree !== undefined || child.readOnlyRunner === true),
    system: childSystem(host, child, prepared),
    prompt: typeof first.content === 'string' ? first.content : child.input.prompt,
    maxTurns: turns.maxTurns,
    turnCapLabel: turns.label,
    timeoutSecs,
    askTimeoutMs: settings.askTimeoutMs,
    model: { alias: route.alias, type: route.type, model: route.model, params },
    gate: { options, ceiling: host.parentGate().ceiling, approvals: [...host.approvals()] },
  };
}

/** A job's id and the base ref the root pushes for it (none for a toolless child). */
interface RemoteJob {
  id: string;
  base?: { top: string; sha: string; ref: string; pushed: Promise<void>; landed(): boolean };
}

/** What one remote task uses of the backend. */
interface RemoteQueue {
  link: Link;
  bases: BaseRefs;
  settings: QueueSettings;
  /** The job is on the queue (or will not be). */
  dispatched(): void;
  /** Resolves once no other admitted task waits to be enqueued. */
  quiet(): Promise<void>;
}

/** One child on a worker, start to end; its base is pushed already, and dropped here once reconciled. */
async function runRemote(
  host: SubagentHost,
  { link, bases, settings, dispatched, quiet }: RemoteQueue,
  child: ChildRun,
  prepared: PreparedWriter,
  job: RemoteJob,
  signal: AbortSignal,
  lease?: Lease,
  onDeadlock?: (error: ClaimDeadlockError) => void,
): Promise<LoopResult> {
  const { task } = child;
  const repository = settings.repository as string;
  const spec = jobSpec(host, settings, child, prepared, job);
  openChildSession(host, child, prepared.root, childFirstMessage(host, child));
  const reader = connect(link.libs, settings.redis, true);
  let pushed: string | undefined;
  let turns = 0;
  const outcome = await new Promise<Outcome>((resolve) => {
    let settled = false;
    const finish = (value: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(pickup);
      clearInterval(lookout);
      clearTimeout(orphaned);
      signal.removeEventListener('abort', onAbort);
      stopReconnect();
      link.watches.delete(spec.id);
      resolve(value);
    };
    const reply = (message: RootMessage) =>
      append(link.commands, repliesKey(spec.id), message).catch(() => undefined);
    // Stalled jobs are found by workers: with the job's worker gone and none left to find it, the
    // root itself gives the job up once no worker has taken it over within the pickup timeout.
    let orphaned: NodeJS.Timeout | undefined;
    const lookout = setInterval(() => {
      if (!worker) return;
      void link.queue
        .getWorkers()
        .then((clients) => {
          if (settled || liveWorkerNames(clients.map((c) => c.rawname)).includes(worker as string)) {
            clearTimeout(orphaned);
            orphaned = undefined;
            return;
          }
          orphaned ??= setTimeout(() => {
            link.abandon(spec.id);
            finish({
              failed: `worker ${worker} stopped responding and no worker took the job over within ${settings.pickupTimeoutMs} ms (workers.pickup_timeout_ms); ${pushed ? `branch ${spec.branch} keeps what it committed` : 'it had committed nothing'}`,
            });
          }, settings.pickupTimeoutMs);
        })
        .catch(() => undefined);
    }, settings.stalledAfterMs);
    let worker: string | undefined;
    const refusals = new Map<string, string>();
    /** The asks of the child still open in this session, by id. */
    const asks = new Map<string, AbortController>();
    const pickup = setTimeout(() => {
      if (worker) return;
      link.abandon(spec.id);
      const refused = [...refusals].map(([name, reason]) => `worker ${name} refused it: ${reason}`);
      const why = link.isDown
        ? `Redis at ${describeRedis(settings.redis)} is unreachable`
        : refused.length > 0
          ? refused.join('; ')
          : `is a cadre worker running against ${describeRedis(settings.redis)}?`;
      finish({
        failed: `no worker took the job within ${settings.pickupTimeoutMs} ms (workers.pickup_timeout_ms); ${why}`,
      });
    }, settings.pickupTimeoutMs);
    const onAbort = () => {
      const reason = signal.reason instanceof Error ? signal.reason.message : 'cancelled';
      if (!worker) {
        link.abandon(spec.id);
        finish({ failed: reason });
        return;
      }
      void reply({ k: 'cancel', reason });
      // A worker that is gone cannot confirm: stop waiting once its lock would have expired.
      setTimeout(() => finish({ failed: reason }), settings.stalledAfterMs + 5000).unref();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const stopReconnect = link.onReconnect(() => {
      // Its base's `base` message may have been lost with the connection: the worker may wait for it.
      if (spec.base?.announced && job.base?.landed()) void reply({ k: 'base' });
      void link.queue.getJob(spec.id).then((job) => {
        if (!job)
          finish({
            failed: `Redis lost the job when it restarted (run Redis with persistence, see README); ${pushed ? `branch ${spec.branch} keeps what the worker committed` : 'nothing was committed'}`,
          });
      });
    });
    link.watches.set(spec.id, {
      failed: (reason) => finish({ failed: reason }),
      stalled: () =>
        host.emit({
          type: 'warning',
          agent: task.id,
          message: `task ${task.id}: worker ${worker ?? '?'} stopped responding; the job goes back to the queue for another worker`,
        }),
    });
    const handle = (message: WorkerMessage) => {
      switch (message.k) {
        case 'started':
          if (worker && worker !== message.worker)
            host.emit({
              type: 'warning',
              agent: task.id,
              message: `task ${task.id} was taken over by worker ${message.worker} after worker ${worker} stopped`,
            });
          worker = message.worker;
          task.worker = worker;
          host.emit({ type: 'subagent_worker', agent: task.parent, taskId: task.id, worker });
          break;
        case 'refused':
          // Offered to the other live workers meanwhile: the job fails once all of them refused it.
          refusals.set(message.worker, message.reason);
          break;
        case 'event':
          host.emit(message.event);
          break;
        case 'turn':
          turns = message.turn;
          recordChildTurn(host, child, message.added, message.turn, message.usage);
          break;
        case 'ask': {
          const open = new AbortController();
          asks.set(message.ask.id, open);
          void host
            .ask(message.ask, AbortSignal.any([signal, open.signal]))
            .then((answer) => reply({ k: 'answer', askId: message.ask.id, answer }))
            .finally(() => asks.delete(message.ask.id));
          break;
        }
        case 'ask_closed':
          asks.get(message.askId)?.abort(new Error(message.reason));
          break;
        case 'approved':
          host.onApproved(message.rule);
          break;
        case 'denied':
          host.onDenied(message.record);
          break;
        case 'pushed':
          pushed = message.sha;
          break;
        case 'claim':
          void decideClaim(lease, message, signal, onDeadlock).then((decision) => {
            if (decision) void reply({ k: 'claimed', id: message.id, ...decision });
          });
          break;
        case 'result':
          finish({ result: message.result });
          break;
      }
    };
    void (async () => {
      await link.queue.add('task', signJob(spec, settings.secret), {
        jobId: spec.id,
        // Kept a while: after a Redis restart the root tells a finished job from one Redis lost.
        removeOnComplete: { age: 3600 },
        removeOnFail: { age: 24 * 3600 },
      });
      dispatched();
      // The base ref was still on its way: the worker hears once it is there; a failed push fails the job.
      if (spec.base?.announced)
        job.base?.pushed.then(
          () => reply({ k: 'base' }),
          (error: Error) => {
            link.abandon(spec.id);
            void reply({ k: 'cancel', reason: error.message });
            finish({ failed: error.message });
          },
        );
      let last = '0';
      while (!settled) {
        const read = (await reader
          .xread('BLOCK', 2000, 'STREAMS', eventsKey(spec.id), last)
          .catch(() => null)) as [string, [string, string[]][]][] | null;
        for (const [, entries] of read ?? [])
          for (const { id, message } of parseEntries(entries)) {
            last = id;
            if (message) handle(message as WorkerMessage);
          }
      }
    })().catch((error: unknown) => finish({ failed: `cannot enqueue the job: ${(error as Error).message}` }));
  });
  // The task has ended: its slot and claims go to the next task while its work is fetched home.
  lease?.release();
  reader.disconnect();
  void link.commands.del(eventsKey(spec.id), repliesKey(spec.id)).catch(() => undefined);
  // The last commit pushed: the result's head, or the last push heard of when the result has none.
  const reported = 'result' in outcome ? outcome.result.head : undefined;
  const head = reported !== undefined && reported !== job.base?.sha ? reported : pushed;
  // The next tasks go to the queue before this one's work comes home.
  await quiet();
  // No worker needs the base any more: it goes while the work comes home.
  const dropping =
    job.base &&
    dropBase(bases, job.base, (message) => host.emit({ type: 'warning', agent: task.id, message }));
  try {
    if (prepared.worktree) await bringHome(prepared.worktree, repository, head, outcome);
  } finally {
    await dropping;
  }
  if ('failed' in outcome)
    return {
      text: '',
      messages: [],
      usage: task.usage,
      turns,
      stopReason: 'model_error',
      error: outcome.failed,
    };
  const { result } = outcome;
  return {
    text: result.text,
    messages: [],
    usage: task.usage,
    turns: result.turns,
    stopReason: result.stopReason,
    error: result.error,
  };
}

/**
 * A remote writer's claim request, decided by the root's scheduler exactly as for a local writer's tools
 * (SPEC 10): the decision to send back, or undefined for a `shrink`, which answers nothing.
 */
async function decideClaim(
  lease: Lease | undefined,
  request: Extract<WorkerMessage, { k: 'claim' }>,
  signal: AbortSignal,
  onDeadlock?: (error: ClaimDeadlockError) => void,
): Promise<{ error?: string; deadlock?: boolean } | undefined> {
  if (request.op === 'shrink') {
    lease?.shrink();
    return undefined;
  }
  try {
    if (request.op === 'widen') await lease?.widen(signal);
    else await lease?.realize(request.path ?? '', signal);
    return {};
  } catch (error) {
    const deadlock = error instanceof ClaimDeadlockError;
    // As for a local writer, a claim deadlock ends the task (the call itself answers with the message).
    if (deadlock) onDeadlock?.(error);
    return { error: (error as Error).message, deadlock };
  }
}

/**
 * The worker's commits (fetched from the shared repository) and uncommitted changes into the writer's
 * local worktree: afterwards it holds exactly what a local writer would have left.
 */
async function bringHome(
  worktree: { path: string; branch: string; base: string },
  repository: string,
  head: string | undefined,
  outcome: Outcome,
): Promise<void> {
  const moved = head !== undefined && head !== worktree.base;
  // A worker reports each push before its result: a job that ended with none committed nothing. A failed
  // job may still have pushed commits before its worker died: those are its salvage.
  if (moved || 'failed' in outcome) {
    const fetched = await gitRun(worktree.path, [
      'fetch',
      '-q',
      '--no-tags',
      repository,
      `refs/heads/${worktree.branch}`,
    ]);
    if (fetched.code === 0) await git(worktree.path, ['merge', '-q', '--ff-only', head ?? 'FETCH_HEAD']);
  }
  const patch = 'result' in outcome ? outcome.result.patch : undefined;
  if (patch) await applyPatch(worktree.path, patch);
}

function applyPatch(worktree: string, patch: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const apply = spawn('git', [...HARDENING, 'apply', '--binary', '-'], {
      cwd: worktree,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    apply.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    apply.on('error', reject);
    apply.on('close', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`cannot apply the worker's uncommitted changes: ${stderr.trim()}`)),
    );
    apply.stdin.end(patch);
  });
}
