import { commitEnv, git, gitRun, withRepoLock } from './git.js';
import { inspectRepo } from './repo.js';
import { inspectWorktree, removeWorktree } from './worktree.js';

/** A retained writer's branch and worktree, as the session store recorded them. */
export interface RetainedWriter {
  taskId: string;
  description: string;
  branch: string;
  path: string;
  base: string;
  /** The checkout the worktree was made from. */
  repoRoot: string;
}

export class MergeRefused extends Error {
  override name = 'MergeRefused';
}

/** The checkout `cwd` must be clean, not mid-merge/rebase, and of the same repository as the task. */
async function checkTarget(cwd: string, writer: RetainedWriter) {
  const target = await inspectRepo(cwd);
  if (target.kind === 'none')
    throw new MergeRefused(`${target.reason}; run cadre tasks merge in the repository`);
  const origin = await inspectRepo(writer.repoRoot).catch(() => undefined);
  if (origin?.kind === 'git' && origin.commonDir !== target.commonDir)
    throw new MergeRefused(
      `task ${writer.taskId} belongs to the repository at ${writer.repoRoot}, not ${target.top}`,
    );
  if (target.operation)
    throw new MergeRefused(`a ${target.operation} is in progress in ${target.top}; finish or abort it first`);
  if (target.changes.length > 0)
    throw new MergeRefused(`${target.top} has uncommitted changes; commit or stash them first`);
  if (target.head === null) throw new MergeRefused(`${target.top} has no commits to merge into`);
  return target;
}

/**
 * `cadre tasks merge` (SPEC 9): refuses before touching anything (dirty or mid-operation checkout, a
 * worktree with uncommitted work, a conflict found by a dry merge), then merges the branch with
 * `--no-ff` and a message naming the task, and removes the worktree and branch. Hooks never run.
 */
export async function mergeRetained(
  cwd: string,
  writer: RetainedWriter,
): Promise<{ sha: string; commits: number; into: string }> {
  const target = await checkTarget(cwd, writer);
  return withRepoLock(target.commonDir, () => mergeChecked(target.top, target.branch, writer));
}

async function mergeChecked(
  top: string,
  branch: string | null,
  writer: RetainedWriter,
): Promise<{ sha: string; commits: number; into: string }> {
  const target = { top, branch };
  const state = await inspectWorktree(target.top, writer);
  if (state.dirty)
    throw new MergeRefused(
      `the worktree ${writer.path} has uncommitted changes; commit them there (or discard the task) before merging`,
    );
  if (state.commits.length === 0) throw new MergeRefused(`branch ${writer.branch} has no commits to merge`);
  const dry = await gitRun(target.top, [
    'merge-tree',
    '--write-tree',
    '--name-only',
    '--no-messages',
    'HEAD',
    writer.branch,
  ]);
  if (dry.code === 1) {
    const files = dry.stdout.split('\n').slice(1).filter(Boolean);
    throw new MergeRefused(
      `merging ${writer.branch} would conflict in ${files.join(', ') || 'some files'}; nothing was changed. Resolve it by hand: git merge ${writer.branch}`,
    );
  }
  const message = `Merge cadre task ${writer.taskId}: ${writer.description.replace(/\s+/g, ' ').trim()}`;
  const merged = await gitRun(
    target.top,
    ['merge', '--no-ff', '--no-edit', '-m', message, writer.branch],
    await commitEnv(target.top),
  );
  if (merged.code !== 0) {
    await gitRun(target.top, ['merge', '--abort']);
    throw new MergeRefused(
      `git merge ${writer.branch} failed and was aborted; nothing was changed: ${(merged.stderr || merged.stdout).trim()}`,
    );
  }
  const sha = await git(target.top, ['rev-parse', 'HEAD']);
  await removeWorktree(target.top, writer);
  return { sha, commits: state.commits.length, into: target.branch ?? 'HEAD (detached)' };
}

/** `cadre tasks discard`: the worktree (with whatever it holds) and the branch are removed. */
export async function discardRetained(writer: RetainedWriter): Promise<void> {
  const repo = await inspectRepo(writer.repoRoot).catch(() => undefined);
  if (repo?.kind !== 'git') return removeWorktree(writer.repoRoot, writer);
  await withRepoLock(repo.commonDir, () => removeWorktree(writer.repoRoot, writer));
}
