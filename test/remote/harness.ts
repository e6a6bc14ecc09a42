import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, onTestFinished } from 'vitest';
import type { ScriptedServer } from '../../src/provider/scripted/server.js';
import { cadreIn, providerFor, servedProject } from '../e2e/harness.js';
import { REPO_ROOT, type TestProject } from '../support/cli.js';
import type { ScriptBuilder } from '../support/llm-server.js';
import { type RedisServer, startRedis } from '../support/redis.js';

export const SECRET = 'test-worker-secret';

/** The root's copy of the signing secret for the file's tests (startCadre passes this process's environment on). */
export function rootSecretForFile(): void {
  beforeAll(() => {
    process.env.CADRE_WORKER_SECRET = SECRET;
  });
  afterAll(() => {
    delete process.env.CADRE_WORKER_SECRET;
  });
}

/** One real Redis for the test file: started before its tests, stopped after them. */
export function redisForFile(): { readonly server: RedisServer } {
  const holder: { server?: RedisServer } = {};
  beforeAll(async () => {
    holder.server = await startRedis();
  });
  afterAll(async () => {
    await holder.server?.stop();
  });
  return {
    get server() {
      if (!holder.server) throw new Error('Redis is started before the tests');
      return holder.server;
    },
  };
}

/**
 * BullMQ's lock and stall check: long enough that a worker on a loaded CI machine keeps its lock, short
 * enough that a killed worker's job comes back in seconds (the kill test shortens it further).
 */
export const FAST_WORKERS = { stalled_after_ms: 8000, pickup_timeout_ms: 60_000 };

/** A bare repository on this machine: the repository root and workers share. */
export function sharedRepository(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cadre-shared-'));
  execFileSync('git', ['init', '-q', '--bare', dir]);
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The root's `workers` block for a queue backend on `redis`. */
export function queueConfig(redis: string, repository: string, extra: Record<string, unknown> = {}) {
  return { workers: { backend: 'queue', redis, repository, ...FAST_WORKERS, ...extra } };
}

export interface RunningWorker {
  name: string;
  child: ChildProcess;
  log(): string;
  /** Resolves once its log matches `pattern`. */
  waitForLog(pattern: RegExp): Promise<void>;
  exited: Promise<number | null>;
}

/**
 * `cadre worker --redis URL --name NAME` with its own global config (the scripted model server as
 * provider `fake`, the shared repository) and its own cache dir; killed when the test ends.
 */
export async function startWorker(
  name: string,
  redis: string,
  server: ScriptedServer,
  repository: string,
  options: { config?: Record<string, unknown>; secret?: string; concurrency?: number } = {},
): Promise<RunningWorker> {
  const home = mkdtempSync(join(tmpdir(), `cadre-worker-${name}-`));
  mkdirSync(join(home, 'config'));
  writeFileSync(
    join(home, 'config', 'config.json'),
    JSON.stringify({
      providers: { fake: providerFor(server, 'openai') },
      provider: 'fake',
      workers: { repository, ...FAST_WORKERS },
      ...options.config,
    }),
  );
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NO_COLOR: '1',
    CADRE_CONFIG_DIR: join(home, 'config'),
    CADRE_WORKER_SECRET: options.secret ?? SECRET,
    CADRE_RETRY_BASE_MS: '5',
  };
  delete env.ANTHROPIC_API_KEY;
  delete env.OPENAI_API_KEY;
  const args = [join(REPO_ROOT, 'bin', 'cadre.js'), 'worker', '--redis', redis, '--name', name];
  args.push('--dir', join(home, 'cache'), '--concurrency', String(options.concurrency ?? 1));
  const child = spawn(process.execPath, args, { cwd: home, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const listeners = new Set<() => void>();
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    log += chunk;
    for (const listener of listeners) listener();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitForLog = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!pattern.test(log)) return;
        listeners.delete(check);
        resolve();
      };
      listeners.add(check);
      void exited.then(() => {
        if (!pattern.test(log)) reject(new Error(`worker ${name} exited before logging ${pattern}:\n${log}`));
      });
      check();
    });
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(home, { recursive: true, force: true });
  });
  await waitForLog(/ready/);
  return { name, child, log: () => log, waitForLog, exited };
}

/** The root `cadre -p go` of a queue-backed project, trusted (its `workers` block is a wall key), as JSON lines. */
export function runRoot(project: TestProject, timeoutMs: number) {
  return cadreIn(project, ['-p', 'go', '--yes', '--trust-project', '--output-format', 'stream-json'], {
    timeoutMs,
    env: { CADRE_WORKER_SECRET: SECRET },
  });
}

/** The `writer` profile: read-write, with `system` as its prompt. */
export function writerProfile(system: string): string {
  return `---\ndescription: writes\nsubagent_tools: readwrite\n---\n${system}\n`;
}

/**
 * A git project with the `writer` profile (prompt `system`) whose fleets are coordinated, on the queue
 * backend of `redis`; `config` adds to its config, `workers` to its workers block.
 */
export function fleetProject(
  server: ScriptedServer,
  redis: string,
  repository: string,
  options: { system: string; config?: Record<string, unknown>; workers?: Record<string, unknown> },
): TestProject {
  return servedProject(server, {
    git: true,
    files: { 'README.md': 'hi\n', '.cadre/agents/writer.md': writerProfile(options.system) },
    config: {
      subagent_dispatch_strategy: 'optional',
      ...options.config,
      ...queueConfig(redis, repository, options.workers),
    },
  });
}

/** The main agent's side of a fleet script: `go` dispatches `tasks`, and the reconciliation is answered. */
export function goFleet(builder: ScriptBuilder, tasks: readonly unknown[]): ScriptBuilder {
  return builder
    .rule({ last_user: 'Coordinator batch is complete' })
    .text('Reconciled.')
    .rule({ first_user: 'go' })
    .turn((t) => t.tool('fleet', { tasks }))
    .text('fleet done');
}

const COMMIT = 'git -c user.name=w -c user.email=w@x commit -qm';

/** A writer (prompt `system`) given `prompt`: writes `path` with `content`, then commits it as "Add <path>". */
export function writesAndCommits(
  builder: ScriptBuilder,
  system: string,
  prompt: string,
  path: string,
  content: string,
): ScriptBuilder {
  return builder
    .rule({ system, first_user: prompt })
    .turn((t) => t.tool('write', { path, content }))
    .turn((t) => t.tool('bash', { command: `git add ${path} && ${COMMIT} "Add ${path}"` }));
}
