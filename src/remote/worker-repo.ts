import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { GitError, git, gitRun, withRepoLock } from '../worktree/git.js';

/** How long after a checkout's removal git's records of it go (with those of the checkouts removed meanwhile). */
const FORGET_AFTER_MS = 1000;

/** A checkout a worker made for one job, and the store it belongs to. */
export interface JobCheckout {
  path: string;
  /** The worker's cache of the shared repository (a bare store): the writer's git dir lives in it. */
  store: string;
  branch?: string;
}

/**
 * The worker's cache of the shared repository under `dir`: a bare store that fetches only what it lacks
 * (the job's base, and a task branch a worker before it pushed), with one worktree per job. Only git's
 * records in the store change under its lock; the files of a checkout are written and removed outside it,
 * so a worker's slots do not wait for each other's files.
 */
export class WorkerRepo {
  readonly store: string;
  /**
   * Commits this worker has put in its store: their checkouts go straight to the worktree (and look
   * again only when that fails, e.g. after a gc dropped them).
   */
  private readonly known = new Set<string>();
  /** Branches of removed checkouts, deleted together by the next `forgetting`. */
  private readonly removedBranches: string[] = [];
  private forgetting?: Promise<void>;

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
    const path = join(this.dir, 'worktrees', branch ?? `job-${jobId}`);
    await this.locked(async () => {
      await this.init();
      let start = base.sha;
      if (branch && retried) {
        const pushed = await gitRun(this.store, [
          'fetch',
          '-q',
          '--no-tags',
          this.repository,
          `refs/heads/${branch}`,
        ]);
        if (pushed.code === 0) start = await git(this.store, ['rev-parse', 'FETCH_HEAD']);
      }
      const args = branch
        ? ['worktree', 'add', '-q', '--no-checkout', '-B', branch, path, start]
        : ['worktree', 'add', '-q', '--no-checkout', '--detach', path, start];
      const add = async () => (await gitRun(this.store, args)).code === 0;
      if (this.known.has(base.sha) && (await add())) return;
      // Only what the store lacks: a fleet's items share their base commit, fetched by the first of them.
      // Fetched objects need no ref of their own: the worktree's branch or detached HEAD holds them.
      const have = await gitRun(this.store, ['cat-file', '-e', `${base.sha}^{commit}`]);
      if (have.code !== 0) await git(this.store, ['fetch', '-q', '--no-tags', this.repository, base.ref]);
      this.known.add(base.sha);
      if (await add()) return;
      // A worktree a killed run of this worker left behind blocks the branch or the path: gone, then again.
      rmSync(path, { recursive: true, force: true });
      await gitRun(this.store, ['worktree', 'prune']);
      await git(this.store, args);
    });
    const checkout = { path, store: this.store, branch };
    // The files, outside the store's lock: the worktree's index is its own.
    const filled = await gitRun(path, ['reset', '-q', '--hard']);
    if (filled.code !== 0) {
      await this.remove(checkout);
      throw new GitError(['reset', '-q', '--hard'], filled);
    }
    return checkout;
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

  /**
   * Removes the job's worktree and branch: the root retains the work, not the worker. The files go at
   * once; git's records of them go for several jobs together a moment later, under the store's lock, so
   * the checkouts of the jobs that follow do not queue behind them.
   */
  async remove(checkout: JobCheckout): Promise<void> {
    await rm(checkout.path, { recursive: true, force: true });
    if (checkout.branch) this.removedBranches.push(checkout.branch);
    this.forgetting ??= new Promise<void>((resolve) => setTimeout(resolve, FORGET_AFTER_MS)).then(() =>
      this.locked(async () => {
        this.forgetting = undefined;
        const branches = this.removedBranches.splice(0);
        await gitRun(this.store, ['worktree', 'prune']);
        if (branches.length > 0) await gitRun(this.store, ['branch', '-q', '-D', ...branches]);
      }),
    );
    await this.forgetting;
  }
}
