import { ConfigError } from '../config/load.js';
import type { Config } from '../config/schema.js';

/** The `workers` block as the queue backend and `cadre worker` use it, with its defaults (issue 18). */
export interface QueueSettings {
  redis: string;
  repository?: string;
  secretEnv: string;
  secret: string;
  stalledAfterMs: number;
  pickupTimeoutMs: number;
  askTimeoutMs: number;
  fallback: 'local' | 'fail';
}

export const DEFAULT_SECRET_ENV = 'CADRE_WORKER_SECRET';

/**
 * Checks the block where it is read, so a half-configured queue is a configuration error at start (exit 2),
 * not a failure of every task. `redisOverride` is a worker's `--redis`.
 */
export function queueSettings(
  config: Config,
  env: NodeJS.ProcessEnv,
  role: 'root' | 'worker',
  redisOverride?: string,
): QueueSettings {
  const workers = config.workers ?? {};
  const redis = redisOverride ?? workers.redis;
  const where = role === 'root' ? 'workers.backend "queue" needs' : 'cadre worker needs';
  if (!redis)
    throw new ConfigError(
      `${where} workers.redis (redis://host:port)${role === 'worker' ? ' or --redis' : ''}`,
    );
  if (!/^rediss?:\/\//.test(redis))
    throw new ConfigError(`workers.redis "${redis}" is not a redis:// or rediss:// URL`);
  if (role === 'root' && !workers.repository)
    throw new ConfigError(`${where} workers.repository: the git URL of the repository workers share`);
  const secretEnv = workers.secret_env ?? DEFAULT_SECRET_ENV;
  const secret = env[secretEnv];
  if (!secret)
    throw new ConfigError(
      `${where} the job-signing secret in $${secretEnv} (workers.secret_env), the same on the root and every worker`,
    );
  return {
    redis,
    repository: workers.repository,
    secretEnv,
    secret,
    stalledAfterMs: workers.stalled_after_ms ?? 30_000,
    pickupTimeoutMs: workers.pickup_timeout_ms ?? 120_000,
    askTimeoutMs: workers.ask_timeout_ms ?? 600_000,
    fallback: workers.fallback ?? 'fail',
  };
}
