import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { GitError, git, gitRun } from './git.js';

export const TASK_BRANCH_PREFIX = 'cadre-task-';

export interface Worktree {
  /** `cadre-task-<uuid>`: the branch and the worktree directory's name. */
  name: string;
  branch: string;
  path: string;
  /** The commit it was made from. */
  base: string;
}

export interface WorktreeState {
  exists: boolean;
  /** Uncommitted or untracked changes. */
  dirty: boolean;
  /** Full shas of the commits on its branch since `base`, oldest first. */
  commits: string[];
  /** Files changed since `base`, committed or not. */
  changedFiles: string[];
}

/**
 * Where a writer's worktree goes (SPEC 9): under `$CADRE_WORKTREE_DIR` when set, else beside the
 * repository directory, named after its branch.
 */
export function worktreeLocation(repoTop: string, name: string, env: NodeJS.ProcessEnv): string {
  const dir = env.CADRE_WORKTREE_DIR;
  if (dir) {
    mkdirSync(resolve(dir), { recursive: true });
    return join(realpathSync(resolve(dir)), name);
  }
  return join(dirname(repoTop), name);
}

/** `git worktree add -b cadre-task-<uuid>` from HEAD (hooks off: nothing runs on checkout). */
export async function addWorktree(repoTop: string, head: string, env: NodeJS.ProcessEnv): Promise<Worktree> {
  const name = `${TASK_BRANCH_PREFIX}${randomUUID()}`;
  const path = worktreeLocation(repoTop, name, env);
  await git(repoTop, ['worktree', 'add', '-q', '-b', name, path, head]);
  return { name, branch: name, path: realpathSync(path), base: head };
}

function lines(text: string): string[] {
  return text === '' ? [] : text.split('\n');
}

/**
 * How cadre's own git finds a writer's worktree: through its admin dir in the shared store, never through
 * the worktree's `.git` file, which the writer could point at a git dir of its own whose config (a filter
 * driver) would run outside the sandbox when cadre reads the worktree's status.
 */
function trustedGitDir(commonDir: string, path: string): NodeJS.ProcessEnv {
  return { GIT_DIR: join(commonDir, 'worktrees', basename(path)), GIT_WORK_TREE: path };
}

/** The state of a writer's worktree and branch, for retention and `cadre tasks`. */
export async function inspectWorktree(
  repoTop: string,
  worktree: { path: string; branch: string; base: string },
  /** The shared store's directory, when the caller knows it (one git call fewer). */
  commonDir?: string,
): Promise<WorktreeState> {
  // A missing branch (discarded meanwhile) has no commits.
  const branchCommits = async () => {
    const range = `${worktree.base}..refs/heads/${worktree.branch}`;
    const listed = await gitRun(repoTop, ['rev-list', '--reverse', range]);
    return listed.code === 0 ? lines(listed.stdout.replace(/\n$/, '')) : [];
  };
  if (!existsSync(worktree.path))
    return { exists: false, dirty: false, commits: await branchCommits(), changedFiles: [] };
  const common = commonDir ?? resolve(repoTop, await git(repoTop, ['rev-parse', '--git-common-dir']));
  const env = trustedGitDir(common, worktree.path);
  // Independent questions, asked at once: the next writer may be waiting for the repository lock.
  const [commits, status, committed] = await Promise.all([
    branchCommits(),
    git(worktree.path, ['status', '--porcelain', '--untracked-files=all'], env).then(lines),
    git(worktree.path, ['diff', '--name-only', worktree.base, 'HEAD'], env).then(lines),
  ]);
  const uncommitted = status.map((line) => line.slice(3).replace(/^.* -> /, ''));
  return {
    exists: true,
    dirty: status.length > 0,
    commits,
    changedFiles: [...new Set([...committed, ...uncommitted])].sort(),
  };
}

/** Removes the worktree (whatever it holds) and deletes its branch; a part already gone is fine. */
export async function removeWorktree(
  repoTop: string,
  worktree: { path: string; branch: string },
): Promise<void> {
  // Two git calls in the usual case (each one's start stalls this process a moment): a removed
  // worktree leaves no record to prune, and a branch already gone is only looked up when -D fails.
  if (existsSync(worktree.path)) await git(repoTop, ['worktree', 'remove', '--force', worktree.path]);
  else await gitRun(repoTop, ['worktree', 'prune']);
  const deleted = await gitRun(repoTop, ['branch', '-D', worktree.branch]);
  if (deleted.code === 0) return;
  const branch = await gitRun(repoTop, ['rev-parse', '--verify', '-q', `refs/heads/${worktree.branch}`]);
  if (branch.code === 0) throw new GitError(['branch', '-D', worktree.branch], deleted);
}
