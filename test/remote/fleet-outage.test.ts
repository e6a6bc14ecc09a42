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
/** Item b waits this long for a worker (the only one is busy with item a), then fails: c's turn. */
const PICKUP_MS = 8000;

const redisFile = redisForFile();
rootSecretForFile();

const ITEMS = ['a', 'b', 'c'].map((id) => ({
  id,
  agent: 'writer',
  prompt: `write ${id}.txt`,
  write_paths: [`${id}.txt`],
}));

/** Item a commits, then answers well after Redis is back; b and c write and commit their file. */
function fleetScript() {
  let builder = script();
  for (const id of ['a', 'b', 'c'])
    builder = writesAndCommits(builder, SYSTEM, `write ${id}.txt`, `${id}.txt`, `${id}\n`).turn((t) =>
      (id === 'a' ? t.delay(PICKUP_MS + 6000) : t).text(`wrote ${id}.txt`),
    );
  return goFleet(builder, ITEMS);
}

/**
 * One root's three-item fleet (two writers at a time) on one worker: a runs there, b waits in the queue.
 * Redis is killed once a has pushed its commit; b's pickup timeout ends it during the outage, so c is
 * dispatched while Redis is down. Redis comes back after c ended, and a finishes.
 */
async function fleetThroughOutage(fallback: 'local' | 'fail') {
  const server = await scriptedServer(fleetScript());
  const repository = sharedRepository();
  const worker = await startWorker('w-1', redisFile.server.url, server, repository);
  const project = fleetProject(server, redisFile.server.url, repository, {
    system: SYSTEM,
    config: { max_parallel_writers: 2 },
    workers: { fallback, pickup_timeout_ms: PICKUP_MS },
  });
  const root = startCadre(project, [
    '-p',
    'go',
    '--yes',
    '--trust-project',
    '--output-format',
    'stream-json',
  ]);
  await worker.waitForLog(/pushed/);
  await redisFile.server.kill();
  await root.waitForStdout(/lost the connection to Redis/);
  // c ends (run here, or failed) while Redis is still down.
  await root.waitForStdout(/"type":"subagent_end"[^\n]*\n[\s\S]*"type":"subagent_end"/);
  await redisFile.server.restart();
  const exit = await root.exited;
  expect(exit.code, root.stdout()).toBe(0);
  const events = jsonLines(root.stdout());
  const items = new Map(
    events
      .filter((e) => e.type === 'subagent_start')
      .map((e) => [e.taskId, (e.fleet as { item: string }).item] as const),
  );
  const ends = new Map(events.filter((e) => e.type === 'subagent_end').map((e) => [items.get(e.taskId), e]));
  const branches = new Map(
    events.filter((e) => e.type === 'subagent_isolation').map((e) => [items.get(e.taskId), String(e.branch)]),
  );
  const warnings = events.filter((e) => e.type === 'warning').map((e) => String(e.message));
  const ranOn = events.filter((e) => e.type === 'subagent_worker').map((e) => items.get(e.taskId));
  const subject = (item: string) =>
    execFileSync('git', ['log', '-1', '--format=%s', branches.get(item) as string], {
      cwd: project.dir,
      encoding: 'utf8',
    }).trim();
  return { ends, warnings, ranOn, subject };
}

describe('one fleet across a Redis outage', () => {
  it(
    'with fallback "local": the item dispatched while Redis is down runs here; the item on the worker keeps its commit and finishes',
    async () => {
      const run = await fleetThroughOutage('local');
      expect(run.warnings).toContainEqual(
        expect.stringMatching(
          /^lost the connection to Redis at redis:\/\/127\.0\.0\.1:\d+; tasks on workers go on, and their results arrive once it is back; new tasks run locally meanwhile \(fallback: local\)$/,
        ),
      );
      expect(run.warnings).toContainEqual(
        expect.stringMatching(
          /^Redis at redis:\/\/127\.0\.0\.1:\d+ is unreachable: .+; task [0-9a-f]{12} runs locally \(fallback: local\)$/,
        ),
      );
      expect(run.warnings).toContainEqual(expect.stringMatching(/^reconnected to Redis at /));
      expect(run.ranOn).toEqual(['a']);
      expect(run.ends.get('a')).toMatchObject({ status: 'completed' });
      expect(run.subject('a')).toBe('Add a.txt');
      expect(run.ends.get('b')).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(
          new RegExp(
            `^no worker took the job within ${PICKUP_MS} ms \\(workers\\.pickup_timeout_ms\\); Redis at redis://127\\.0\\.0\\.1:\\d+ is unreachable`,
          ),
        ),
      });
      expect(run.ends.get('c')).toMatchObject({ status: 'completed' });
      expect(run.subject('c')).toBe('Add c.txt');
    },
    TIMEOUT,
  );

  it(
    'without fallback: the item dispatched while Redis is down fails with the reason; the item on the worker keeps its commit and finishes',
    async () => {
      const run = await fleetThroughOutage('fail');
      expect(run.warnings).toContainEqual(
        expect.stringMatching(
          /^lost the connection to Redis at redis:\/\/127\.0\.0\.1:\d+; tasks on workers go on, and their results arrive once it is back; new tasks fail meanwhile \(set workers\.fallback "local" to run them here\)$/,
        ),
      );
      expect(run.ranOn).toEqual(['a']);
      expect(run.ends.get('a')).toMatchObject({ status: 'completed' });
      expect(run.subject('a')).toBe('Add a.txt');
      expect(run.ends.get('c')).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(
          /^Redis at redis:\/\/127\.0\.0\.1:\d+ is unreachable: .+; the task was not run$/,
        ),
      });
    },
    TIMEOUT,
  );
});
