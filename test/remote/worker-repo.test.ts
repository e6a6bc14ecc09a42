import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkerRepo } from '../../src/remote/worker-repo.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

function gitRunCode(cwd: string, ...args: string[]): number {
  return spawnSync('git', args, { cwd }).status ?? -1;
}

/** A root checkout with one commit, pushed to a bare shared repository as `refs/cadre/base/j1`. */
function shared() {
  const root = mkdtempSync(join(tmpdir(), 'cadre-wr-root-'));
  const repository = mkdtempSync(join(tmpdir(), 'cadre-wr-shared-'));
  const cache = mkdtempSync(join(tmpdir(), 'cadre-wr-cache-'));
  dirs.push(root, repository, cache);
  git(repository, 'init', '-q', '--bare');
  git(root, 'init', '-q');
  writeFileSync(join(root, 'a.txt'), 'a\n');
  git(root, 'add', 'a.txt');
  git(root, '-c', 'user.name=t', '-c', 'user.email=t@x', 'commit', '-qm', 'a');
  const sha = git(root, 'rev-parse', 'HEAD');
  git(root, 'push', '-q', repository, `${sha}:refs/cadre/base/j1`);
  return { root, repository, cache, sha, base: { ref: 'refs/cadre/base/j1', sha } };
}

describe('WorkerRepo', () => {
  it('checks out a job’s base on its branch, fetching the commit only the first time', async () => {
    const { repository, cache, sha, base } = shared();
    const repo = new WorkerRepo(cache, repository);
    const first = await repo.checkout('j1', base, 'cadre-task-1', false);
    expect(readFileSync(join(first.path, 'a.txt'), 'utf8')).toBe('a\n');
    expect(git(first.path, 'rev-parse', 'HEAD')).toBe(sha);
    expect(git(first.path, 'status', '--porcelain')).toBe('');
    // The base ref is gone from the shared repository: a second job from the same commit needs no fetch.
    git(repository, 'update-ref', '-d', 'refs/cadre/base/j1');
    const second = await repo.checkout('j2', { ref: 'refs/cadre/base/j2', sha }, undefined, false);
    expect(git(second.path, 'rev-parse', 'HEAD')).toBe(sha);
    // A worker started afresh on the same cache finds the commit in its store too.
    const again = new WorkerRepo(cache, repository);
    const third = await again.checkout('j3', { ref: 'refs/cadre/base/j3', sha }, 'cadre-task-3', false);
    expect(git(third.path, 'symbolic-ref', '--short', 'HEAD')).toBe('cadre-task-3');
  });

  it('a finished job’s worktree serves the next job with nothing of the first left', async () => {
    const { repository, cache, sha, base } = shared();
    const repo = new WorkerRepo(cache, repository);
    const one = await repo.checkout('j1', base, 'cadre-task-1', false);
    // Job 1 commits, changes a tracked file, and leaves untracked, ignored and nested files.
    writeFileSync(join(one.path, '.gitignore'), 'build/\n');
    writeFileSync(join(one.path, 'committed.txt'), 'c\n');
    git(one.path, 'add', '.gitignore', 'committed.txt');
    git(one.path, '-c', 'user.name=t', '-c', 'user.email=t@x', 'commit', '-qm', 'job 1');
    writeFileSync(join(one.path, 'a.txt'), 'changed by job 1\n');
    writeFileSync(join(one.path, 'untracked.txt'), 'u\n');
    mkdirSync(join(one.path, 'build', 'deep'), { recursive: true });
    writeFileSync(join(one.path, 'build', 'deep', 'ignored.o'), 'i\n');
    git(one.path, 'add', 'untracked.txt');
    await repo.release(one);
    const two = await repo.checkout('j2', base, 'cadre-task-2', false);
    expect(two.path).toBe(one.path);
    expect(git(two.path, 'symbolic-ref', '--short', 'HEAD')).toBe('cadre-task-2');
    expect(git(two.path, 'rev-parse', 'HEAD')).toBe(sha);
    expect(readFileSync(join(two.path, 'a.txt'), 'utf8')).toBe('a\n');
    for (const left of ['committed.txt', '.gitignore', 'untracked.txt', 'build'])
      expect(existsSync(join(two.path, left))).toBe(false);
    expect(git(two.path, 'status', '--porcelain', '--ignored')).toBe('');
    expect(git(two.path, 'ls-files')).toBe('a.txt');
    // Its history of HEAD is its own, and job 1's branch is gone from the store.
    expect(git(two.path, 'reflog', '--format=%gs')).not.toMatch(/job 1|cadre-task-1/);
    expect(git(repo.store, 'for-each-ref', '--format=%(refname)', 'refs/heads')).toBe(
      'refs/heads/cadre-task-2',
    );
    // A reader after it: the same worktree, detached.
    await repo.release(two);
    const three = await repo.checkout('j3', base, undefined, false);
    expect(three.path).toBe(one.path);
    expect(gitRunCode(three.path, 'symbolic-ref', '-q', 'HEAD')).not.toBe(0);
    await repo.release(three);
    expect(git(repo.store, 'for-each-ref', 'refs/heads')).toBe('');
    await repo.close();
    expect(existsSync(one.path)).toBe(false);
    expect(git(repo.store, 'worktree', 'list').split('\n')).toHaveLength(1);
  });

  it('keeps spare worktrees ready while jobs run, so the next job takes one at once', async () => {
    const { repository, cache, sha, base } = shared();
    const repo = new WorkerRepo(cache, repository, 1);
    const one = await repo.checkout('j1', base, 'cadre-task-1', false);
    // The spare is made while job 1 runs: clean, detached at its base, in a folder of its own.
    await repo.settled();
    const worktrees = () => git(repo.store, 'worktree', 'list', '--porcelain');
    expect(worktrees().match(/^worktree /gm)).toHaveLength(3);
    const two = await repo.checkout('j2', base, 'cadre-task-2', false);
    expect(two.path).not.toBe(one.path);
    expect(git(two.path, 'rev-parse', 'HEAD')).toBe(sha);
    expect(git(two.path, 'status', '--porcelain', '--ignored')).toBe('');
    // Taking it made another spare; released, the pool holds at most the jobs' worktrees and the spare.
    await repo.release(one);
    await repo.release(two);
    await repo.settled();
    expect(worktrees().match(/^worktree /gm)).toHaveLength(4);
    await repo.close();
    expect(worktrees().match(/^worktree /gm)).toHaveLength(1);
  });

  it('warmed, a first job takes a pooled worktree at once and is switched to its base after `after`', async () => {
    const { repository, cache, sha, base } = shared();
    const repo = new WorkerRepo(cache, repository, 1);
    await repo.warm(2);
    const worktrees = () => git(repo.store, 'worktree', 'list', '--porcelain');
    // Two empty worktrees and no fetch yet: the store lacks the job's commit.
    expect(worktrees().match(/^worktree /gm)).toHaveLength(3);
    expect(gitRunCode(repo.store, 'cat-file', '-e', `${sha}^{commit}`)).not.toBe(0);
    let answered!: () => void;
    const after = new Promise<void>((resolve) => {
      answered = resolve;
    });
    const placed = await repo.place('j1', base, 'cadre-task-1', false, after);
    expect(existsSync(join(placed.path, 'a.txt'))).toBe(false);
    answered();
    const made = await placed.ready;
    expect(made.path).toBe(placed.path);
    // The other pooled worktree is the spare: none was added.
    await repo.settled();
    expect(worktrees().match(/^worktree /gm)).toHaveLength(3);
    expect(git(made.path, 'symbolic-ref', '--short', 'HEAD')).toBe('cadre-task-1');
    expect(git(made.path, 'rev-parse', 'HEAD')).toBe(sha);
    expect(readFileSync(join(made.path, 'a.txt'), 'utf8')).toBe('a\n');
    expect(git(made.path, 'status', '--porcelain', '--ignored')).toBe('');
    // Released, it goes back to the job's base, not to the empty start.
    await repo.release(made);
    await repo.settled();
    const next = await repo.place('j2', base, undefined, false);
    expect(git(next.path, 'rev-parse', 'HEAD')).toBe(sha);
    await repo.release(await next.ready);
    await repo.close();
    expect(worktrees().match(/^worktree /gm)).toHaveLength(1);
  });

  it('a base the store lacks is fetched only once `based` says its ref is there', async () => {
    const { root, repository, cache, sha } = shared();
    const repo = new WorkerRepo(cache, repository, 1);
    await repo.warm();
    let pushed!: () => void;
    const based = new Promise<void>((resolve) => {
      pushed = resolve;
    });
    const placed = await repo.place(
      'j2',
      { ref: 'refs/cadre/base/j2', sha },
      'cadre-task-2',
      false,
      undefined,
      based,
    );
    // The ref is not in the shared repository yet: a worker that fetched now would fail `ready`.
    const early = await Promise.race([
      placed.ready.then(
        () => 'ready',
        (error: Error) => error.message,
      ),
      new Promise((resolve) => setTimeout(() => resolve('waiting'), 300)),
    ]);
    expect(early).toBe('waiting');
    git(root, 'push', '-q', repository, `${sha}:refs/cadre/base/j2`);
    pushed();
    const made = await placed.ready;
    expect(git(made.path, 'rev-parse', 'HEAD')).toBe(sha);
    await repo.release(made);
    await repo.close();
  });

  it('places a job in an idle worktree at once, switched to its branch by the time `ready` settles', async () => {
    const { repository, cache, sha, base } = shared();
    const repo = new WorkerRepo(cache, repository);
    // Nothing idle yet: the checkout is made first.
    const first = await repo.place('j1', base, 'cadre-task-1', false);
    expect((await first.ready).path).toBe(first.path);
    await repo.release(await first.ready);
    // The git work waits for `after` (the job's first model call).
    let answered!: () => void;
    const after = new Promise<void>((resolve) => {
      answered = resolve;
    });
    const second = await repo.place('j2', base, 'cadre-task-2', false, after);
    expect(second.path).toBe(first.path);
    expect(gitRunCode(second.path, 'symbolic-ref', '-q', 'HEAD')).not.toBe(0);
    answered();
    const made = await second.ready;
    expect(git(made.path, 'symbolic-ref', '--short', 'HEAD')).toBe('cadre-task-2');
    expect(made).toMatchObject({ base: sha, start: sha, branch: 'cadre-task-2' });
    await repo.release(made);
    // A base that cannot be fetched rejects `ready` with git's reason; the worktree waits for the next job.
    const missing = await repo.place(
      'j9',
      { ref: 'refs/cadre/base/missing', sha: 'e'.repeat(40) },
      'b',
      false,
    );
    expect(missing.path).toBe(first.path);
    await expect(missing.ready).rejects.toThrow(/git fetch/);
    // A switch git refuses rejects `ready` with git's reason; the worktree is not reused.
    const bad = await repo.place('j3', base, 'bad..branch', false);
    expect(bad.path).toBe(first.path);
    await expect(bad.ready).rejects.toThrow(/git checkout -q -f -B bad\.\.branch/);
    expect(existsSync(bad.path)).toBe(false);
    await repo.close();
  });

  it('a pooled worktree switches to another base; one left mid-rebase or with a changed link is not reused', async () => {
    const { root, repository, cache, sha, base } = shared();
    writeFileSync(join(root, 'a.txt'), 'a2\n');
    writeFileSync(join(root, 'b.txt'), 'b\n');
    git(root, 'add', '-A');
    git(root, '-c', 'user.name=t', '-c', 'user.email=t@x', 'commit', '-qm', 'b');
    const next = git(root, 'rev-parse', 'HEAD');
    git(root, 'push', '-q', repository, `${next}:refs/cadre/base/j2`);
    const repo = new WorkerRepo(cache, repository);
    const one = await repo.checkout('j1', base, 'cadre-task-1', false);
    await repo.release(one);
    const two = await repo.checkout('j2', { ref: 'refs/cadre/base/j2', sha: next }, 'cadre-task-2', false);
    expect(two.path).toBe(one.path);
    expect(readFileSync(join(two.path, 'a.txt'), 'utf8')).toBe('a2\n');
    expect(readFileSync(join(two.path, 'b.txt'), 'utf8')).toBe('b\n');
    // Left mid-rebase (state in its admin dir): removed, the next job gets a new worktree.
    writeFileSync(join(readFileSync(join(two.path, '.git'), 'utf8').slice(8).trim(), 'REBASE_HEAD'), sha);
    await repo.release(two);
    expect(existsSync(two.path)).toBe(false);
    const three = await repo.checkout('j3', base, 'cadre-task-3', false);
    expect(three.path).not.toBe(two.path);
    // Its `.git` link pointed elsewhere: not trusted, removed.
    writeFileSync(join(three.path, '.git'), `gitdir: ${join(cache, 'elsewhere')}\n`);
    await repo.release(three);
    expect(existsSync(three.path)).toBe(false);
    await repo.close();
    expect(git(repo.store, 'worktree', 'list').split('\n')).toHaveLength(1);
  });

  it('a worktree a killed run left holding the job’s branch is replaced; a base that cannot be fetched fails with git’s reason', async () => {
    const { repository, cache, base } = shared();
    // What a worker killed mid-job leaves: a worktree on the task's branch, with files in it.
    const killed = await new WorkerRepo(cache, repository).checkout('j1', base, 'cadre-task-1', false);
    writeFileSync(join(killed.path, 'stale.txt'), 'left behind\n');
    const repo = new WorkerRepo(cache, repository);
    const checkout = await repo.checkout('j1', base, 'cadre-task-1', true);
    expect(existsSync(killed.path)).toBe(false);
    expect(existsSync(join(checkout.path, 'stale.txt'))).toBe(false);
    expect(readFileSync(join(checkout.path, 'a.txt'), 'utf8')).toBe('a\n');
    await expect(
      repo.checkout('j9', { ref: 'refs/cadre/base/missing', sha: 'e'.repeat(40) }, undefined, false),
    ).rejects.toThrow(/git fetch/);
  });
});
