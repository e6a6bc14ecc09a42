import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { git, gitRun, withRepoLock } from '../worktree/git.js';

/** A checkout a worker made for one job, and the store it belongs to. */
export interface JobCheckout {
  path: string;
  /** The worker's cache of the shared repository (a bare store): the writer's git dir lives in it. */
  store: string;
  branch?: string;
  /** The refs the checkout fetched into the store (removed with it). */
  fetched: string[];
}

/**
 * The worker's cache of the shared repository under `dir`: a bare store that fetches only what it lacks
 * (the job's base, and a task branch a worker before it pushed), with one worktree per job.
 */
export class WorkerRepo {
  readonly store: string;

  constructor(
    readonly dir: string,
    readonly repository: string,
  ) {
    const key = createHash('sha256').update(repository).digest('hex').slice(0, 12);
    this.store = join(dir, 'repos', `${key}.git`);
  }

  /** The store's cross-process lock lives inside it, so its folder exists before the first lock. */
  private locked<T>(fn: () => Promise<T>): Promise<T> {
    mkdirSync(this.store, { recursive: true });
    return withRepoLock(this.store, fn);
  }

  private async init(): Promise<void> {
    if (existsSync(join(this.store, 'HEAD'))) return;
    mkdirSync(this.store, { recursive: true });
    await git(this.store, ['init', '-q', '--bare']);
  }

  /**
   * A worktree at the job's base: a writer's on its own branch, continuing from what an earlier attempt
   * pushed to it (a retry after a killed worker loses no commit); a reader's detached.
   */
  async checkout(
    jobId: string,
    base: { ref: string; sha: string },
    branch: string | undefined,
    retried: boolean,
  ): Promise<JobCheckout> {
    return this.locked(async () => {
      await this.init();
      const local = `refs/cadre/jobs/${jobId}`;
      // Only what the store lacks: a fleet's items share their base, fetched by the first of them.
      const fetched: string[] = [];
      const have = await gitRun(this.store, ['cat-file', '-e', `${base.sha}^{commit}`]);
      if (have.code !== 0) {
        await git(this.store, ['fetch', '-q', '--no-tags', this.repository, `+${base.ref}:${local}`]);
        fetched.push(local);
      }
      let start = base.sha;
      if (branch && retried) {
        const pushed = await gitRun(this.store, [
          'fetch',
          '-q',
          '--no-tags',
          this.repository,
          `+refs/heads/${branch}:${local}-branch`,
        ]);
        if (pushed.code === 0) {
          fetched.push(`${local}-branch`);
          start = await git(this.store, ['rev-parse', `${local}-branch`]);
        }
      }
      const path = join(this.dir, 'worktrees', branch ?? `job-${jobId}`);
      const args = branch
        ? ['worktree', 'add', '-q', '-B', branch, path, start]
        : ['worktree', 'add', '-q', '--detach', path, start];
      if ((await gitRun(this.store, args)).code !== 0) {
        // A worktree a killed run of this worker left behind blocks the branch: pruned, then again.
        await gitRun(this.store, ['worktree', 'prune']);
        await git(this.store, args);
      }
      return { path, store: this.store, branch, fetched };
    });
  }

  /** The checkout's HEAD commit. */
  head(checkout: JobCheckout): Promise<string> {
    return git(checkout.path, ['rev-parse', 'HEAD']);
  }

  /** Pushes a writer's branch to the shared repository (never forced: an earlier attempt's commits stay). */
  async push(checkout: JobCheckout): Promise<string> {
    const sha = await this.head(checkout);
    await git(checkout.path, ['push', '-q', this.repository, `${sha}:refs/heads/${checkout.branch}`]);
    return sha;
  }

  /** The uncommitted changes, untracked files included, as a binary diff; undefined when clean. */
  async uncommitted(checkout: JobCheckout): Promise<string | undefined> {
    const status = await git(checkout.path, ['status', '--porcelain', '--untracked-files=all']);
    if (status === '') return undefined;
    await git(checkout.path, ['add', '-A']);
    const patch = await git(checkout.path, ['diff', '--cached', '--binary', 'HEAD']);
    await git(checkout.path, ['reset', '-q']);
    return `${patch}\n`;
  }

  /** Removes the job's worktree, branch and fetched refs: the root retains the work, not the worker. */
  async remove(checkout: JobCheckout): Promise<void> {
    await this.locked(async () => {
      const removed = await gitRun(this.store, ['worktree', 'remove', '--force', checkout.path]);
      if (removed.code !== 0) await gitRun(this.store, ['worktree', 'prune']);
      if (checkout.branch) await gitRun(this.store, ['branch', '-D', checkout.branch]);
      for (const ref of checkout.fetched) await gitRun(this.store, ['update-ref', '-d', ref]);
    });
  }
}
