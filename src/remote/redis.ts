import type { Redis, RedisOptions } from 'ioredis';

/**
 * The Redis side of the queue backend (issue 18): BullMQ and ioredis are loaded here, on first use only,
 * so a run that never sends a child to a worker never loads them.
 */
export async function loadQueueLibraries() {
  const [bullmq, ioredis] = await Promise.all([import('bullmq'), import('ioredis')]);
  // ioredis is CommonJS: bundled, its named exports sit on the default export.
  const Redis = ioredis.Redis ?? (ioredis.default as unknown as { Redis: typeof ioredis.Redis }).Redis;
  return { bullmq, Redis };
}

export type QueueLibraries = Awaited<ReturnType<typeof loadQueueLibraries>>;

/** The BullMQ queue every root and worker of one Redis shares. */
export const QUEUE_NAME = 'cadre-subagents';

/** Worker → root: progress, asks and the result of one job, as a Redis stream. */
export function eventsKey(jobId: string): string {
  return `cadre:job:${jobId}:events`;
}

/** Root → worker: answers to asks and cancellation (the job's reply channel). */
export function repliesKey(jobId: string): string {
  return `cadre:job:${jobId}:replies`;
}

/** Streams outlive a lost root or worker by this long, then Redis drops them. */
export const STREAM_TTL_SECONDS = 24 * 60 * 60;

/** `redis://user:pass@host` without the password, for messages. */
export function describeRedis(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = parsed.password ? '***' : '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

/**
 * A connection. `blocking` ones (BullMQ workers, XREAD BLOCK) wait out an outage; the others fail a
 * command at once while Redis is unreachable, so a root can report it and fall back.
 */
export function connect(libs: QueueLibraries, url: string, blocking: boolean): Redis {
  const options: RedisOptions = {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: blocking ? null : 1,
    enableOfflineQueue: blocking,
    // Reconnect forever, at most once a second: Redis restarting must not end a run.
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  };
  const client = new libs.Redis(url, options);
  // ioredis reports every failed reconnect as an 'error'; the owner reports outages once, itself.
  client.on('error', (error: Error) => lastErrors.set(client, error.message));
  return client;
}

const lastErrors = new WeakMap<Redis, string>();

/** Connects or throws with the reason (unreachable, refused, bad URL). */
export async function ready(client: Redis): Promise<void> {
  if (client.status === 'ready') return;
  try {
    if (client.status === 'wait') await client.connect();
    else
      await new Promise<void>((resolve, reject) => {
        client.once('ready', resolve);
        client.once('end', () => reject(new Error('the connection closed')));
      });
  } catch (error) {
    throw new Error(lastErrors.get(client) ?? (error as Error).message);
  }
}

/** One entry of a job stream: a JSON message in field `m`. */
export function parseEntries(entries: [string, string[]][]): { id: string; message: unknown }[] {
  return entries.map(([id, fields]) => {
    const at = fields.indexOf('m');
    let message: unknown;
    try {
      message = at >= 0 ? JSON.parse(fields[at + 1] ?? 'null') : null;
    } catch {
      message = null;
    }
    return { id, message };
  });
}

/** Appends a message to a job stream (and keeps the stream from living forever). */
export async function append(client: Redis, key: string, message: unknown): Promise<void> {
  await client.multi().xadd(key, '*', 'm', JSON.stringify(message)).expire(key, STREAM_TTL_SECONDS).exec();
}
