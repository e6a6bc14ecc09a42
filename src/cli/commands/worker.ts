import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../config/load.js';
import { describeRedis } from '../../remote/redis.js';
import { queueSettings } from '../../remote/settings.js';
import { CadreWorker } from '../../remote/worker.js';
import { cadreCacheDir } from '../../util/config-dir.js';

export interface WorkerCommandOptions {
  redis?: string;
  concurrency?: number;
  name?: string;
  dir?: string;
  cwd?: string;
}

/** Where a worker keeps its cache of the shared repository, unless `--dir` says otherwise. */
function defaultDir(env: NodeJS.ProcessEnv, name: string): string {
  return join(cadreCacheDir(env), 'worker', name);
}

/** `cadre worker` (issue 18): runs until SIGINT/SIGTERM, then lets its running jobs finish. */
export async function runWorkerCommand(options: WorkerCommandOptions): Promise<number> {
  const env = process.env;
  const loaded = loadConfig(resolve(options.cwd ?? process.cwd()), env);
  const settings = queueSettings(loaded.config, env, 'worker', options.redis);
  const name = options.name ?? `${hostname()}-${process.pid}`;
  const log = (line: string) => process.stderr.write(`cadre worker: ${new Date().toISOString()} ${line}\n`);
  const worker = new CadreWorker({
    name,
    redis: settings.redis,
    concurrency: options.concurrency ?? 1,
    dir: resolve(options.dir ?? defaultDir(env, name)),
    loaded,
    env,
    secret: settings.secret,
    stalledAfterMs: settings.stalledAfterMs,
    log,
  });
  // Listened for before it says it is ready: a stop asked for right then is not the default kill.
  const stopped = new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  try {
    await worker.start();
  } catch (error) {
    log(`cannot start against Redis at ${describeRedis(settings.redis)}: ${(error as Error).message}`);
    await worker.close().catch(() => undefined);
    return 1;
  }
  await stopped;
  log('stopping: waiting for running jobs to finish');
  await worker.close();
  return 0;
}
