/**
 * Why a dispatch is waiting, in one vocabulary for `task`, coordinated batches and `fleet` (SPEC 8, 10):
 * a free subagent slot, a writer slot, room in its coordinator batch, or a write-path claim another task
 * holds (or has queued ahead of it). Shown as is in events, stream-json and `task_status`.
 */
export type WaitCause = 'slots' | 'writers' | 'batch' | `claim: ${string} held by ${string}`;

/** The path a whole-workspace claim is shown as. */
export const WHOLE_WORKSPACE = '.';

/**
 * What a writer will write (SPEC 10). `checkout` is the directory it writes in: claims conflict only
 * within one checkout. `paths` are relative to it; a trailing `/` marks a directory claim.
 */
export interface Claim {
  checkout: string;
  paths: 'workspace' | readonly string[];
  /**
   * A whole-workspace claim that shrinks to the files written after path-bound writes (a fleet item that
   * declared nothing). A serialized `task` writer keeps its checkout to itself (SPEC 9).
   */
  shrinkable?: boolean;
  /**
   * The writer writes in its own worktree and this claim stands for its merge (SPEC 9): its shell cannot
   * touch the shared checkout, so nothing it runs widens the claim.
   */
  ownCheckout?: boolean;
}

export interface SlotRequest {
  taskId: string;
  /** Counts against the writer cap. */
  writer?: boolean;
  /** A writer's claim. Readers never claim, and are never blocked by claims. */
  claim?: Claim;
  /** A coordinator batch: at most `limits.batch` of its tasks run at once. */
  batch?: string;
  /**
   * The task that makes this request while holding a slot itself. It cannot wait on slots its own parent
   * holds, so a nested request that cannot start at once fails instead of queueing (no deadlock).
   */
  parent?: string;
  /** How messages name the task (e.g. its fleet item); default `task <id>`. */
  label?: string;
}

export interface SchedulerLimits {
  /** `max_subagent_concurrency`. */
  total: number;
  /** `max_parallel_writers` (never above `total`). */
  writers: number;
  /** Running tasks per coordinator batch. */
  batch: number;
}

/**
 * A granted slot: what "the scheduler admitted a task" hands to whatever runs it (SPEC 10). The runner
 * calls `realize`/`widen` before writes and `release` when the task ends; the scheduler never runs
 * anything itself, so a different runner (another process, a remote queue) can hold the lease instead.
 * Every method is safe to call after release (it does nothing).
 */
export interface Lease {
  readonly taskId: string;
  /** The task ended: its slot and every claim it held are free again. A pending wait rejects. */
  release(): void;
  /**
   * A path-bound write of `path` (relative to the claim's checkout) is about to happen. Resolves once the
   * file is this writer's: at once, or after the running writer holding it (as a file claim, the whole
   * workspace, or a file its directory claim realized first) has ended; meanwhile the task waits with
   * the cause. Rejects with ClaimDeadlockError when the holder waits on this writer in turn, and with the
   * signal's reason when it aborts.
   */
  realize(path: string, signal?: AbortSignal): Promise<void>;
  /**
   * A `bash` or MCP write: the claim becomes the whole workspace again and can no longer shrink. Waits
   * like `realize` for every other writer of the checkout to end (same rejections).
   */
  widen(signal?: AbortSignal): Promise<void>;
  /** After path-bound writes only: a shrinkable claim shrinks to the files actually written. */
  shrink(): void;
}

export interface QueuedEntry {
  taskId: string;
  position: number;
  cause: WaitCause;
}

export class NestedAcquisitionError extends Error {
  override name = 'NestedAcquisitionError';
}

/** Running writers wait on each other's claims in a cycle: none of them could ever go on. */
export class ClaimDeadlockError extends Error {
  override name = 'ClaimDeadlockError';
}

/** A running writer waiting to realize a file (or, widening, the whole workspace). */
interface ClaimWait {
  path: string;
  cause: WaitCause;
  /** The running tasks it waits for. */
  blockers: string[];
  resolve: () => void;
  reject: (error: Error) => void;
}

interface Holder {
  request: SlotRequest;
  /** The claim as it stands now (realize/shrink/widen change it). */
  paths: 'workspace' | string[];
  /** Files written through path-bound tools. */
  realized: Set<string>;
  widened: boolean;
  /** Set while the writer waits for a claim another running writer holds. */
  wait?: ClaimWait;
}

interface Waiter {
  request: SlotRequest;
  cause: WaitCause;
  grant: (lease: Lease) => void;
}

