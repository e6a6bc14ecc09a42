import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { signJob } from '../../src/remote/job.js';
import { QUEUE_NAME } from '../../src/remote/redis.js';
import { cadreIn, jsonLines, servedProject } from '../e2e/harness.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { queueConfig, redisForFile, SECRET, sharedRepository, startWorker } from './harness.js';

const TIMEOUT = 150_000;
const WRITER = '---\ndescription: writes\nsubagent_tools: readwrite\n---\nYou are a writer.\n';
const COMMIT = 'git -c user.name=w -c user.email=w@x commit -qm';

const redisFile = redisForFile();

function project(server: Parameters<typeof servedProject>[0], config: Record<string, unknown>) {
  return servedProject(server, {
    git: true,
    files: { 'README.md': 'hi\n', '.cadre/agents/writer.md': WRITER },
    config,
  });
}

describe('queue faults and refusals', () => {
  it(
    'a job without a valid signature is refused by every worker, and a root with the wrong secret fails its task with the reason',
    async () => {
      const server = await scriptedServer(
        script()
          .rule({ system: 'You are a writer.' })
          .text('never runs')
          .rule({ first_user: 'go' })
          .turn((t) => t.tool('task', { agent: 'writer', prompt: 'write something' }))
          .text('done'),
      );
      const repository = sharedRepository();
      const workers = await Promise.all(
        ['w-1', 'w-2'].map((name) => startWorker(name, redisFile.server.url, server, repository)),
      );
      const { Queue, QueueEvents } = await import('bullmq');
      const connection = { host: '127.0.0.1', port: redisFile.server.port };
      const queue = new Queue(QUEUE_NAME, { connection });
      const events = new QueueEvents(QUEUE_NAME, { connection });
      await events.waitUntilReady();
      try {
        const signed = signJob(
          {
            id: 'forged-1',
            taskId: 'forged',
            expiresAt: Date.now() + 60_000,
            version: '0.1.0',
            repository,
            sandbox: { required: 'none', network: true, readOnly: false },
            tier: 'toolless',
            tools: [],
            mcp: { grant: undefined, tier: 'toolless', readOnly: false },
            system: 'x',
            prompt: 'x',
            maxTurns: 1,
            turnCapLabel: 'x',
            timeoutSecs: 30,
            askTimeoutMs: 1000,
            model: { alias: 'fake', type: 'openai-compatible', model: 'm', params: {} },
            gate: {
              options: { safety: 'full', yes: true },
              ceiling: { floor: 'full', denies: [] },
              approvals: [],
            },
          },
          'a guessed secret',
        );
        // Each worker takes one (concurrency 1, two jobs at once): both refuse.
        const forged = [
          { name: 'unsigned', data: { spec: signed.spec }, reason: /unsigned/ },
          { name: 'wrong secret', data: signed, reason: /signature is invalid/ },
          { name: 'not a job', data: { run: 'rm -rf /' }, reason: /not a signed cadre job/ },
        ];
        const failures = forged.map(
          (_f, i) =>
            new Promise<string>((resolve) =>
              events.on('failed', ({ jobId, failedReason }) => {
                if (jobId === `forged-${i}`) resolve(failedReason);
              }),
            ),
        );
        for (const [i, f] of forged.entries()) await queue.add(f.name, f.data, { jobId: `forged-${i}` });
        const reasons = await Promise.all(failures);
        for (const [i, f] of forged.entries()) expect(reasons[i]).toMatch(f.reason);
        expect(reasons.every((r) => /^worker w-[12] refused the job: /.test(r))).toBe(true);
      } finally {
        await events.close();
        await queue.close();
      }
      expect(server.requests.filter((r) => r.view.system.includes('You are a writer.'))).toHaveLength(0);

      const p = project(server, queueConfig(redisFile.server.url, repository));
      const run = await cadreIn(
        p,
        ['-p', 'go', '--yes', '--trust-project', '--output-format', 'stream-json'],
        {
          timeoutMs: TIMEOUT,
          env: { CADRE_WORKER_SECRET: 'not the workers secret' },
        },
      );
      expect(run.code).toBe(0);
      const end = jsonLines(run.stdout).find((e) => e.type === 'subagent_end');
      expect(end).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(/^worker w-[12] refused the job: the job signature is invalid/),
      });
      expect(workers.map((w) => w.log()).join('')).toMatch(/refused job/);
    },
    TIMEOUT,
  );

  it(
    'a job no worker takes fails after workers.pickup_timeout_ms; an alias a worker lacks is refused with the reason',
    async () => {
      const server = await scriptedServer(
        script()
          .rule({ first_user: 'go' })
          .turn((t) => t.tool('task', { agent: 'writer', prompt: 'write something' }))
          .text('done'),
      );
      const repository = sharedRepository();
      const lonely = project(
        server,
        queueConfig(redisFile.server.url, repository, { pickup_timeout_ms: 1500 }),
      );
      const unpicked = await cadreIn(
        lonely,
        ['-p', 'go', '--yes', '--trust-project', '--output-format', 'stream-json'],
        {
          timeoutMs: TIMEOUT,
          env: { CADRE_WORKER_SECRET: SECRET },
        },
      );
      expect(jsonLines(unpicked.stdout).find((e) => e.type === 'subagent_end')).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(/^no worker took the job within 1500 ms \(workers\.pickup_timeout_ms\)/),
      });

      // The worker's providers have no alias "fake" (the root's): it refuses instead of guessing.
      await startWorker('w-other', redisFile.server.url, server, repository, {
        config: {
          providers: { elsewhere: { type: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1' } },
          provider: 'elsewhere',
        },
      });
      const refused = await cadreIn(
        project(server, queueConfig(redisFile.server.url, repository)),
        ['-p', 'go', '--yes', '--trust-project', '--output-format', 'stream-json'],
        { timeoutMs: TIMEOUT, env: { CADRE_WORKER_SECRET: SECRET } },
      );
      expect(jsonLines(refused.stdout).find((e) => e.type === 'subagent_end')).toMatchObject({
        status: 'failed',
        error:
          'worker w-other refused the job: this worker has no provider alias "fake" (its aliases: elsewhere)',
      });
    },
    TIMEOUT,
  );

  it(
    'Redis killed mid-run: reported; a task dispatched meanwhile runs locally (fallback: local); the remote one finishes after the restart',
    async () => {
      const server = await scriptedServer(
        script()
          .rule({ system: 'You are a writer.', first_user: 'remote part' })
          .turn((t) => t.tool('write', { path: 'remote.txt', content: 'remote\n' }))
          .turn((t) => t.tool('bash', { command: `git add remote.txt && ${COMMIT} "Add remote.txt"` }))
          .turn((t) => t.delay(1500).text('remote part done'))
          .rule({ system: 'You are a writer.', first_user: 'local part' })
          .turn((t) => t.tool('write', { path: 'local.txt', content: 'local\n' }))
          .text('local part done')
          .rule({ first_user: 'go remote' })
          .turn((t) => t.tool('task', { agent: 'writer', prompt: 'remote part' }))
          .text('remote done')
          .rule({ first_user: 'go local' })
          .turn((t) => t.tool('task', { agent: 'writer', prompt: 'local part' }))
          .text('local done'),
      );
      const repository = sharedRepository();
      const worker = await startWorker('w-r', redisFile.server.url, server, repository, {
        config: { workers: { repository, stalled_after_ms: 15_000 } },
      });
      const config = queueConfig(redisFile.server.url, repository, {
        fallback: 'local',
        stalled_after_ms: 15_000,
      });
      const args = ['--yes', '--trust-project', '--output-format', 'stream-json'];
      const env = { CADRE_WORKER_SECRET: SECRET };
      const remoteProject = project(server, config);
      const remote = cadreIn(remoteProject, ['-p', 'go remote', ...args], { timeoutMs: TIMEOUT, env });
      await worker.waitForLog(/pushed/);
      await redisFile.server.kill();
      // A task dispatched while Redis is down runs here, saying why.
      const local = await cadreIn(project(server, config), ['-p', 'go local', ...args], {
        timeoutMs: TIMEOUT,
        env,
      });
      expect(local.code, local.stderr).toBe(0);
      const localEvents = jsonLines(local.stdout);
      expect(localEvents).toContainEqual(
        expect.objectContaining({
          type: 'warning',
          message: expect.stringMatching(
            /^Redis at redis:\/\/127\.0\.0\.1:\d+ is unreachable: .*; task [0-9a-f]{12} runs locally \(fallback: local\)$/,
          ),
        }),
      );
      expect(localEvents.find((e) => e.type === 'subagent_end')).toMatchObject({ status: 'completed' });
      expect(localEvents.some((e) => e.type === 'subagent_worker')).toBe(false);
      await redisFile.server.restart();
      const result = await remote;
      expect(result.code, result.stderr).toBe(0);
      const events = jsonLines(result.stdout);
      const warnings = events.filter((e) => e.type === 'warning').map((e) => String(e.message));
      expect(warnings).toContainEqual(
        expect.stringMatching(
          /^lost the connection to Redis at redis:\/\/127\.0\.0\.1:\d+; tasks on workers go on/,
        ),
      );
      expect(warnings).toContainEqual(expect.stringMatching(/^reconnected to Redis at /));
      expect(events.find((e) => e.type === 'subagent_end')).toMatchObject({ status: 'completed' });
      const branch = String(events.find((e) => e.type === 'subagent_isolation')?.branch);
      expect(
        execFileSync('git', ['log', '--format=%s', branch], { cwd: remoteProject.dir }).toString(),
      ).toContain('Add remote.txt');
    },
    TIMEOUT,
  );
});
