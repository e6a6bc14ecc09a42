/** Waiting for the queue to be quiet ends after this long at most (a push or an enqueue that hangs). */
const QUIET_WAIT_MS = 2000;

/**
 * The tasks admitted but not yet on the queue. Bringing a finished task home (a fetch, its worktree
 * settled: git processes, whose start blocks this process a moment each) waits until none is, so a slot
 * that frees up goes to the next task at once and the work comes home right after.
 */
export class Dispatches {
  private pending = 0;
  private waiters: (() => void)[] = [];

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

  /** Resolves once no admitted task is waiting to be enqueued (or after QUIET_WAIT_MS). */
  async quiet(): Promise<void> {
    // The next task is admitted in the same turn a slot frees up: its dispatch has begun by the next one.
    await new Promise<void>((resolve) => setImmediate(resolve));
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
