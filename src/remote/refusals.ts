/**
 * A job one worker refuses is offered to the other live workers (issue 18): it fails only once every
 * live worker refused it, with each worker's reason. Refusals are kept in Redis per job, by worker name.
 */

/** The Redis hash of a job's refusals: worker name → reason. */
export function refusalsKey(jobId: string): string {
  return `cadre:job:${jobId}:refusals`;
}

/** A refused job waits this long before it is offered again, so a busy worker that may take it gets a turn. */
export const REOFFER_DELAY_MS = 300;

/** The worker names of BullMQ client names `<prefix>:<queue>:w:<name>` (CLIENT LIST), each once. */
export function liveWorkerNames(clientNames: readonly (string | undefined)[]): string[] {
  const names = new Set<string>();
  for (const raw of clientNames) {
    const at = raw?.indexOf(':w:') ?? -1;
    if (raw && at >= 0) names.add(raw.slice(at + 3));
  }
  return [...names];
}

/**
 * What to do with a job after a refusal: offer it again while a live worker has not refused it yet,
 * else fail it with every refusal (a worker gone since it refused included), in worker-name order.
 */
export function refusalVerdict(
  refusals: Readonly<Record<string, string>>,
  live: readonly string[],
): { reoffer: true } | { failed: string } {
  if (live.some((name) => !(name in refusals))) return { reoffer: true };
  const names = Object.keys(refusals).sort();
  return { failed: names.map((name) => `worker ${name} refused the job: ${refusals[name]}`).join('; ') };
}
