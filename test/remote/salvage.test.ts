import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cadreIn, jsonLines, servedProject } from '../e2e/harness.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { queueConfig, redisForFile, runRoot, SECRET, sharedRepository, startWorker } from './harness.js';

const TIMEOUT = 150_000;
const WRITER = '---\ndescription: writes\nsubagent_tools: readwrite\n---\nYou are a writer.\n';
const COMMIT = 'git -c user.name=w -c user.email=w@x commit -qm';

const redisFile = redisForFile();

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
}

describe('a remote writer that fails after committing', () => {
  it(
    'is reported failed; its pushed branch cadre-task-<id> holds its commits, in the shared repository and at home',
    async () => {
      const server = await scriptedServer(
        script()
          .rule({ system: 'You are a writer.' })
          .turn((t) =>
            t.tool('write', { path: 'salvaged.txt', content: 'committed, then the model failed\n' }),
          )
          .turn((t) => t.tool('bash', { command: `git add salvaged.txt && ${COMMIT} "Add salvaged.txt"` }))
          .turn((t) => t.error(400, 'the model refuses to go on'))
          .rule({ last_user: 'Coordinator batch is complete' })
          .text('Reconciled.')
          .rule({ first_user: 'go' })
          .turn((t) => t.tool('task', { agent: 'writer', prompt: 'write salvaged.txt' }))
          .text('done'),
      );
      const repository = sharedRepository();
      const worker = await startWorker('w-fails', redisFile.server.url, server, repository);
      const project = servedProject(server, {
        git: true,
        files: { 'README.md': 'hi\n', '.cadre/agents/writer.md': WRITER },
        config: { subagent_dispatch_strategy: 'optional', ...queueConfig(redisFile.server.url, repository) },
      });
      const run = await runRoot(project, TIMEOUT);
      expect(run.code, run.stderr).toBe(0);
      const events = jsonLines(run.stdout);
      expect(events.find((e) => e.type === 'subagent_end')).toMatchObject({
        status: 'failed',
        error: expect.stringContaining('the model refuses to go on'),
      });
      expect(worker.log()).toMatch(/pushed cadre-task-/);
      const branch = String(events.find((e) => e.type === 'subagent_isolation')?.branch);
      expect(branch).toMatch(/^cadre-task-[0-9a-f-]{36}$/);
      expect(git(repository, 'log', '-1', '--format=%s', `refs/heads/${branch}`)).toBe('Add salvaged.txt');
      expect(git(project.dir, 'log', '-1', '--format=%s', branch)).toBe('Add salvaged.txt');
      expect(git(project.dir, 'show', `${branch}:salvaged.txt`)).toBe('committed, then the model failed');
      // The reconciliation names the branch as the salvage path of the failed writer.
      const reconciled = String(events.find((e) => e.type === 'batch_reconciled')?.text);
      expect(reconciled).toContain(`writer branch: ${branch}`);
      expect(reconciled).toMatch(/writer worktree: clean; retained for salvage/);
    },
    TIMEOUT,
  );

  it(
    'kill -9 of the only worker after it pushed: no worker takes the job over, so it is reported failed with its pushed branch',
    async () => {
      const server = await scriptedServer(
        script()
          .rule({ system: 'You are a writer.' })
          .turn((t) => t.tool('write', { path: 'orphan.txt', content: 'committed before the kill\n' }))
          .turn((t) => t.tool('bash', { command: `git add orphan.txt && ${COMMIT} "Add orphan.txt"` }))
          .turn((t) => t.delay(60_000).text('never reached'))
          .rule({ last_user: 'Coordinator batch is complete' })
          .text('Reconciled.')
          .rule({ first_user: 'go' })
          .turn((t) => t.tool('task', { agent: 'writer', prompt: 'write orphan.txt' }))
          .text('done'),
      );
      const repository = sharedRepository();
      const quick = { stalled_after_ms: 1500, pickup_timeout_ms: 3000 };
      const lone = await startWorker('w-lone', redisFile.server.url, server, repository, {
        config: { workers: { repository, ...quick } },
      });
      const project = servedProject(server, {
        git: true,
        files: { 'README.md': 'hi\n', '.cadre/agents/writer.md': WRITER },
        config: {
          subagent_dispatch_strategy: 'optional',
          ...queueConfig(redisFile.server.url, repository, quick),
        },
      });
      const run = cadreIn(
        project,
        ['-p', 'go', '--yes', '--trust-project', '--output-format', 'stream-json'],
        {
          timeoutMs: TIMEOUT,
          env: { CADRE_WORKER_SECRET: SECRET },
        },
      );
      await lone.waitForLog(/pushed cadre-task-/);
      lone.child.kill('SIGKILL');
      const result = await run;
      expect(result.code, result.stderr).toBe(0);
      const events = jsonLines(result.stdout);
      const branch = String(events.find((e) => e.type === 'subagent_isolation')?.branch);
      expect(events.find((e) => e.type === 'subagent_end')).toMatchObject({
        status: 'failed',
        error: `worker w-lone stopped responding and no worker took the job over within 3000 ms (workers.pickup_timeout_ms); branch ${branch} keeps what it committed`,
      });
      expect(git(repository, 'log', '-1', '--format=%s', `refs/heads/${branch}`)).toBe('Add orphan.txt');
      expect(git(project.dir, 'log', '-1', '--format=%s', branch)).toBe('Add orphan.txt');
    },
    TIMEOUT,
  );
});
