import { describe, expect, it } from 'vitest';
import { liveWorkerNames, refusalVerdict } from '../../src/remote/refusals.js';
import { jsonLines, servedProject } from '../e2e/harness.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { queueConfig, redisForFile, runRoot, sharedRepository, startWorker } from './harness.js';

const TIMEOUT = 150_000;
const WRITER = '---\ndescription: writes\nsubagent_tools: readwrite\n---\nYou are a writer.\n';
const ELSEWHERE = { type: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1' };

const redisFile = redisForFile();

describe('refusalVerdict', () => {
  it.each<{ refusals: Record<string, string>; live: string[]; verdict: unknown }>([
    { refusals: {}, live: ['a'], verdict: { reoffer: true } },
    { refusals: { a: 'no alias' }, live: ['a', 'b'], verdict: { reoffer: true } },
    {
      refusals: { b: 'old version', a: 'no alias' },
      live: ['a', 'b'],
      verdict: { failed: 'worker a refused the job: no alias; worker b refused the job: old version' },
    },
    // A worker gone since it refused still names its reason; one alive that has not refused keeps it going.
    {
      refusals: { gone: 'no sandbox', a: 'no alias' },
      live: ['a'],
      verdict: { failed: 'worker a refused the job: no alias; worker gone refused the job: no sandbox' },
    },
    { refusals: { gone: 'no sandbox' }, live: ['a'], verdict: { reoffer: true } },
  ])('refusals $refusals with live workers $live', ({ refusals, live, verdict }) => {
    expect(refusalVerdict(refusals, live)).toEqual(verdict);
  });

  it('reads worker names from BullMQ client names, each once, ignoring other clients', () => {
    expect(
      liveWorkerNames([
        'bull:Y2FkcmU=:w:worker-1',
        'bull:Y2FkcmU=:w:worker-1',
        'bull:Y2FkcmU=:w:w:2',
        'bull:Y2FkcmU=',
        undefined,
        '',
      ]),
    ).toEqual(['worker-1', 'w:2']);
  });
});

function fleetProject(server: Parameters<typeof servedProject>[0], repository: string) {
  return servedProject(server, {
    git: true,
    files: { 'README.md': 'hi\n', '.cadre/agents/writer.md': WRITER },
    config: { subagent_dispatch_strategy: 'optional', ...queueConfig(redisFile.server.url, repository) },
  });
}

const ITEMS = ['a', 'b'].map((id) => ({
  id,
  agent: 'writer',
  prompt: `item ${id}`,
  write_paths: [`${id}.txt`],
}));

describe('a job a worker refuses goes to the other live workers', () => {
  it(
    'two workers, one lacking the model alias: both items run on the other; the refusing worker said why',
    async () => {
      const server = await scriptedServer(
        script()
          .rule({ system: 'You are a writer.', first_user: 'item a' })
          .turn((t) => t.delay(1500).text('a done'))
          .rule({ system: 'You are a writer.', first_user: 'item b' })
          .turn((t) => t.delay(1500).text('b done'))
          .rule({ first_user: 'go' })
          .turn((t) => t.tool('fleet', { tasks: ITEMS }))
          .text('fleet done'),
      );
      const repository = sharedRepository();
      // Both items are queued at once; the good worker can run one at a time, so the other one is
      // taken (and refused) by the worker lacking the alias.
      const [lacking, good] = await Promise.all([
        startWorker('w-lacking', redisFile.server.url, server, repository, {
          config: { providers: { elsewhere: ELSEWHERE }, provider: 'elsewhere' },
        }),
        startWorker('w-good', redisFile.server.url, server, repository),
      ]);
      const run = await runRoot(fleetProject(server, repository), TIMEOUT);
      expect(run.code, run.stderr).toBe(0);
      const events = jsonLines(run.stdout);
      const ends = events.filter((e) => e.type === 'subagent_end');
      expect(ends.map((e) => e.status)).toEqual(['completed', 'completed']);
      expect(events.filter((e) => e.type === 'subagent_worker').map((e) => e.worker)).toEqual([
        'w-good',
        'w-good',
      ]);
      expect(lacking.log()).toMatch(
        /refused job \S+: this worker has no provider alias "fake" \(its aliases: elsewhere\)/,
      );
      expect(good.log()).not.toMatch(/refused/);
    },
    TIMEOUT,
  );

  it(
    'every live worker refuses: the item fails with each worker’s reason',
    async () => {
      const server = await scriptedServer(
        script()
          .rule({ last_user: 'Coordinator batch is complete' })
          .text('Reconciled.')
          .rule({ first_user: 'go' })
          .turn((t) => t.tool('task', { agent: 'writer', prompt: 'write something' }))
          .text('done'),
      );
      const repository = sharedRepository();
      await Promise.all([
        startWorker('w-one', redisFile.server.url, server, repository, {
          config: { providers: { elsewhere: ELSEWHERE }, provider: 'elsewhere' },
        }),
        startWorker('w-two', redisFile.server.url, server, repository, {
          config: { providers: { other: ELSEWHERE }, provider: 'other' },
        }),
      ]);
      const run = await runRoot(fleetProject(server, repository), TIMEOUT);
      expect(run.code, run.stderr).toBe(0);
      expect(jsonLines(run.stdout).find((e) => e.type === 'subagent_end')).toMatchObject({
        status: 'failed',
        error:
          'worker w-one refused the job: this worker has no provider alias "fake" (its aliases: elsewhere); ' +
          'worker w-two refused the job: this worker has no provider alias "fake" (its aliases: other)',
      });
    },
    TIMEOUT,
  );
});
