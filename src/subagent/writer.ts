import type { ShellSandbox } from '../sandbox/sandbox.js';
import { git, withRepoLock } from '../worktree/git.js';
import { dropPrivateObjects, importObjects, privateObjectsDir } from '../worktree/private-objects.js';
import { inspectRepo, type RepoState, refreshRepo } from '../worktree/repo.js';
import { adminDirOf, stageRefs, strayRefChanges } from '../worktree/staged-refs.js';
import {
  addWorktree,
  inspectWorktree,
  removeWorktree,
  type Worktree,
  type WorktreeState,
} from '../worktree/worktree.js';
import { followWriter, type WriterBranch } from '../worktree/writer-branch.js';
import type { OwnWrites } from './own-writes.js';
import writerPreambleTemplate from './prompts/writer.txt';
import type { WriterSandbox } from './writer-sandbox.js';

export type WriteIsolation = 'auto' | 'worktree' | 'serialize';

export const DIRTY_PARENT_MESSAGE =
  'cannot run a read-write subagent in a dirty parent checkout: commit or stash first';

/** Where a writer will run, decided at dispatch. */
export type WriterPlan =
  | { isolation: 'serialize'; repo: RepoState }
  | { isolation: 'worktree'; repo: Extract<RepoState, { kind: 'git' }> };

export type PlanResult = { ok: true; plan: WriterPlan; warning?: string } | { ok: false; error: string };

/**
 * SPEC 9: `serialize` always uses the parent checkout; `worktree` needs a git repository with a commit and
 * a confining sandbox, else the dispatch fails with the reason; `auto` takes a worktree when it can and
 * otherwise falls back to the serialized parent checkout with a warning.
 */
export async function planWriter(
  mode: WriteIsolation,
  projectRoot: string,
  sandbox: WriterSandbox,
): Promise<PlanResult> {
  const repo = await inspectRepo(projectRoot);
  if (mode === 'serialize') return { ok: true, plan: { isolation: 'serialize', repo } };
  let reason: string | undefined;
  if (repo.kind === 'none') reason = `${repo.reason}, so no worktree can be made`;
  else if (repo.head === null)
    reason = `the repository at ${repo.top} has no commits yet, so no worktree can be made`;
  else {
    const probe = await sandbox.probe();
    if (!probe.ok)
      reason = `no confining sandbox (${probe.reason}), and a worktree without one is no isolation`;
  }
  if (reason === undefined && repo.kind === 'git') return { ok: true, plan: { isolation: 'worktree', repo } };
  if (mode === 'worktree')
    return { ok: false, error: `subagent_write_isolation "worktree": cannot isolate the writer: ${reason}` };
  return {
    ok: true,
    plan: { isolation: 'serialize', repo },
    warning: `read-write subagents run serialized in the parent checkout: ${reason}`,
  };
}

/** The checkout a writer was given and what must happen when it ends. */
export interface PreparedWriter {
  root: string;
  /** The writer's own sandbox, rooted at its worktree (absent: the run's sandbox, rooted at the project). */
  sandbox?: ShellSandbox;
  /**
   * Its worktree, and its branch as cadre keeps it: the writer's git writes objects and moves refs only
   * in its own view; cadre moves the real branch (`follow`).
   */
  worktree?: Worktree & { repoTop: string; commonDir: string; kept: WriterBranch };
  /**
   * Moves the real branch to the writer's latest commit, its objects brought home (after each of its
   * commands: a crash leaves the branch where its work is). Never throws; the writer's end reports.
   */
  follow?: () => Promise<void>;
  /** Added to the child's system prompt (isolated writers only). */
  preamble?: string;
  /** A serialized writer in a git checkout (top `top`): what it writes is recorded in `own`. */
  ownWrites?: { own: OwnWrites; top: string };
}

/**
 * A dirty parent is refused in every mode (a worktree from HEAD would lack the user's edits). A
 * serialized writer is not refused for what this session's earlier serialized writers left, as they
 * left it (`own`); anything else uncommitted still refuses it.
 */