function isDirectory(path: string): boolean {
  return path.endsWith('/');
}

function normalize(path: string): string {
  const trimmed = path.replace(/^\.\/+/, '').replace(/\/{2,}/g, '/');
  return trimmed === '' || trimmed === '.' || trimmed === './' ? WHOLE_WORKSPACE : trimmed;
}

/** Whether two claimed paths of one checkout collide at start (directory pairs only on realized files). */
function pathsCollide(a: string, b: string): boolean {
  if (a === WHOLE_WORKSPACE || b === WHOLE_WORKSPACE) return true;
  const aDir = isDirectory(a);
  const bDir = isDirectory(b);
  if (aDir && bDir) return false;
  if (aDir) return b.startsWith(a);
  if (bDir) return a.startsWith(b);
  return a === b;
}

/** The first path of `held` that `wanted` collides with, or undefined. */
function collision(
  wanted: 'workspace' | readonly string[],
  held: 'workspace' | readonly string[],
): string | undefined {
  const w = wanted === 'workspace' ? [WHOLE_WORKSPACE] : wanted;
  const h = held === 'workspace' ? [WHOLE_WORKSPACE] : held;
  for (const heldPath of h) if (w.some((path) => pathsCollide(path, heldPath))) return heldPath;
  return undefined;
}

/** What a running writer holds: its claim, the files it realized, and what it waits to realize. */
function heldPaths(holder: Holder): 'workspace' | string[] {
  if (holder.paths === 'workspace' || holder.wait?.path === WHOLE_WORKSPACE) return 'workspace';
  return [...holder.paths, ...holder.realized, ...(holder.wait ? [holder.wait.path] : [])];
}

/**
 * The one scheduler behind `task`, coordinated batches and `fleet` (SPEC 7.3, 8, 10): at most
 * `limits.total` subagents and `limits.writers` writers at once, at most `limits.batch` per batch, and
 * writers whose claims on one checkout collide never run together. Waiting requests queue FIFO and a
 * request never starts ahead of an earlier waiting writer whose claim it collides with (so a queued
 * whole-workspace writer is not starved). Every waiting request carries its cause.
 */
export class SubagentScheduler {
  private readonly holders = new Map<string, Holder>();
  private queue: Waiter[] = [];
  private listeners = new Set<() => void>();
  readonly limits: SchedulerLimits;

  constructor(limits: SchedulerLimits | number) {
    this.limits =
      typeof limits === 'number' ? { total: limits, writers: limits, batch: limits } : { ...limits };
  }

  get runningCount(): number {
    return this.holders.size;
  }

  running(): string[] {
    return [...this.holders.keys()];
  }

  queued(): QueuedEntry[] {
    return this.queue.map((w, index) => ({ taskId: w.request.taskId, position: index + 1, cause: w.cause }));
  }

  /** 1-based queue position, or 0 when the task is not queued. */
  position(taskId: string): number {
    return this.queue.findIndex((w) => w.request.taskId === taskId) + 1;
  }

  /** Why a queued task, or a running writer waiting to realize a claim, waits; undefined when it does not. */
  causeOf(taskId: string): WaitCause | undefined {
    return (
      this.queue.find((w) => w.request.taskId === taskId)?.cause ?? this.holders.get(taskId)?.wait?.cause
    );
  }

  /** Running writers waiting for a claim another running writer holds, with the cause. */
  waitingToWrite(): { taskId: string; cause: WaitCause }[] {
    return [...this.holders.values()].flatMap((h) =>
      h.wait ? [{ taskId: h.request.taskId, cause: h.wait.cause }] : [],
    );
  }

