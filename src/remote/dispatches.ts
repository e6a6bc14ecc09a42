/** Waiting for the queue to be quiet ends after this long at most (a push or an enqueue that hangs). */
const QUIET_WAIT_MS = 2000;

/**
 * Tasks ending this close together come home together, once none has ended for this long: a fleet's
 * items end within moments of each other, and each one's slot goes to the next item before any of their
 * work is brought home.
 */
export const HOME_WINDOW_MS = 150;
/** A steady stream of endings holds the first one's work back at most this long. */
const HOME_BATCH_MAX_MS = 1000;

/**
 * The tasks admitted but not yet on the queue, and the finished tasks waiting to come home. Bringing
 * a finished task home (a fetch, its worktree settled: git processes, whose start stalls this process a
 * moment each) waits for the window its ending opened and then until no dispatch is pending, so the
 * slots that free up go to the next tasks at once and the work comes home right after.
 */
export class Dispatches {
  private pending = 0;
  private waiters: (() => void)[] = [];
  private batch?: { opened: number; timer?: NodeJS.Timeout; done: Promise<void>; close: () => void };

  constructor(private readonly windowMs = HOME_WINDOW_MS) {}

  begin(): () => void {
    this.pending++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.pending--;
      if (this.pending > 0) return;
      for (const waiter of this.waiters.splice(0)) waiter();
    };
  }

  /**
   * Resolves when a finished task may come home: no task has ended for the window (or the batch its
   * ending joined is HOME_BATCH_MAX_MS old), and no admitted task is waiting to be enqueued (or
   * QUIET_WAIT_MS passed since).
   */
  async quiet(): Promise<void> {
    if (!this.batch) {
      let close!: () => void;
      const done = new Promise<void>((resolve) => {
        close = resolve;
      });
      this.batch = { opened: Date.now(), done, close };
    }
    const batch = this.batch;
    clearTimeout(batch.timer);
    const wait = Math.min(this.windowMs, batch.opened + HOME_BATCH_MAX_MS - Date.now());
    batch.timer = setTimeout(
      () => {
        if (this.batch === batch) this.batch = undefined;
        batch.close();
      },
      Math.max(0, wait),
    );
    await batch.done;
    if (this.pending === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, QUIET_WAIT_MS);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
