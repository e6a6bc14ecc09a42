import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cadreIn, jsonLines, servedProject } from '../e2e/harness.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { queueConfig, redisForFile, SECRET, sharedRepository, startWorker } from './harness.js';

const TIMEOUT = 120_000;
const WRITER =
  '---\ndescription: writes one file\nsubagent_tools: readwrite\n---\nYou are a remote writer.\n';

const redisFile = redisForFile();

describe('queue backend', () => {
  it(
    'a writer runs on a worker; its commit comes home on its branch and is retained',
    async () => {
      const server = await scriptedServer(
        script()
          .rule({ system: 'You are a remote writer.' })
          .turn((t) => t.tool('write', { path: 'remote.txt', content: 'from a worker\n' }))
          .turn((t) => t.tool('bash', { command: 'git add remote.txt && git commit -qm "remote file"' }))
          .text('wrote remote.txt')
          .rule({ first_user: 'go' })
          .turn((t) => t.tool('task', { agent: 'writer', prompt: 'write remote.txt' }))
          .text('done'),
      );
      const repository = sharedRepository();
      const worker = await startWorker('w1', redisFile.server.url, server, repository);
      const project = servedProject(server, {
        git: true,
        files: { 'README.md': 'hi\n', '.cadre/agents/writer.md': WRITER },
        config: queueConfig(redisFile.server.url, repository),
      });
      const run = await cadreIn(
        project,
        ['-p', 'go', '--yes', '--trust-project', '--output-format', 'stream-json'],
        {
          timeoutMs: TIMEOUT,
          env: { CADRE_WORKER_SECRET: SECRET },
        },
      );
      expect(run.code, run.stderr + worker.log()).toBe(0);
      const events = jsonLines(run.stdout);
      expect(events).toContainEqual(expect.objectContaining({ type: 'subagent_worker', worker: 'w1' }));
      const end = events.find((e) => e.type === 'subagent_end');
      expect(end, JSON.stringify(events.filter((e) => e.type !== 'text_delta'))).toMatchObject({
        status: 'completed',
      });
      const iso = events.find((e) => e.type === 'subagent_isolation') as { branch: string; worktree: string };
      const log = execFileSync('git', ['log', '--format=%s', iso.branch], { cwd: project.dir }).toString();
      expect(log).toContain('remote file');
      // The retained branch merges like a local writer's.
      const merged = await cadreIn(project, ['tasks', 'merge', String(end?.taskId)]);
      expect(merged.code, merged.stderr).toBe(0);
      expect(readFileSync(project.path('remote.txt'), 'utf8')).toBe('from a worker\n');
    },
    TIMEOUT,
  );
});