  /**
   * Resolves with a lease once the request may run; rejects if `signal` aborts while it waits, and at
   * once with NestedAcquisitionError when a nested request cannot start immediately.
   */
  acquire(request: SlotRequest, signal?: AbortSignal): Promise<Lease> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const cause = this.blockedBy(request, this.queue);
    if (cause === undefined) return Promise.resolve(this.grant(request));
    if (request.parent !== undefined && this.holders.has(request.parent)) {
      return Promise.reject(
        new NestedAcquisitionError(
          `task ${request.taskId} cannot wait for a slot while its parent ${request.parent} holds one (${cause})`,
        ),
      );
    }
    return new Promise<Lease>((resolve, reject) => {
      const waiter: Waiter = { request, cause, grant: resolve };
      this.queue.push(waiter);
      signal?.addEventListener(
        'abort',
        () => {
          const index = this.queue.indexOf(waiter);
          if (index === -1) return;
          this.queue.splice(index, 1);
          reject(signal.reason);
          this.reschedule();
        },
        { once: true },
      );
      this.changed();
    });
  }

  /**
   * The parent's own write of `paths` in `checkout` (SPEC 10): a momentary reservation, granted at once
   * or refused with the cause; nothing is held afterwards.
   */
  reserveMomentarily(claim: Claim): WaitCause | undefined {
    return this.claimConflict(claim, undefined, []);
  }

  /** Resolves when the scheduler's state satisfies `predicate` (tests wait on state, never on time). */
  waitFor(predicate: (s: SubagentScheduler) => boolean): Promise<void> {
    if (predicate(this)) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (!predicate(this)) return;
        this.listeners.delete(check);
        resolve();
      };
      this.listeners.add(check);
    });
  }

  /** Called after every change of running or queued state. Returns an unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Why `request` cannot start now, given the requests queued ahead of it; undefined when it can. */
  private blockedBy(request: SlotRequest, ahead: readonly Waiter[]): WaitCause | undefined {
    if (request.claim) {
      const conflict = this.claimConflict(request.claim, request.taskId, ahead);
      if (conflict) return conflict;
    }
    const holders = [...this.holders.values()];
    if (request.writer && holders.filter((h) => h.request.writer).length >= this.limits.writers)
      return 'writers';
    if (
      request.batch !== undefined &&
      holders.filter((h) => h.request.batch === request.batch).length >= this.limits.batch
    )
      return 'batch';
    if (this.holders.size >= this.limits.total) return 'slots';
    return undefined;
  }

  private claimConflict(
    claim: Claim,
    self: string | undefined,
    ahead: readonly Waiter[],
  ): WaitCause | undefined {
    const wanted = claim.paths === 'workspace' ? 'workspace' : claim.paths.map(normalize);
    for (const holder of this.holders.values()) {
      const held = holder.request.claim;
      if (!held || held.checkout !== claim.checkout || holder.request.taskId === self) continue;
      const path = collision(wanted, heldPaths(holder));
      if (path !== undefined) return `claim: ${path} held by ${holder.request.taskId}`;
    }
    // FIFO: an earlier waiting writer keeps what it claimed, so a later one cannot overtake it.
    for (const waiter of ahead) {
      const earlier = waiter.request.claim;
      if (!earlier || earlier.checkout !== claim.checkout) continue;
      const path = collision(
        wanted,
        earlier.paths === 'workspace' ? 'workspace' : earlier.paths.map(normalize),
      );
      if (path !== undefined) return `claim: ${path} held by ${waiter.request.taskId}`;
    }
    return undefined;
  }

  private grant(request: SlotRequest): Lease {
    const claimPaths = request.claim?.paths;
    const holder: Holder = {
      request,
      paths: claimPaths === undefined || claimPaths === 'workspace' ? 'workspace' : claimPaths.map(normalize),
      realized: new Set(),
      widened: false,
    };
    this.holders.set(request.taskId, holder);
    this.changed();
    let released = false;
    return {
      taskId: request.taskId,
      release: () => {
        if (released) return;
        released = true;
        this.holders.delete(request.taskId);
        const wait = holder.wait;
        holder.wait = undefined;
        wait?.reject(new Error(`task ${request.taskId} ended while it waited for ${wait.cause}`));
        this.reschedule();
      },
      realize: async (path, signal) => {
        if (released || !request.claim) return;
        await this.claimFor(holder, normalize(path), signal);
      },
      widen: async (signal) => {
        if (released || !request.claim || request.claim.ownCheckout) return;
        holder.widened = true;
        await this.claimFor(holder, WHOLE_WORKSPACE, signal);
      },
      shrink: () => {
        if (released || !request.claim?.shrinkable || holder.widened) return;
        holder.paths = [...holder.realized];
        this.reschedule();
      },
    };
  }

  /**
   * The running writers (other than `self`) whose claims keep `self` from writing `path` (a file, or the
   * whole workspace), with the first path in the way. Against a file, a directory claim holds only what
   * it realized; the whole workspace collides with every claim.
   */
  private blockersOf(self: Holder, path: string): { taskId: string; path: string }[] {
    const checkout = self.request.claim?.checkout;
    const blockers: { taskId: string; path: string }[] = [];
    for (const other of this.holders.values()) {
      if (other === self || other.request.claim?.checkout !== checkout) continue;
      const claimed = other.paths === 'workspace' ? [WHOLE_WORKSPACE] : other.paths;
      const held = [...claimed, ...other.realized];
      const hit =
        path === WHOLE_WORKSPACE
          ? held[0]
          : held.find((p) => p === WHOLE_WORKSPACE || (p === path && !isDirectory(p)));
      if (hit !== undefined) blockers.push({ taskId: other.request.taskId, path: hit });
    }
    return blockers;
  }

  /**
   * Makes `path` part of `self`'s claim: at once when no running writer holds it, else after they end.
   * A wait that would close a cycle of running writers waiting on each other fails at once.
   */
  private claimFor(self: Holder, path: string, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const blockers = this.blockersOf(self, path);
    if (blockers.length === 0) {
      this.take(self, path);
      return Promise.resolve();
    }
    const cause: WaitCause = `claim: ${blockers[0].path} held by ${blockers[0].taskId}`;
    const cycle = this.cycleThrough(
      self.request.taskId,
      blockers.map((b) => b.taskId),
    );
    if (cycle)
      return Promise.reject(new ClaimDeadlockError(this.deadlockMessage(self, path, blockers[0], cycle)));
    return new Promise<void>((resolve, reject) => {
      const wait: ClaimWait = { path, cause, blockers: blockers.map((b) => b.taskId), resolve, reject };
      self.wait = wait;
      signal?.addEventListener(
        'abort',
        () => {
          if (self.wait !== wait) return;
          self.wait = undefined;
          reject(signal.reason);
          this.reschedule();
        },
        { once: true },
      );
      this.changed();
    });
  }

  /** `path` is the holder's now: a realized file, or the whole workspace. */
  private take(holder: Holder, path: string): void {
    if (path === WHOLE_WORKSPACE) holder.paths = 'workspace';
    else holder.realized.add(path);
    this.changed();
  }

  /** The chain of waiting writers from one of `blockers` back to `self`, if there is one. */
  private cycleThrough(self: string, blockers: readonly string[]): string[] | undefined {
    const visit = (taskId: string, chain: string[]): string[] | undefined => {
      if (taskId === self) return chain;
      if (chain.includes(taskId)) return undefined;
      const next = this.holders.get(taskId)?.wait?.blockers ?? [];
      for (const blocker of next) {
        const found = visit(blocker, [...chain, taskId]);
        if (found) return found;
      }
      return undefined;
    };
    for (const blocker of blockers) {
      const found = visit(blocker, []);
      if (found) return found;
    }
    return undefined;
  }

  private deadlockMessage(
    self: Holder,
    path: string,
    first: { taskId: string; path: string },
    cycle: readonly string[],
  ): string {
    const links = [
      `${this.nameOf(self.request.taskId)} waits for ${path} held by ${this.nameOf(first.taskId)}`,
    ];
    for (const taskId of cycle) {
      const wait = this.holders.get(taskId)?.wait;
      if (wait) links.push(`${this.nameOf(taskId)} waits for ${wait.path} (${wait.cause})`);
    }
    return `claim deadlock: ${links.join('; ')}. Neither can go on, so ${this.nameOf(self.request.taskId)} fails.`;
  }

  private nameOf(taskId: string): string {
    return this.holders.get(taskId)?.request.label ?? `task ${taskId}`;
  }

  /** Grants every waiting request that can now run, in queue order, and refreshes the others' causes. */
  private reschedule(): void {
    // Running writers waiting for a claim go first: they already hold a slot.
    for (const holder of this.holders.values()) {
      const wait = holder.wait;
      if (!wait) continue;
      const blockers = this.blockersOf(holder, wait.path);
      if (blockers.length === 0) {
        holder.wait = undefined;
        this.take(holder, wait.path);
        wait.resolve();
      } else {
        wait.blockers = blockers.map((b) => b.taskId);
        wait.cause = `claim: ${blockers[0].path} held by ${blockers[0].taskId}`;
      }
    }
    let progressed = true;
    while (progressed) {
      progressed = false;
      for (let index = 0; index < this.queue.length; index++) {
        const waiter = this.queue[index];
        const cause = this.blockedBy(waiter.request, this.queue.slice(0, index));
        if (cause === undefined) {
          this.queue.splice(index, 1);
          waiter.grant(this.grant(waiter.request));
          progressed = true;
          break;
        }
        waiter.cause = cause;
      }
    }
    this.changed();
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
