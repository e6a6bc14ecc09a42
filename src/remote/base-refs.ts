import { git, gitRun } from '../worktree/git.js';

/**
 * The job bases this root pushed to the shared repository (issue 18): one ref per commit,
 * `refs/cadre/base/<sha>`, pushed once however many tasks start from it (a fleet's items share their
 * base) and dropped once the last of them ended. Pushes and drops of one commit run in order.
 */
export class BaseRefs {
  private readonly users = new Map<string, number>();
  private readonly chain = new Map<string, Promise<unknown>>();

  constructor(private readonly repository: string) {}

  /** The ref holding `sha` in the shared repository, pushed from `top` if this root has not yet. */
  async acquire(top: string, sha: string): Promise<string> {
    const ref = baseRef(sha);
    const users = this.users.get(sha) ?? 0;
    this.users.set(sha, users + 1);
    if (users === 0) this.inOrder(sha, () => git(top, ['push', '-q', this.repository, `${sha}:${ref}`]));
    try {
      await this.chain.get(sha);
    } catch (error) {
      this.release(top, sha);
      throw error;
    }
    return ref;
  }

  /** A task from `sha` ended: the ref goes once no task of this root needs it (never awaited). */
  release(top: string, sha: string): void {
    const users = (this.users.get(sha) ?? 1) - 1;
    if (users > 0) {
      this.users.set(sha, users);
      return;
    }
    this.users.delete(sha);
    this.inOrder(sha, () => gitRun(top, ['push', '-q', this.repository, `:${baseRef(sha)}`]));
  }

  private inOrder(sha: string, step: () => Promise<unknown>): void {
    const previous = this.chain.get(sha) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(step);
    next.catch(() => undefined);
    this.chain.set(sha, next);
  }
}

export function baseRef(sha: string): string {
  return `refs/cadre/base/${sha}`;
}
