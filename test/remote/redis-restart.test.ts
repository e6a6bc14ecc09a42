import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { jsonLines, startCadre } from '../e2e/harness.js';
import { script, scriptedServer } from '../support/llm-server.js';
import {
  fleetProject,
  goFleet,
  redisForFile,
  rootSecretForFile,
  sharedRepository,
  startWorker,
  writesAndCommits,
} from './harness.js';

const TIMEOUT = 180_000;
const SYSTEM = 'You are a fleet writer.';

const redisFile = redisForFile();
rootSecretForFile();

const ITEMS = [1, 2, 3, 4].map((i) => ({
  id: `w${i}`,
  agent: 'writer',
  prompt: `write f${i}.txt`,
  write_paths: [`f${i}.txt`],
}));

/** Each writer commits its file, then takes `lastTurnMs` over its answer. */
function fleetScript(lastTurnMs: number) {
  let builder = script();
  for (let i = 1; i <= 4; i++)
    builder = writesAndCommits(builder, SYSTEM, `write f${i}.txt`, `f${i}.txt`, `${i}\n`)
      // Long enough that the first two are still running when Redis goes down.
      .turn((t) => t.delay(lastTurnMs).text(`wrote f${i}.txt`));
  return goFleet(builder, ITEMS);
}

/** Two workers and a root `cadre -p go` running the four-item fleet on them through the queue. */
async function fleetOnTwoWorkers(server: Awaited<ReturnType<typeof scriptedServer>>, names: string[]) {
  const repository = sharedRepository();
  const workers = await Promise.all(
    names.map((name) =>
      startWorker(name, redisFile.server.url, server, repository, {
        config: { workers: { repository, stalled_after_ms: 15_000 } },
      }),
    ),
  );
  const project = fleetProject(server, redisFile.server.url, repository, {
    system: SYSTEM,
    config: { max_parallel_writers: 4 },
    workers: { stalled_after_ms: 15_000 },
  });
  const root = startCadre(project, [
    '-p',
    'go',
    '--yes',
    '--trust-project',
    '--output-format',
    'stream-json',
  ]);
  return { workers, project, root };
}

describe('one fleet run loses Redis mid-run', () => {
  it(
    'Redis killed while two items run and two wait in the queue, restarted on its port with its data: the run says so and every item completes with its commit',
    async () => {
      const server = await scriptedServer(fleetScript(2500));
      const { workers, project, root } = await fleetOnTwoWorkers(server, ['w-x', 'w-y']);
      // Both workers have pushed a commit of their first item; the other two items wait in the queue.
      await Promise.all(workers.map((w) => w.waitForLog(/pushed/)));
      await redisFile.server.kill();
      await root.waitForStdout(/lost the connection to Redis/);
      await redisFile.server.restart();
      const exit = await root.exited;
      const events = jsonLines(root.stdout());
      expect(exit.code, root.stdout()).toBe(0);
      const warnings = events.filter((e) => e.type === 'warning').map((e) => String(e.message));
      expect(warnings).toContainEqual(
        expect.stringMatching(
          /^lost the connection to Redis at redis:\/\/127\.0\.0\.1:\d+; tasks on workers go on, and their results arrive once it is back; new tasks fail meanwhile/,
        ),
      );
      expect(warnings).toContainEqual(expect.stringMatching(/^reconnected to Redis at /));
      const ends = events.filter((e) => e.type === 'subagent_end');
      expect(ends.map((e) => e.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
      const ran = events.filter((e) => e.type === 'subagent_worker').map((e) => e.worker);
      expect(ran).toHaveLength(4);
      expect(new Set(ran)).toEqual(new Set(['w-x', 'w-y']));
      // Nothing a worker committed is lost: every branch is home with its commit.
      const branches = events.filter((e) => e.type === 'subagent_isolation').map((e) => String(e.branch));
      const subjects = branches.map((branch) =>
        execFileSync('git', ['log', '-1', '--format=%s', branch], {
          cwd: project.dir,
          encoding: 'utf8',
        }).trim(),
      );
      expect(subjects.sort()).toEqual(['Add f1.txt', 'Add f2.txt', 'Add f3.txt', 'Add f4.txt']);
    },
    TIMEOUT,
  );

  it(
    'Redis restarted without its data: each item says Redis lost its job, and its pushed branch keeps what it committed',
    async () => {
      // The running items answer well after the root is back and has found their jobs gone.
      const server = await scriptedServer(fleetScript(10_000));
      const { workers, project, root } = await fleetOnTwoWorkers(server, ['w-p', 'w-q']);
      await Promise.all(workers.map((w) => w.waitForLog(/pushed/)));
      await redisFile.server.kill();
      await root.waitForStdout(/lost the connection to Redis/);
      await redisFile.server.restart({ empty: true });
      const exit = await root.exited;
      expect(exit.code, root.stdout()).toBe(0);
      const events = jsonLines(root.stdout());
      const ends = events.filter((e) => e.type === 'subagent_end');
      expect(ends).toHaveLength(4);
      const branches = new Map(
        events.filter((e) => e.type === 'subagent_isolation').map((e) => [e.taskId, String(e.branch)]),
      );
      // The two running items had pushed: each names its branch, which holds its commit.
      const salvaged = ends.filter((e) => /keeps what the worker committed$/.test(String(e.error)));
      expect(salvaged).toHaveLength(2);
      for (const end of salvaged) {
        const branch = branches.get(end.taskId) as string;
        expect(end).toMatchObject({
          status: 'failed',
          error: `Redis lost the job when it restarted (run Redis with persistence, see README); branch ${branch} keeps what the worker committed`,
        });
        expect(
          execFileSync('git', ['log', '-1', '--format=%s', branch], { cwd: project.dir, encoding: 'utf8' }),
        ).toMatch(/^Add f\d\.txt/);
      }
      // The two that waited in the queue were lost before any worker ran them.
      for (const end of ends.filter((e) => !salvaged.includes(e)))
        expect(end).toMatchObject({
          status: 'failed',
          error:
            'Redis lost the job when it restarted (run Redis with persistence, see README); nothing was committed',
        });
    },
    TIMEOUT,
  );
});
