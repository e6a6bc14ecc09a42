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
  const [gitDir, commonDir] = (await git(topDir, ['rev-parse', '--git-dir', '--git-common-dir'])).split('\n');
  const headResult = await gitRun(topDir, ['rev-parse', '--verify', '-q', 'HEAD^{commit}']);
  const branch = await gitRun(topDir, ['symbolic-ref', '-q', '--short', 'HEAD']);
  const status = await git(topDir, ['status', '--porcelain', '--untracked-files=all']);
  const ownGitDir = absolute(topDir, gitDir);
  const operation = OPERATIONS.find(([file]) => existsSync(join(ownGitDir, file)))?.[1] ?? null;
  return {
    kind: 'git',
    top: topDir,
    gitDir: ownGitDir,
    commonDir: absolute(topDir, commonDir),
    head: headResult.code === 0 ? headResult.stdout.trim() : null,
    branch: branch.code === 0 ? branch.stdout.trim() : null,
    changes: status === '' ? [] : status.split('\n'),
    operation,
  };
}
