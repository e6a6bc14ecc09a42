import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { git, gitRun } from './git.js';

/** What cadre needs to know of the repository a directory belongs to. */
export type RepoState =
  | { kind: 'none'; reason: string }
  | {
      kind: 'git';
      /** The checkout's top directory. */
      top: string;
      /** This checkout's git dir (differs from `commonDir` in a linked worktree). */
      gitDir: string;
      /** The shared store: objects, refs, hooks, config. */
      commonDir: string;
      /** HEAD's commit; null in a repository with no commits yet. */
      head: string | null;
      /** The current branch's short name; null when HEAD is detached. */
      branch: string | null;
      /** `git status --porcelain` lines: uncommitted and untracked changes. */
      changes: string[];
      /** A merge, rebase, cherry-pick or revert in progress, by name. */
      operation: string | null;
    };

const OPERATIONS: readonly [string, string][] = [
  ['MERGE_HEAD', 'merge'],
  ['rebase-merge', 'rebase'],
  ['rebase-apply', 'rebase'],
  ['CHERRY_PICK_HEAD', 'cherry-pick'],
  ['REVERT_HEAD', 'revert'],
];

function absolute(base: string, path: string): string {
  return realpathSync(isAbsolute(path) ? path : resolve(base, path));
}

export async function inspectRepo(dir: string): Promise<RepoState> {
  const top = await gitRun(dir, ['rev-parse', '--show-toplevel']);
  if (top.code !== 0) return { kind: 'none', reason: `${dir} is not inside a git repository` };
  const topDir = realpathSync(top.stdout.trim());
  // Independent questions, asked at once: a writer's dispatch waits for all of them.
  const [dirs, branch, moving] = await Promise.all([
    git(topDir, ['rev-parse', '--git-dir', '--git-common-dir']),
    gitRun(topDir, ['symbolic-ref', '-q', '--short', 'HEAD']),
    headAndChanges(topDir),
  ]);
  const [gitDir, commonDir] = dirs.split('\n');
  const ownGitDir = absolute(topDir, gitDir);
  const operation = OPERATIONS.find(([file]) => existsSync(join(ownGitDir, file)))?.[1] ?? null;
  return {
    kind: 'git',
    top: topDir,
    gitDir: ownGitDir,
    commonDir: absolute(topDir, commonDir),
    branch: branch.code === 0 ? branch.stdout.trim() : null,
    operation,
    ...moving,
  };
}

/** What changes while a session runs: HEAD's commit and the uncommitted changes. */
async function headAndChanges(top: string): Promise<{ head: string | null; changes: string[] }> {
  const [head, status] = await Promise.all([
    gitRun(top, ['rev-parse', '--verify', '-q', 'HEAD^{commit}']),
    git(top, ['status', '--porcelain', '--untracked-files=all']),
  ]);
  return {
    head: head.code === 0 ? head.stdout.trim() : null,
    changes: status === '' ? [] : status.split('\n'),
  };
}

/** A repository inspected before, with HEAD and its uncommitted changes read again (two git calls). */
export async function refreshRepo(repo: Extract<RepoState, { kind: 'git' }>): Promise<RepoState> {
  return { ...repo, ...(await headAndChanges(repo.top)) };
}
