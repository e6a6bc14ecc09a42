import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { GitError, git, gitRun, withRepoLock } from '../worktree/git.js';

/** How long after a checkout's release git's records of it go (with those of the checkouts released meanwhile). */
const FORGET_AFTER_MS = 1000;

/** What a worktree's admin dir holds after a plain checkout. */
const PLAIN_ADMIN_ENTRIES: ReadonlySet<string> = new Set(['HEAD', 'commondir', 'gitdir', 'index']);
/**
 * What a job's own git commands leave there besides: dropped when its worktree is reused. One with
 * anything else (a rebase or merge in progress, its own config) is not reused.
 */
const JOB_ADMIN_ENTRIES: ReadonlySet<string> = new Set(['logs', 'ORIG_HEAD', 'COMMIT_EDITMSG', 'FETCH_HEAD']);

/** Git's empty tree, which every repository has without storing it. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** A checkout a worker made for one job, and the store it belongs to. */
export interface JobCheckout {
  path: string;
  /** The worker's cache of the shared repository (a bare store): the writer's git dir lives in it. */
  store: string;
  branch?: string;
  /** The job's base commit: the checkout goes back to it when the job is done. */
  base: string;
  /** The commit the job starts from: its base, or what an earlier attempt pushed to its branch. */
  start: string;
  /** Its `.git` file as made: a checkout whose link was changed is not reused. */
  link: string;
}

/** A checkout no job uses: clean, detached at `at`, ready for the next job. */
interface Idle {
  path: string;
  at: string;
  link: string;
}

/**
 * The worker's cache of the shared repository under `dir`: a bare store that fetches only what it lacks
 * (the job's base, and a task branch a worker before it pushed), and a pool of worktrees. A job takes an
 * idle worktree and switches it to its base on a fresh branch (a cheap checkout: only the files that
 * differ are written), or gets a new one when none is idle; once the job is done its worktree goes back
 * to its base, loses every untracked and ignored file, and waits for the next job, off the pickup path.
 * Only git's records in the store change under its lock; the files of a checkout are written and removed
 * outside it, so a worker's slots do not wait for each other's files.
 */
export class WorkerRepo {
  readonly store: string;
  /**
   * Commits this worker has put in its store: their checkouts go straight to the worktree (and look
   * again only when that fails, e.g. after a gc dropped them).
   */
  private readonly known = new Set<string>();
  private readonly idle: Idle[] = [];
  /**
   * Worktrees being made ready (a finished job's, or a spare): a job with none idle waits for one
   * rather than make one.
   */
  private readonly readying = new Set<Promise<void>>();
  /** Branches of finished jobs, deleted together by the next `forgetting` (with the records of removed worktrees). */
  private readonly removedBranches: string[] = [];
  private forgetting?: Promise<void>;

  constructor(
    readonly dir: string,
    readonly repository: string,
    /**
     * Idle worktrees kept ready beyond those jobs use (made while the jobs run): a job that follows one
     * that just ended takes a ready one instead of waiting for that one to be cleaned.
     */
    private readonly spare = 0,
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
   * The pool made before any job comes: `count` worktrees at an empty commit of the store's own (never
   * pushed), so a worker's first jobs, too, start their child at once and switch to their base after its
   * first model call, instead of fetching and making a worktree first. A pool as large as busy slots keep
   * (a worktree for each and the spares) is not added to while the first jobs run.
   */
  async warm(count = this.spare): Promise<void> {
    const empty = await this.locked(async () => {
      await this.init();
      return git(this.store, [
        ...['-c', 'user.name=cadre worker', '-c', 'user.email=cadre-worker@localhost'],
        ...['commit-tree', EMPTY_TREE, '-m', 'cadre worker: the empty start of its worktree pool'],
      ]);
    });
    this.replenish({ ref: '', sha: empty }, count);
    await this.settled();
  }

  /**
   * Only what the store lacks: a fleet's items share their base commit, fetched by the first of them.
   * Fetched objects need no ref of their own: the worktree's branch or detached HEAD holds them.
   */
  private async have(base: { ref: string; sha: string }): Promise<void> {
    if (!(await this.contains(base.sha)))
      await git(this.store, ['fetch', '-q', '--no-tags', this.repository, base.ref]);
    this.known.add(base.sha);
  }

  private async contains(sha: string): Promise<boolean> {
    return (await gitRun(this.store, ['cat-file', '-e', `${sha}^{commit}`])).code === 0;
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
    based?: Promise<void>,
  ): Promise<JobCheckout> {
    const start = await this.startOf(base, branch, retried, based);
    const idle = await this.takeIdle(start);
    if (idle) {
      const switched = await this.switchTo(idle, base, start, branch);
      if ('checkout' in switched) return switched.checkout;
    }
    const made = await this.add(jobId, base, start, branch);
    this.replenish(base);
    return made;
  }

