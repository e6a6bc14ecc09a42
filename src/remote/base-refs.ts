import { randomUUID } from 'node:crypto';
import { GitError, type GitResult, gitRun } from '../worktree/git.js';

type RunGit = (cwd: string, args: readonly string[]) => Promise<GitResult>;

/** Job ids pushed at least this many at a time: the next items of a fleet find theirs already there. */
export const BASE_REFS_AHEAD = 8;

/** The base refs of one commit pushed from one checkout. */
interface Base {
  top: string;
  sha: string;
  /** Jobs holding a ref: the refs go once none does. */
  users: number;
  /** Pushed and handed to a job. */
  taken: string[];
  /** Pushed, for the next jobs from this commit. */
  ready: string[];
  pushing?: Promise<void>;
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

  /** A job id whose ref in the shared repository holds `sha` (pushed from `top` if none is ready). */
  async acquire(top: string, sha: string): Promise<{ id: string; ref: string }> {
    const key = `${top}\0${sha}`;
    let base = this.bases.get(key);
    if (!base) {
      base = { top, sha, users: 0, taken: [], ready: [] };
      this.bases.set(key, base);
    }
    base.users++;
    try {
      for (;;) {
        const id = base.ready.shift();
        if (id !== undefined) {
          base.taken.push(id);
          this.refill(base);
          return { id, ref: baseRef(id) };
        }
        base.pushing ??= this.pushAhead(base);
        await base.pushing;
      }
    } catch (error) {
      this.release(top, sha);
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
    await base.pushing?.catch(() => undefined);
    const refs = [...base.taken, ...base.ready].map((id) => `:${baseRef(id)}`);
    if (refs.length > 0) await this.push(top, refs);
  }

  /**
   * Fewer refs ready than jobs holding one (a fleet's next wave is as wide as this one): more are pushed
   * now, in the background, so the next items do not wait for a push when slots free up. A failed push
   * here is the next acquire's to report (it pushes again itself).
   */
  private refill(base: Base): void {
    if (base.pushing || base.ready.length >= base.users) return;
    base.pushing = this.pushAhead(base);
    base.pushing.catch(() => undefined);
  }

  private async pushAhead(base: Base): Promise<void> {
    const count = Math.max(BASE_REFS_AHEAD, 2 * base.users);
    const ids = Array.from({ length: count }, () => randomUUID());
    try {
      await this.push(
        base.top,
        ids.map((id) => `${base.sha}:${baseRef(id)}`),
      );
      base.ready.push(...ids);
    } finally {
      base.pushing = undefined;
    }
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
