import { randomUUID } from 'node:crypto';
import { GitError, type GitResult, gitRun } from '../worktree/git.js';

type RunGit = (cwd: string, args: readonly string[]) => Promise<GitResult>;

/** Job ids pushed at least this many at a time: the next items of a fleet find theirs already there. */
export const BASE_REFS_AHEAD = 8;

/** A push of base refs under way: its ids not yet handed to a job go to `ready` once it lands. */
interface Push {
  unclaimed: string[];
  done: Promise<void>;
  landed: boolean;
}

/** The base refs of one commit pushed from one checkout. */
interface Base {
  top: string;
  sha: string;
  /** Jobs holding a ref: the refs go once none does. */
  users: number;
  /** Handed to a job (pushed, or in the push under way). */
  taken: string[];
  /** Pushed, for the next jobs from this commit. */
  ready: string[];
  /** The push whose ids the next jobs claim. */
  pushing?: Push;
  /** Every push under way (the drop of the commit's refs waits for them). */
  inflight: Set<Promise<void>>;
}

/** A job's base ref, handed out at once; `pushed` settles once it is in the shared repository. */
export interface BaseClaim {
  id: string;
  ref: string;
  pushed: Promise<void>;
  /** Whether the ref is in the shared repository already. */
  landed(): boolean;
}

/**
 * The job bases this root pushes to the shared repository (issue 18): one ref per job,
 * `refs/cadre/base/<job id>`, so two roots (or two batches) sharing a repository never race on one ref.
 * Ids are made before their jobs, several per `git push` (all the items a fleet admits at once, and as many
 * again for the ones after them), and more are pushed while jobs run once fewer are ready than run, so
 * the jobs of a fleet's later waves find their ref pushed already. The refs of a commit are
 * dropped together, in one push, once the last task from it has been reconciled.
 */
export class BaseRefs {
  private readonly bases = new Map<string, Base>();

  constructor(
    private readonly repository: string,
    private readonly run: RunGit = gitRun,
  ) {}

  /**
   * A job id whose ref in the shared repository holds `sha`, at once: one pushed already, else one of the
   * push under way or a new one from `top` (a job can go to the queue while its ref is pushed). Every
   * claim is released once, whether its push landed or not.
   */
  take(top: string, sha: string): BaseClaim {
    const key = `${top}\0${sha}`;
    let base = this.bases.get(key);
    if (!base) {
      base = { top, sha, users: 0, taken: [], ready: [], inflight: new Set() };
      this.bases.set(key, base);
    }
    base.users++;
    const ready = base.ready.shift();
    if (ready !== undefined) {
      base.taken.push(ready);
      this.refill(base);
      return { id: ready, ref: baseRef(ready), pushed: Promise.resolve(), landed: () => true };
    }
    if (!base.pushing?.unclaimed.length) base.pushing = this.pushAhead(base);
    const push = base.pushing;
    const id = push.unclaimed.shift() as string;
    base.taken.push(id);
    return { id, ref: baseRef(id), pushed: push.done, landed: () => push.landed };
  }

  /** `take`, once its ref is pushed; a failed push is released here and rejects with git's reason. */
  async acquire(top: string, sha: string): Promise<{ id: string; ref: string }> {
    const { id, ref, pushed } = this.take(top, sha);
    try {
      await pushed;
      return { id, ref };
    } catch (error) {
      await this.release(top, sha);
      throw error;
    }
  }

  /**
   * A job from `sha` was reconciled; after the last one, every ref of the commit goes in one push.
   * Resolves once they are gone; rejects with git's reason.
   */
  async release(top: string, sha: string): Promise<void> {
    const key = `${top}\0${sha}`;
    const base = this.bases.get(key);
    if (!base) return;
    base.users--;
    if (base.users > 0) return;
    this.bases.delete(key);
    // A push still running adds refs the drop must include.
    await Promise.allSettled(base.inflight);
    const refs = [...base.taken, ...base.ready].map((id) => `:${baseRef(id)}`);
    if (refs.length > 0) await this.push(top, refs);
  }

  /**
   * Fewer refs ready than jobs holding one (a fleet's next wave is as wide as this one): more are pushed
   * now, in the background, so the next items do not wait for a push when slots free up. A failed push
   * here fails the jobs that took its refs meanwhile; the next take pushes again.
   */
  private refill(base: Base): void {
    if (base.pushing || base.ready.length >= base.users) return;
    base.pushing = this.pushAhead(base);
  }

  private pushAhead(base: Base): Push {
    const count = Math.max(BASE_REFS_AHEAD, 2 * base.users);
    const ids: string[] = Array.from({ length: count }, () => randomUUID());
    const unclaimed = [...ids];
    const push: Push = { unclaimed, done: Promise.resolve(), landed: false };
    push.done = this.push(
      base.top,
      ids.map((id) => `${base.sha}:${baseRef(id)}`),
    ).then(
      () => {
        push.landed = true;
        if (base.pushing === push) base.pushing = undefined;
        base.ready.push(...unclaimed.splice(0));
        this.refill(base);
      },
      (error: unknown) => {
        if (base.pushing === push) base.pushing = undefined;
        // Not in the shared repository: nothing of this push is dropped later.
        base.taken = base.taken.filter((id) => !ids.includes(id));
        unclaimed.length = 0;
        throw error;
      },
    );
    push.done.catch(() => undefined);
    base.inflight.add(push.done);
    void push.done.catch(() => undefined).finally(() => base.inflight.delete(push.done));
    return push;
  }

  private async push(top: string, refspecs: string[]): Promise<void> {
    const args = ['push', '-q', this.repository, ...refspecs];
    const result = await this.run(top, args);
    if (result.code !== 0) throw new GitError(args.slice(0, 3), result);
  }
}

export function baseRef(jobId: string): string {
  return `refs/cadre/base/${jobId}`;
}
