import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { jsonLines } from '../e2e/harness.js';
import type { TestProject } from '../support/cli.js';
import { script, scriptedServer } from '../support/llm-server.js';
import {
  fleetProject,
  goFleet,
  redisForFile,
  runRoot,
  sharedRepository,
  startWorker,
  writesAndCommits,
} from './harness.js';

const TIMEOUT = 240_000;
const SYSTEM = 'You are a fleet writer.';

const redisFile = redisForFile();

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
}

/** A second checkout of `project`'s repository, at the same commit, with its own global config dir. */
function cloneOf(project: TestProject): TestProject {
  const root = mkdtempSync(join(tmpdir(), 'cadre-second-root-'));
  const dir = join(root, 'project');
  const configDir = join(root, 'config');
  git(root, 'clone', '-q', project.dir, dir);
  mkdirSync(configDir);
  const clone = {
    dir,
    configDir,
    path: (relative: string) => join(dir, relative),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
  onTestFinished(() => clone.cleanup());
  return clone;
}

const ITEMS = [1, 2].map((i) => ({
  id: `w${i}`,
  agent: 'writer',
  prompt: `write f${i}.txt`,
  write_paths: [`f${i}.txt`],
}));

describe('two roots on one shared repository', () => {
  it(
    'two roots at the same commit dispatch fleets at once: both complete, and neither leaves a base ref behind',
    async () => {
      let builder = script();
      for (const i of [1, 2])
        builder = writesAndCommits(builder, SYSTEM, `write f${i}.txt`, `f${i}.txt`, `${i}\n`).text(
          `wrote f${i}.txt`,
        );
      const server = await scriptedServer(goFleet(builder, ITEMS));
      const repository = sharedRepository();
      await Promise.all(
        ['w-1', 'w-2'].map((name) =>
          startWorker(name, redisFile.server.url, server, repository, { concurrency: 2 }),
        ),
      );
      const first = fleetProject(server, redisFile.server.url, repository, { system: SYSTEM });
      const second = cloneOf(first);
      expect(git(second.dir, 'rev-parse', 'HEAD')).toBe(git(first.dir, 'rev-parse', 'HEAD'));
      const runs = await Promise.all([runRoot(first, TIMEOUT), runRoot(second, TIMEOUT)]);
      for (const [run, project] of [
        [runs[0], first],
        [runs[1], second],
      ] as const) {
        expect(run.code, run.stderr).toBe(0);
        const events = jsonLines(run.stdout);
        const ends = events.filter((e) => e.type === 'subagent_end');
        expect(ends.map((e) => e.status)).toEqual(['completed', 'completed']);
        expect(events.filter((e) => e.type === 'subagent_worker')).toHaveLength(2);
        const branches = events.filter((e) => e.type === 'subagent_isolation').map((e) => String(e.branch));
        expect(branches.map((branch) => git(project.dir, 'log', '-1', '--format=%s', branch)).sort()).toEqual(
          ['Add f1.txt', 'Add f2.txt'],
        );
      }
      expect(git(repository, 'for-each-ref', 'refs/cadre/base')).toBe('');
    },
    TIMEOUT,
  );
});
