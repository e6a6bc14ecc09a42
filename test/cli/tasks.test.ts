import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSessionStore } from '../../src/session/store.js';
import { runCadre } from '../support/cli.js';
import { git, userTexts, writerRun } from '../support/runtime-harness.js';

const COMMIT = 'git -c user.name=w -c user.email=w@x commit -qm';

async function retainedWriter(
  commands: string[],
  description = 'add a file',
  config?: Record<string, unknown>,
) {
  const run = writerRun(commands, description, config);
  await run.runtime.prompt('go');
  await run.runtime.close();
  const reconciliation = userTexts(run.seen[2]).at(-1) ?? '';
  const taskId = /\[task ([0-9a-f]{12}) \(readwrite\)\]/.exec(reconciliation)?.[1] ?? '';
  const branch = /writer branch: (\S+)/.exec(reconciliation)?.[1] ?? '';
  const path = /writer salvage path: (.+)/.exec(reconciliation)?.[1] ?? '';
  const tasks = (args: string[]) =>
    runCadre(['tasks', ...args], {
      cwd: run.dir,
      env: { CADRE_CONFIG_DIR: run.project.configDir },
      timeoutMs: 30_000,
    });
  return { ...run, taskId, branch, path, tasks, reconciliation };
}

describe('cadre tasks', () => {
  it('lists and shows a retained writer, then merges it with --no-ff and removes worktree and branch', async () => {
    const w = await retainedWriter([
      `echo new > added.txt && git add added.txt && ${COMMIT} "Add added.txt"`,
    ]);
    const head = git(w.dir, 'rev-parse', 'HEAD');
    const list = await w.tasks(['list', '--json']);
    expect(list.code).toBe(0);
    const [task] = JSON.parse(list.stdout);
    expect(task).toMatchObject({
      id: w.taskId,
      status: 'completed',
      profile: 'implementer',
      worktree: 'retained',
      branch: w.branch,
      commits: [git(w.dir, 'rev-parse', w.branch)],
      changed_files: ['added.txt'],
      salvage_path: w.path,
    });
    expect(task.batch).toMatch(/^b-/);
    const text = await w.tasks([]);
    expect(text.stdout).toContain(`${w.taskId}  completed  implementer`);
    expect(text.stdout).toContain('worktree retained, 1 commit');
    const show = await w.tasks(['show', w.taskId.slice(0, 5)]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`branch: ${w.branch}\n`);
    expect(show.stdout).toContain(`salvage path: ${w.path}\n`);
    expect(show.stdout).toContain('changed files: added.txt');
    const showJson = JSON.parse((await w.tasks(['show', w.taskId, '--json'])).stdout);
    expect(showJson.result).toBe('writer done');

    const merge = await w.tasks(['merge', w.taskId]);
    expect(merge.stderr).toBe('');
    expect(merge.code).toBe(0);
    expect(readFileSync(join(w.dir, 'added.txt'), 'utf8')).toBe('new\n');
    expect(git(w.dir, 'log', '-1', '--format=%P').split(' ')).toEqual([
      head,
      git(w.dir, 'rev-parse', 'HEAD^2'),
    ]);
    expect(git(w.dir, 'log', '-1', '--format=%s')).toBe(`Merge cadre task ${w.taskId}: add a file`);
    expect(existsSync(w.path)).toBe(false);
    expect(git(w.dir, 'branch', '--list', w.branch)).toBe('');
    const after = JSON.parse((await w.tasks(['list', '--json'])).stdout);
    expect(after[0]).toMatchObject({ worktree: 'merged', salvage_path: null });
  });

  it('refuses a conflicting merge and leaves the checkout and the worktree exactly as they were', async () => {
    const w = await retainedWriter([`echo theirs > README.md && git add -A && ${COMMIT} "Change README"`]);
    writeFileSync(join(w.dir, 'README.md'), 'ours\n');
    git(w.dir, '-c', 'user.name=u', '-c', 'user.email=u@x', 'commit', '-qam', 'Our README');
    const head = git(w.dir, 'rev-parse', 'HEAD');
    const merge = await w.tasks(['merge', w.taskId]);
    expect(merge.code).toBe(1);
    expect(merge.stderr).toContain(`merging ${w.branch} would conflict in README.md; nothing was changed`);
    expect(git(w.dir, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(w.dir, 'status', '--porcelain')).toBe('');
    expect(readFileSync(join(w.dir, 'README.md'), 'utf8')).toBe('ours\n');
    expect(existsSync(w.path)).toBe(true);
  });

  it('refuses to merge into a dirty checkout or one in the middle of a merge, before touching anything', async () => {
    const w = await retainedWriter([`echo new > added.txt && git add -A && ${COMMIT} "Add"`]);
    writeFileSync(join(w.dir, 'README.md'), 'edited\n');
    const dirty = await w.tasks(['merge', w.taskId]);
    expect(dirty.code).toBe(1);
    expect(dirty.stderr).toContain('has uncommitted changes; commit or stash them first');
    expect(existsSync(join(w.dir, 'added.txt'))).toBe(false);
    expect(readFileSync(join(w.dir, 'README.md'), 'utf8')).toBe('edited\n');
    execFileSync('git', ['checkout', '-q', 'README.md'], { cwd: w.dir });
    writeFileSync(join(w.dir, '.git', 'MERGE_HEAD'), `${git(w.dir, 'rev-parse', 'HEAD')}\n`);
    const midMerge = await w.tasks(['merge', w.taskId]);
    expect(midMerge.code).toBe(1);
    expect(midMerge.stderr).toContain('a merge is in progress');
    expect(existsSync(w.path)).toBe(true);
  });

  it('discard needs --yes, then removes the worktree and the branch', async () => {
    const w = await retainedWriter(['echo wip > wip.txt']);
    const refused = await w.tasks(['discard', w.taskId]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('run again with --yes');
    expect(existsSync(join(w.path, 'wip.txt'))).toBe(true);
    const discard = await w.tasks(['discard', w.taskId, '--yes']);
    expect(discard.code).toBe(0);
    expect(existsSync(w.path)).toBe(false);
    expect(git(w.dir, 'branch', '--list', w.branch)).toBe('');
    const again = await w.tasks(['merge', w.taskId]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('was already discarded');
  });

  it('a writer that wires a committed hook through core.hooksPath: nothing runs at merge', async () => {
    const marker = join(process.env.TMPDIR ?? '/tmp', `cadre-hook-ran-${process.pid}-${Date.now()}`);
    const w = await retainedWriter(
      [
        `mkdir .husky && printf '#!/bin/sh\\ntouch ${marker}\\n' > .husky/post-merge && chmod +x .husky/post-merge && cp .husky/post-merge .husky/pre-merge-commit && git add -A && ${COMMIT} "Add hooks" && git config core.hooksPath .husky`,
      ],
      'add a file',
      // Setting a program git runs is opaque to the analyser (issue 15): only a rule written for it runs it.
      { permission: { allow: ['bash(git config core.hooksPath *)'] } },
    );
    // Unconfined here, the writer's config change stays (a confining sandbox keeps the config
    // read-only, test/subagent/writer-store.test.ts); cadre's own git ignores it all the same.
    expect(git(w.dir, 'config', '--get', 'core.hooksPath')).toBe('.husky');
    const merge = await w.tasks(['merge', w.taskId]);
    expect(merge.code).toBe(0);
    expect(existsSync(join(w.dir, '.husky', 'post-merge'))).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });

  it('answers an unknown or ambiguous id with a clear message (exit 2)', async () => {
    const w = await retainedWriter(['ls']);
    const unknown = await w.tasks(['show', 'ffffffffffff0']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown task "ffffffffffff0"');
    const store = openSessionStore(w.project.configDir);
    const session = store.createSession({ projectRoot: w.dir, cwd: w.dir });
    const ids = Array.from(
      { length: 17 },
      () => store.createTask({ parentSessionId: session.id, prompt: 'x' }).id,
    );
    store.close();
    const shared = ids.map((id) => id[0]).find((c, i, all) => all.indexOf(c) !== i) as string;
    const ambiguous = await w.tasks(['show', shared]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain(`task id "${shared}" is ambiguous`);
    const noAction = await w.tasks(['frobnicate']);
    expect(noAction.code).toBe(2);
  });
});
