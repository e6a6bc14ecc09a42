import { describe, expect, it } from 'vitest';
import { jsonLines, servedProject } from '../e2e/harness.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { queueConfig, redisForFile, runRoot, sharedRepository, startWorker } from './harness.js';

const TIMEOUT = 150_000;
const WRITER = '---\ndescription: writes\nsubagent_tools: readwrite\n---\nYou are a claimed writer.\n';

const redisFile = redisForFile();

const ITEMS = ['a', 'b', 'c', 'd'].map((id) => ({
  id,
  agent: 'writer',
  prompt: `item ${id}`,
  write_paths: [`${id}.txt`],
}));

function item(builder: ReturnType<typeof script>, id: string) {
  return builder.rule({ system: 'You are a claimed writer.', first_user: `item ${id}` });
}

describe('remote writers under the root’s claims', () => {
  it(
    'a write of a file another writer claims waits for it with the cause; bash in a worktree widens nothing; a cycle is a claim deadlock',
    async () => {
      let builder = script();
      // a writes its own file, then b's: it waits until b has ended.
      builder = item(builder, 'a')
        .turn((t) => t.tool('write', { path: 'a.txt', content: 'a\n' }))
        .turn((t) => t.tool('write', { path: 'b.txt', content: 'a was here\n' }))
        .text('a done');
      // b runs bash first (its own worktree: no widening, so no wait on a), then takes its time.
      builder = item(builder, 'b')
        .turn((t) => t.tool('bash', { command: 'echo b starts' }))
        .turn((t) => t.delay(4000).tool('write', { path: 'b.txt', content: 'b\n' }))
        .text('b done');
      // c and d each write the other's file: whichever closes the cycle fails.
      builder = item(builder, 'c')
        .turn((t) => t.tool('write', { path: 'd.txt', content: 'c was here\n' }))
        .text('c done');
      builder = item(builder, 'd')
        .turn((t) => t.delay(2500).tool('write', { path: 'c.txt', content: 'd was here\n' }))
        .text('d done');
      const server = await scriptedServer(
        builder
          .rule({ last_user: 'Coordinator batch is complete' })
          .text('Reconciled.')
          .rule({ first_user: 'go' })
          .turn((t) => t.tool('fleet', { tasks: ITEMS }))
          .text('fleet done'),
      );
      const repository = sharedRepository();
      await Promise.all(
        ['w-1', 'w-2'].map((name) =>
          startWorker(name, redisFile.server.url, server, repository, { concurrency: 2 }),
        ),
      );
      const project = servedProject(server, {
        git: true,
        files: { 'README.md': 'hi\n', '.cadre/agents/writer.md': WRITER },
        config: {
          subagent_dispatch_strategy: 'optional',
          max_parallel_writers: 4,
          ...queueConfig(redisFile.server.url, repository),
        },
      });
      const run = await runRoot(project, TIMEOUT);
      expect(run.code, run.stderr).toBe(0);
      const events = jsonLines(run.stdout);
      const ids = new Map<string, string>();
      for (const e of events)
        if (e.type === 'subagent_start') ids.set((e.fleet as { item: string }).item, String(e.taskId));
      const end = (item: string) =>
        events.find((e) => e.type === 'subagent_end' && e.taskId === ids.get(item)) as
          | { status: string; error?: string }
          | undefined;
      const waits = events.filter((e) => e.type === 'subagent_queued' && e.position === 0);
      expect(waits).toContainEqual(
        expect.objectContaining({ taskId: ids.get('a'), cause: `claim: b.txt held by ${ids.get('b')}` }),
      );
      expect(waits.filter((e) => e.taskId === ids.get('b'))).toEqual([]);
      expect(end('a')).toMatchObject({ status: 'completed' });
      expect(end('b')).toMatchObject({ status: 'completed' });
      const cd = [end('c'), end('d')];
      const failed = cd.filter((e) => e?.status === 'failed');
      expect(failed).toHaveLength(1);
      expect(failed[0]?.error).toMatch(
        /^claim deadlock: fleet item "[cd]" \(task [0-9a-f]{12}\) waits for [cd]\.txt held by fleet item "[cd]" \(task [0-9a-f]{12}\); .*Neither can go on, so fleet item "[cd]" \(task [0-9a-f]{12}\) fails\.$/,
      );
      expect(cd.filter((e) => e?.status === 'completed')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'subagent_worker').length).toBe(4);
    },
    TIMEOUT,
  );
});