  /**
   * The commit the job starts from, in the store: its base, or what an earlier attempt pushed to its
   * branch. A base the store lacks is fetched once `based` settles (its ref may still be on its way),
   * waited for outside the store's lock.
   */
  private async startOf(
    base: { ref: string; sha: string },
    branch: string | undefined,
    retried: boolean,
    based?: Promise<void>,
  ): Promise<string> {
    if (this.known.has(base.sha) && !(branch && retried)) return base.sha;
    if (based && !(existsSync(join(this.store, 'HEAD')) && (await this.contains(base.sha)))) await based;
    return this.locked(async () => {
      await this.init();
      await this.have(base);
      if (!branch || !retried) return base.sha;
      const pushed = await gitRun(this.store, [
        'fetch',
        '-q',
        '--no-tags',
        this.repository,
        `refs/heads/${branch}`,
      ]);
      return pushed.code === 0 ? git(this.store, ['rev-parse', 'FETCH_HEAD']) : base.sha;
    });
  }

  /**
   * The job's worktree as soon as its folder is known. For a first attempt an idle one is the job's at
   * once, and `ready` settles once (after `after`) the base is in the store and the worktree switched to
   * it on the job's branch (or rejects with git's reason); otherwise the checkout is made first. The job
   * may start before `ready` settles as long as nothing reads or writes its files until then.
   */
  async place(
    jobId: string,
    base: { ref: string; sha: string },
    branch: string | undefined,
    retried: boolean,
    /**
     * The git work for a placed job starts once this settles (its start stalls the worker a moment
     * each: the job's first model call goes out first).
     */
    after: Promise<unknown> = Promise.resolve(),
    /** Settles once the job's base ref can be fetched (when the root was still pushing it). */
    based?: Promise<void>,
  ): Promise<{ path: string; ready: Promise<JobCheckout> }> {
    // One being made ready (a finished job's, a spare) is waited for: the child still starts before the switch.
    const idle = retried ? undefined : await this.takeIdle(base.sha);
    if (idle) {
      const ready = after
        .then(() => this.startOf(base, branch, false, based))
        .then(
          async (start) => {
            const switched = await this.switchTo(idle, base, start, branch);
            if ('error' in switched) throw switched.error;
            return switched.checkout;
          },
          (error: unknown) => {
            // The base cannot be had: the worktree, untouched, waits for the next job.
            this.idle.push(idle);
            throw error;
          },
        );
      return { path: idle.path, ready };
    }
    const made = await this.checkout(jobId, base, branch, retried, based);
    return { path: made.path, ready: Promise.resolve(made) };
  }

  /** An idle worktree to the job's start commit, on its branch; one that cannot be switched is removed. */
  private async switchTo(
    idle: Idle,
    base: { ref: string; sha: string },
    start: string,
    branch: string | undefined,
  ): Promise<{ checkout: JobCheckout } | { error: GitError }> {
    const args = branch
      ? ['checkout', '-q', '-f', '-B', branch, start]
      : ['checkout', '-q', '-f', '--detach', start];
    const switched = await gitRun(idle.path, args);
    if (switched.code !== 0) {
      await this.discard(idle.path);
      return { error: new GitError(args, switched) };
    }
    this.replenish(base);
    return {
      checkout: { path: idle.path, store: this.store, branch, base: base.sha, start, link: idle.link },
    };
  }

  /** Spare worktrees at the job's base, made in the background up to `count`. */
  private replenish(base: { ref: string; sha: string }, count = this.spare): void {
    while (this.idle.length + this.readying.size < count) {
      const making = this.add('spare', base, base.sha, undefined).then(
        (made) => {
          this.idle.push({ path: made.path, at: made.base, link: made.link });
        },
        () => undefined,
      );
      this.ready(making);
    }
  }

  /** Tracks a worktree being made ready until it is. */
  private ready(making: Promise<void>): Promise<void> {
    this.readying.add(making);
    return making.finally(() => this.readying.delete(making));
  }

  /** Resolves once no worktree is being made ready. */
  async settled(): Promise<void> {
    while (this.readying.size > 0) await Promise.all(this.readying);
  }

  /** Which idle worktree a job from `at` takes: one at `at` if any, else the last; -1 when none is idle. */
  private idleIndex(at: string): number {
    const same = this.idle.findIndex((i) => i.at === at);
    return same >= 0 ? same : this.idle.length - 1;
  }

  /** An idle worktree, at `at` if one is; one being made ready is waited for rather than a new one made. */
  private async takeIdle(at: string): Promise<Idle | undefined> {
    for (;;) {
      const index = this.idleIndex(at);
      if (index >= 0) return this.idle.splice(index, 1)[0];
      if (this.readying.size === 0) return undefined;
      await Promise.race(this.readying);
    }
  }