async function dirtyRefusal(repo: RepoState, own: OwnWrites | undefined): Promise<string | undefined> {
  if (repo.kind !== 'git' || repo.changes.length === 0) return undefined;
  if (own && (await own.unexplained(repo.top)).length === 0) return undefined;
  return DIRTY_PARENT_MESSAGE;
}

/**
 * Right before a writer runs: checks the parent is clean (again: it may have changed while the task
 * queued), then makes the worktree and the sandbox rooted at it. Throws with the reason on failure.
 */
export async function prepareWriter(
  plan: WriterPlan,
  projectRoot: string,
  sandbox: WriterSandbox,
  env: NodeJS.ProcessEnv,
  /** What this session's serialized writers wrote (serialized plans only). */
  own?: OwnWrites,
): Promise<PreparedWriter> {
  const repo = plan.repo.kind === 'git' ? await refreshRepo(plan.repo) : plan.repo;
  const serialized = plan.isolation === 'serialize';
  const dirty = await dirtyRefusal(repo, serialized ? own : undefined);
  if (dirty) throw new Error(dirty);
  if (serialized || repo.kind !== 'git' || repo.head === null)
    return { root: projectRoot, ownWrites: own && repo.kind === 'git' ? { own, top: repo.top } : undefined };
  const { head, commonDir } = repo;
  const { worktree, kept } = await withRepoLock(commonDir, async () => {
    const made = await addWorktree(repo.top, head, env);
    // Without private ref copies (a sandbox that cannot bind them), the writer's commits move only its
    // worktree's own HEAD: detached, in its admin dir.
    if (!sandbox.stagesRefs) await git(made.path, ['checkout', '-q', '--detach']);
    const adminDir = adminDirOf(made.path);
    const branch: WriterBranch = {
      repoTop: repo.top,
      commonDir,
      branch: made.branch,
      base: head,
      adminDir,
      privateObjects: privateObjectsDir(adminDir),
      staged: sandbox.stagesRefs ? stageRefs(commonDir, made) : undefined,
      synced: head,
    };
    return { worktree: made, kept: branch };
  });
  return {
    root: worktree.path,
    sandbox: sandbox.rootedAt({ worktree: worktree.path, gitCommonDir: commonDir, writer: kept }),
    worktree: { ...worktree, repoTop: repo.top, commonDir, kept },
    follow: () => withRepoLock(commonDir, () => followWriter(kept)).catch(() => undefined),
    preamble: writerPreambleTemplate.replaceAll('{{branch}}', worktree.branch).trim(),
  };
}

export interface FinishedWriter {
  state: WorktreeState;
  removed: boolean;
  /** What the writer did in its own view of the store that cadre did not apply, or could not carry over. */
  blocked: string[];
}

/**
 * After a writer (completed, failed or cancelled): brings its objects home and moves its branch to its
 * last commit, reports what else it tried to change in its view of the store (nothing of the shared
 * store is ever put back: the user's own commits made meanwhile stay); then keeps a dirty worktree or
 * one with commits for salvage and removes a clean one with no commits, branch included (SPEC 9).
 */
export async function finishWriter(
  worktree: NonNullable<PreparedWriter['worktree']>,
): Promise<FinishedWriter> {
  const { kept } = worktree;
  return withRepoLock(worktree.commonDir, async () => {
    const blocked: string[] = [];
    try {
      await followWriter(kept);
      // Everything else it wrote (its index's blobs): a retained worktree is a plain one again.
      await importObjects(kept.repoTop, kept.commonDir, kept.privateObjects);
      dropPrivateObjects(kept.privateObjects);
    } catch (error) {
      blocked.push(`its commits could not be carried onto ${kept.branch}: ${(error as Error).message}`);
    }
    if (kept.staged) blocked.push(...strayRefChanges(kept.staged));
    const state = await inspectWorktree(worktree.repoTop, worktree, worktree.commonDir);
    const removed = !state.dirty && state.commits.length === 0;
    if (removed) await removeWorktree(worktree.repoTop, worktree);
    return { state, removed, blocked };
  });
}
