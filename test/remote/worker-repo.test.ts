import { execFileSync } from 'node:child_process';
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
  return { repository, cache, sha, base: { ref: 'refs/cadre/base/j1', sha } };
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

  it('removes a checkout’s files at once and its branch with the store’s records a moment later', async () => {
    const { repository, cache, base } = shared();
    const repo = new WorkerRepo(cache, repository);
    const one = await repo.checkout('j1', base, 'cadre-task-1', false);
    const two = await repo.checkout('j2', base, 'cadre-task-2', false);
    await Promise.all([repo.remove(one), repo.remove(two)]);
    expect(existsSync(one.path)).toBe(false);
    expect(git(repo.store, 'for-each-ref', 'refs/heads')).toBe('');
    expect(git(repo.store, 'worktree', 'list').split('\n')).toHaveLength(1);
  });

  it('a worktree a killed run left at the job’s path is replaced; a base that cannot be fetched fails with git’s reason', async () => {
    const { repository, cache, base } = shared();
    const repo = new WorkerRepo(cache, repository);
    // What a worker killed mid-job leaves: the branch's folder, with files in it.
    const left = join(cache, 'worktrees', 'cadre-task-1');
    mkdirSync(left, { recursive: true });
    writeFileSync(join(left, 'stale.txt'), 'left behind\n');
    const checkout = await repo.checkout('j1', base, 'cadre-task-1', false);
    expect(existsSync(join(checkout.path, 'stale.txt'))).toBe(false);
    expect(readFileSync(join(checkout.path, 'a.txt'), 'utf8')).toBe('a\n');
    await expect(
      repo.checkout('j9', { ref: 'refs/cadre/base/missing', sha: 'e'.repeat(40) }, undefined, false),
    ).rejects.toThrow(/git fetch/);
  });
});
