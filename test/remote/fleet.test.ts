import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { ScriptedServer } from '../../src/provider/scripted/server.js';
import { cadreIn, jsonLines, servedProject } from '../e2e/harness.js';
import { script, scriptedServer } from '../support/llm-server.js';
import { queueConfig, redisForFile, SECRET, sharedRepository, startWorker } from './harness.js';

// Two fleets of six writers, one local and one on workers: long on a loaded machine.
const TIMEOUT = 300_000;
const WRITER = '---\ndescription: writes\nsubagent_tools: readwrite\n---\nYou are a fleet writer.\n';
const READER = '---\ndescription: reads\nsubagent_tools: readonly\n---\nYou are a reader.\n';
const COMMIT = 'git -c user.name=w -c user.email=w@x commit -qm';

const redisFile = redisForFile();

function worktreeDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cadre-worktrees-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
}

/** Ids, shas, branches and paths replaced by their order of appearance: what must match between runs. */
function normalize(text: string): string {
  const names = new Map<string, string>();
  const counts = new Map<string, number>();
  const name = (kind: string) => (value: string) => {
    if (!names.has(value)) {
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
      names.set(value, `<${kind}${counts.get(kind)}>`);
    }
    return names.get(value) as string;
  };
  return text
    .replace(/writer salvage path: .*/g, 'writer salvage path: <path>')
    .replace(/cadre-task-[0-9a-f-]{36}/g, name('branch'))
    .replace(/\b[0-9a-f]{40}\b/g, name('sha'))
    .replace(/\b[0-9a-f]{12}\b/g, name('id'));
}

const ITEMS = Array.from({ length: 6 }, (_, i) => ({
  id: `w${i + 1}`,
  agent: 'writer',
  prompt: `write f${i + 1}.txt`,
  write_paths: [`f${i + 1}.txt`],
}));

function fleetScript() {
  let builder = script();
  for (let i = 1; i <= 6; i++)
    builder = builder
      .rule({ system: 'You are a fleet writer.', first_user: `write f${i}.txt` })
      .turn((t) => t.delay(300).tool('write', { path: `f${i}.txt`, content: `${i}\n` }))
      .turn((t) => t.tool('bash', { command: `git add f${i}.txt && ${COMMIT} "Add f${i}.txt"` }))
      .text(`wrote f${i}.txt`);
  return builder
    .rule({ last_user: 'Coordinator batch is complete' })
    .text('Reconciled.')
    .rule({ first_user: 'go' })
    .turn((t) => t.tool('fleet', { tasks: ITEMS, background: true }))
    .text('Waiting for the fleet.');
}

async function runFleet(server: ScriptedServer, config: Record<string, unknown>) {
  const project = servedProject(server, {
    git: true,
    files: { 'README.md': 'hi\n', '.cadre/agents/writer.md': WRITER, '.cadre/agents/reader.md': READER },
    config: { subagent_dispatch_strategy: 'optional', ...config },
  });
  const run = await cadreIn(
    project,
    ['-p', 'go', '--yes', '--trust-project', '--output-format', 'stream-json'],
    {
      timeoutMs: TIMEOUT,
      env: { CADRE_WORKER_SECRET: SECRET, CADRE_WORKTREE_DIR: worktreeDir() },
    },
  );
  expect(run.code, run.stderr).toBe(0);
  const events = jsonLines(run.stdout);
  const reconciled = events.find((e) => e.type === 'batch_reconciled') as { text: string } | undefined;
  expect(reconciled, run.stdout).toBeDefined();
  return { project, events, text: reconciled?.text ?? '' };
}

describe('a fleet on remote workers', () => {
  it(
    'six writers on three workers reconcile exactly as on the local backend; each worker ran one; every branch is retained',
    async () => {
      const server = await scriptedServer(fleetScript());
      const local = await runFleet(server, {});
      const repository = sharedRepository();
      const workers = await Promise.all(
        ['w-a', 'w-b', 'w-c'].map((name) => startWorker(name, redisFile.server.url, server, repository)),
      );
      const remote = await runFleet(server, queueConfig(redisFile.server.url, repository));
      expect(normalize(remote.text)).toBe(normalize(local.text));
      expect(remote.text.match(/writer worktree: clean; retained for salvage/g)).toHaveLength(6);
      for (const worker of workers) expect(worker.log()).toMatch(/started/);
      const ran = remote.events.filter((e) => e.type === 'subagent_worker').map((e) => e.worker);
      expect(new Set(ran)).toEqual(new Set(['w-a', 'w-b', 'w-c']));
      // Each job had a base ref of its own: all of them were dropped after the last job.
      expect(git(repository, 'for-each-ref', 'refs/cadre/base')).toBe('');
      // Every branch is in the root's repository with its commit, and its worktree holds the file.
      for (const [, branch, path] of remote.text.matchAll(
        /writer branch: (\S+)\n[\s\S]*?writer salvage path: (.+)/g,
      )) {
        expect(git(remote.project.dir, 'log', '-1', '--format=%s', branch)).toMatch(/^Add f\d\.txt$/);
        expect(git(path, 'status', '--porcelain')).toBe('');
      }
    },
    TIMEOUT,
  );

  it(
    'kill -9 of a worker mid-task: the job goes to another worker, which goes on from the pushed commit',
    async () => {
      const server = await scriptedServer(
        script()
          .rule({ system: 'You are a fleet writer.' })
          .turn((t) => t.tool('write', { path: 'kept.txt', content: 'committed before the kill\n' }))
          .turn((t) => t.tool('bash', { command: `git add kept.txt && ${COMMIT} "Add kept.txt"` }))
          .turn((t) => t.delay(5000).text('finished after the takeover'))
          .rule({ first_user: 'go' })
          .turn((t) => t.tool('task', { agent: 'writer', prompt: 'write kept.txt' }))
          .text('done'),
      );
      const repository = sharedRepository();
      const quick = { config: { workers: { repository, stalled_after_ms: 3000 } } };
      const first = await startWorker('w-first', redisFile.server.url, server, repository, quick);
      const project = servedProject(server, {
        git: true,
        files: { 'README.md': 'hi\n', '.cadre/agents/writer.md': WRITER },
        config: queueConfig(redisFile.server.url, repository, { stalled_after_ms: 3000 }),
      });
      const run = cadreIn(
        project,
        ['-p', 'go', '--yes', '--trust-project', '--output-format', 'stream-json'],
        {
          timeoutMs: TIMEOUT,
          env: { CADRE_WORKER_SECRET: SECRET, CADRE_WORKTREE_DIR: worktreeDir() },
        },
      );
      await first.waitForLog(/pushed/);
      first.child.kill('SIGKILL');
      // Its lock expires; the next worker's stalled-job check hands the job to it.
      const second = await startWorker('w-second', redisFile.server.url, server, repository, quick);
      const result = await run;
      expect(result.code, result.stderr).toBe(0);
      const events = jsonLines(result.stdout);
      expect(events.filter((e) => e.type === 'subagent_worker').map((e) => e.worker)).toEqual([
        'w-first',
        'w-second',
      ]);
      expect(events).toContainEqual(
        expect.objectContaining({
          type: 'warning',
          message: expect.stringMatching(/worker w-first stopped responding; the job goes back to the queue/),
        }),
      );
      expect(events.find((e) => e.type === 'subagent_end')).toMatchObject({ status: 'completed' });
      expect(second.log()).toMatch(/started/);
      const branch = String(events.find((e) => e.type === 'subagent_isolation')?.branch);
      expect(git(project.dir, 'log', '--format=%s', branch)).toContain('Add kept.txt');
    },
    TIMEOUT,
  );
});