  /** A new worktree for the job. */
  private async add(
    jobId: string,
    base: { ref: string; sha: string },
    start: string,
    branch: string | undefined,
  ): Promise<JobCheckout> {
    const path = join(this.dir, 'worktrees', `${jobId.slice(0, 8)}-${randomBytes(4).toString('hex')}`);
    const args = branch
      ? ['worktree', 'add', '-q', '--no-checkout', '-B', branch, path, start]
      : ['worktree', 'add', '-q', '--no-checkout', '--detach', path, start];
    await this.locked(async () => {
      await this.init();
      const add = async () => (await gitRun(this.store, args)).code === 0;
      if (await add()) return;
      await this.have(base);
      if (await add()) return;
      // A worktree a killed run of this worker left behind still holds the branch: gone, then again.
      if (branch) await this.freeBranch(branch);
      await rm(path, { recursive: true, force: true });
      await gitRun(this.store, ['worktree', 'prune']);
      await git(this.store, args);
    });
    const link = await readFile(join(path, '.git'), 'utf8');
    const checkout = { path, store: this.store, branch, base: base.sha, start, link };
    // The files, outside the store's lock: the worktree's index is its own.
    const filled = await gitRun(path, ['reset', '-q', '--hard']);
    if (filled.code !== 0) {
      await this.discard(path);
      if (branch) this.forget(branch);
      throw new GitError(['reset', '-q', '--hard'], filled);
    }
    return checkout;
  }

  /** Removes the worktree (of an earlier run) that has `branch` checked out. */
  private async freeBranch(branch: string): Promise<void> {
    const list = await git(this.store, ['worktree', 'list', '--porcelain']);
    for (const entry of list.split('\n\n')) {
      const path = /^worktree (.*)$/m.exec(entry)?.[1];
      if (path && entry.includes(`\nbranch refs/heads/${branch}`))
        await gitRun(this.store, ['worktree', 'remove', '--force', path]);
    }
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
   * The job is done (the root retains the work, not the worker): its worktree goes back to the job's base
   * with nothing of the job left (no commit, change, untracked or ignored file, branch or reflog) and
   * waits for the next job; one that cannot be made so is removed. The branch and the records of removed
   * worktrees go for several jobs together a moment later, under the store's lock, so the checkouts of
   * the jobs that follow do not queue behind them.
   */
  async release(checkout: JobCheckout): Promise<void> {
    const recycled = this.recycle(checkout)
      .catch(() => false)
      .then((ok) => {
        if (ok) this.idle.push({ path: checkout.path, at: checkout.base, link: checkout.link });
        else return this.discard(checkout.path);
      });
    await this.ready(recycled);
    if (checkout.branch) this.forget(checkout.branch);
    await this.forgetting;
  }

  /** Whether the checkout is back at its base, clean, and plain enough to serve another job. */
  private async recycle(checkout: JobCheckout): Promise<boolean> {
    const { path } = checkout;
    const link = await readFile(join(path, '.git'), 'utf8').catch(() => '');
    if (link !== checkout.link) return false;
    const admin = /^gitdir: (.*)$/m.exec(link)?.[1]?.trim();
    if (!admin) return false;
    const reset = await gitRun(path, ['checkout', '-q', '-f', '--detach', checkout.base]);
    if (reset.code !== 0) return false;
    const cleaned = await gitRun(path, ['clean', '-q', '-ffdx']);
    if (cleaned.code !== 0) return false;
    const left = (await readdir(admin)).filter((entry) => !PLAIN_ADMIN_ENTRIES.has(entry));
    if (left.some((entry) => !JOB_ADMIN_ENTRIES.has(entry))) return false;
    // The job's history of HEAD and its messages go with it: the next job's start from its own checkout.
    await Promise.all(left.map((entry) => rm(join(admin, entry), { recursive: true, force: true })));
    return true;
  }

  /** Removes a worktree's files now and its record with the next `forgetting`. */
  private async discard(path: string): Promise<void> {
    await rm(path, { recursive: true, force: true }).catch(() => undefined);
    this.forget();
  }

  /** Deletes `branch` (if any) and prunes the records of removed worktrees, for several at once. */
  private forget(branch?: string): void {
    if (branch) this.removedBranches.push(branch);
    this.forgetting ??= new Promise<void>((resolve) => setTimeout(resolve, FORGET_AFTER_MS)).then(() =>
      this.locked(async () => {
        this.forgetting = undefined;
        const branches = this.removedBranches.splice(0);
        await gitRun(this.store, ['worktree', 'prune']);
        if (branches.length > 0) await gitRun(this.store, ['branch', '-q', '-D', ...branches]);
      }),
    );
  }

  /** The worker stops: idle worktrees go (a new worker process starts its pool afresh). */
  async close(): Promise<void> {
    await this.settled();
    const idle = this.idle.splice(0);
    await Promise.all(idle.map((i) => rm(i.path, { recursive: true, force: true })));
    if (idle.length > 0) this.forget();
    await this.forgetting;
  }
}
