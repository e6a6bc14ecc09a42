import type { LoopResult } from '../agent/loop.js';
import { queueSettings } from '../remote/settings.js';
import { type ChildRun, runChildLoop } from './child-loop.js';
import type { SubagentHost } from './host.js';
import type { ClaimDeadlockError, Lease } from './scheduler.js';
import type { PreparedWriter } from './writer.js';

/**
 * Where an admitted child runs (issue 18). The scheduler above decides what may run and holds every
 * claim; a backend only runs the child in the checkout it was prepared and answers with its loop's
 * result, reporting progress through the host as it happens. Nothing above this seam knows which ran it.
 */
export interface ChildBackend {
  run(
    child: ChildRun,
    prepared: PreparedWriter,
    signal: AbortSignal,
    lease?: Lease,
    onDeadlock?: (error: ClaimDeadlockError) => void,
  ): Promise<LoopResult>;
  /** The session ends: what the backend holds between tasks is released. */
  close?(): Promise<void>;
}

/** Today's in-process runner: the default, nothing to install. */
export function localBackend(host: SubagentHost): ChildBackend {
  return {
    run: (child, prepared, signal, lease, onDeadlock) =>
      runChildLoop(host, child, prepared, signal, lease, onDeadlock),
  };
}

/**
 * The backend the config asks for. `workers.backend: "queue"` loads the Redis queue and its client
 * libraries and connects at once, while the main agent's first turn runs, so the first dispatch waits
 * for neither.
 */
export function childBackend(host: SubagentHost): ChildBackend {
  const local = localBackend(host);
  if (host.config.workers?.backend !== 'queue') return local;
  // Checked now: a half-configured queue is a configuration error at start, not a failure of every task.
  const settings = queueSettings(host.config, host.env, 'root');
  // The client libraries (the bulk of the loading) start at once, beside the backend's own module.
  import('../remote/redis.js').then((m) => m.loadQueueLibraries()).catch(() => undefined);
  const queue = import('../remote/queue-backend.js').then((m) => m.queueBackend(host, local, settings));
  // A failed load is reported by the first dispatch, which awaits it.
  queue.catch(() => undefined);
  return {
    run: async (child, prepared, signal, lease, onDeadlock) =>
      (await queue).run(child, prepared, signal, lease, onDeadlock),
    close: async () => (await queue.catch(() => undefined))?.close?.(),
  };
}
