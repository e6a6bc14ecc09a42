/** Why a dispatch is waiting: the UI and tests read it (SPEC 10). */
export type WaitCause = 'slots';

export interface QueuedEntry {
  taskId: string;
  cause: WaitCause;
}

export type Release = () => void;

interface Waiter {
  taskId: string;
  grant: (release: Release) => void;
  fail: (reason: unknown) => void;
}

/**
 * At most `limit` subagents run at once; further dispatches queue FIFO instead of failing (SPEC 7.3).
 * Cancelling a queued dispatch removes it from the queue.
 */
export class SubagentScheduler {
  private running = new Set<string>();
  private queue: Waiter[] = [];
  private listeners = new Set<() => void>();

  constructor(private readonly limit: number) {}

  get runningCount(): number {
    return this.running.size;
  }

  queued(): QueuedEntry[] {
    return this.queue.map((w) => ({ taskId: w.taskId, cause: 'slots' }));
  }

  /** 1-based queue position, or 0 when the task is not queued. */
  position(taskId: string): number {
    return this.queue.findIndex((w) => w.taskId === taskId) + 1;
  }

  /** Resolves with a release function once a slot is free; rejects if `signal` aborts while queued. */
  acquire(taskId: string, signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.running.size < this.limit && this.queue.length === 0) return Promise.resolve(this.grant(taskId));
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = { taskId, grant: resolve, fail: reject };
      this.queue.push(waiter);
      signal?.addEventListener(
        'abort',
        () => {
          const index = this.queue.indexOf(waiter);
          if (index === -1) return;
          this.queue.splice(index, 1);
          reject(signal.reason);
          this.changed();
        },
        { once: true },
      );
      this.changed();
    });
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

  private grant(taskId: string): Release {
    this.running.add(taskId);
    this.changed();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running.delete(taskId);
      const next = this.queue.shift();
      if (next) next.grant(this.grant(next.taskId));
      else this.changed();
    };
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
