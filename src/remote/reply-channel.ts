import type { Redis } from 'ioredis';
import type { AskAnswer, PermissionAsk } from '../permission/types.js';
import { ClaimDeadlockError, type Lease } from '../subagent/scheduler.js';
import type { RootMessage, WorkerMessage } from './messages.js';
import { parseEntries } from './redis.js';

/**
 * The job's reply channel as the worker reads it: answers to its asks, the root's claim decisions, and a
 * cancel. The worker never decides an ask or a claim itself: no answer in time is a deny with the reason.
 */
export class ReplyChannel {
  private readonly waiting = new Map<string, (answer: AskAnswer) => void>();
  private readonly claims = new Map<string, (decision: { error?: string; deadlock?: boolean }) => void>();
  private claimCount = 0;
  private stopped = false;
  private baseArrived!: { resolve(): void; reject(error: Error): void };
  /**
   * Settles once the root says the job's base ref is in the shared repository (an `announced` base);
   * rejects when the job is cancelled or ends first.
   */
  readonly based = new Promise<void>((resolve, reject) => {
    this.baseArrived = { resolve, reject };
  });

  constructor(
    private readonly client: Redis,
    private readonly key: string,
    private readonly onCancel: (reason: string) => void,
  ) {
    this.based.catch(() => undefined);
  }

  start(): void {
    void this.read();
  }

  stop(): void {
    this.stopped = true;
    this.client.disconnect();
    this.baseArrived.reject(new Error('the task ended before its base was pushed'));
    for (const settle of this.waiting.values())
      settle({ kind: 'deny_feedback', feedback: 'the task ended before the root answered' });
    for (const settle of this.claims.values()) settle({ error: 'the task ended before the root answered' });
  }

  private async read(): Promise<void> {
    let last = '0';
    while (!this.stopped) {
      let reply: [string, [string, string[]][]][] | null;
      try {
        reply = (await this.client.xread('BLOCK', 5000, 'STREAMS', this.key, last)) as typeof reply;
      } catch {
        if (this.stopped) return;
        continue;
      }
      for (const [, entries] of reply ?? [])
        for (const { id, message } of parseEntries(entries)) {
          last = id;
          const m = message as RootMessage | null;
          if (m?.k === 'answer') this.waiting.get(m.askId)?.(m.answer);
          else if (m?.k === 'claimed') this.claims.get(m.id)?.(m);
          else if (m?.k === 'base') this.baseArrived.resolve();
          else if (m?.k === 'cancel') {
            this.baseArrived.reject(new Error(m.reason));
            this.onCancel(m.reason);
          }
        }
    }
  }

  /** Sends `request` home and waits for its answer: a deny with the reason after `timeoutMs`. */
  async ask(
    request: PermissionAsk,
    signal: AbortSignal,
    timeoutMs: number,
    send: (message: WorkerMessage) => Promise<void>,
  ): Promise<AskAnswer> {
    const askId = request.id;
    return new Promise<AskAnswer>((resolve) => {
      const timer = setTimeout(() => {
        const feedback = `the root did not answer within ${describeMs(timeoutMs)} (workers.ask_timeout_ms), so it is denied`;
        settle({ kind: 'deny_feedback', feedback });
        // The root's question is withdrawn: an answer now would reach no one.
        void send({ k: 'ask_closed', askId, reason: feedback });
      }, timeoutMs);
      const onAbort = () =>
        settle({ kind: 'deny_feedback', feedback: 'the task was stopped before anyone answered' });
      const settle = (answer: AskAnswer) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.waiting.delete(askId);
        resolve(answer);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(askId, settle);
      void send({ k: 'ask', ask: request });
    });
  }

  /**
   * The child's claim as the root's scheduler holds it (SPEC 10): the lease the child's tools see here
   * asks the root before each write and waits for its decision, so a remote writer waits, widens, shrinks
   * and deadlocks exactly as a local one, with the same causes shown at the root.
   */
  lease(taskId: string, send: (message: WorkerMessage) => Promise<void>): Lease {
    const decide = (op: 'realize' | 'widen', path: string | undefined, signal?: AbortSignal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const id = String(++this.claimCount);
        const onAbort = () => {
          this.claims.delete(id);
          reject(signal?.reason);
        };
        this.claims.set(id, (decision) => {
          this.claims.delete(id);
          signal?.removeEventListener('abort', onAbort);
          if (decision.error === undefined) resolve();
          else reject(decision.deadlock ? new ClaimDeadlockError(decision.error) : new Error(decision.error));
        });
        signal?.addEventListener('abort', onAbort, { once: true });
        void send({ k: 'claim', id, op, path });
      });
    return {
      taskId,
      // The root releases the claim when the task ends there.
      release: () => undefined,
      realize: (path, signal) => decide('realize', path, signal),
      widen: (signal) => decide('widen', undefined, signal),
      shrink: () => void send({ k: 'claim', id: String(++this.claimCount), op: 'shrink' }),
    };
  }
}

/** `90 s`, `10 minutes`: a timeout as a person reads it. */
function describeMs(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} minute${ms === 60_000 ? '' : 's'}`;
  return `${Number((ms / 1000).toFixed(1))} s`;
}
