import type { ShellSandbox } from '../sandbox/sandbox.js';
import { withRepoLock } from '../worktree/git.js';
import { inspectRepo, type RepoState } from '../worktree/repo.js';
import { carryOver, type StagedRefs, stageRefs } from '../worktree/staged-refs.js';
import { restoreStore, type StoreSnapshot, snapshotStore } from '../worktree/store-guard.js';
import {
  addWorktree,
  inspectWorktree,
  removeWorktree,
  TASK_BRANCH_PREFIX,
  type Worktree,
  type WorktreeState,
} from '../worktree/worktree.js';
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
   * Its worktree, and how the shared store is kept: `staged` (the sandbox lets only private ref copies
   * change; the writer's own branch is carried over) or `snapshot` (checked and put back afterwards).
   */
  worktree?: Worktree & { repoTop: string; commonDir: string } & (
      | { staged: StagedRefs; snapshot?: undefined }
      | { snapshot: StoreSnapshot; staged?: undefined }
    );
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
  const repo = plan.repo.kind === 'git' ? await inspectRepo(projectRoot) : plan.repo;
  const serialized = plan.isolation === 'serialize';
  const dirty = await dirtyRefusal(repo, serialized ? own : undefined);
  if (dirty) throw new Error(dirty);
  if (serialized || repo.kind !== 'git' || repo.head === null)
    return { root: projectRoot, ownWrites: own && repo.kind === 'git' ? { own, top: repo.top } : undefined };
  const head = repo.head;
  const { worktree, kept } = await withRepoLock(repo.commonDir, async () => {
    const made = await addWorktree(repo.top, head, env);
    return {
      worktree: made,
      kept: sandbox.stagesRefs
        ? { staged: stageRefs(repo.commonDir, made) }
        : { snapshot: await snapshotStore(repo.top, repo.commonDir) },
    };
  });
  return {
    root: worktree.path,
    sandbox: sandbox.rootedAt({ worktree: worktree.path, gitCommonDir: repo.commonDir, staged: kept.staged }),
    worktree: { ...worktree, repoTop: repo.top, commonDir: repo.commonDir, ...kept },
    preamble: writerPreambleTemplate.replace('{{branch}}', worktree.branch).trim(),
  };
}

export interface FinishedWriter {
  state: WorktreeState;
  removed: boolean;
  /** What cadre undid in the shared git store after the writer (a snapshot-guarded writer). */
  undone: string[];
  /** What the writer changed in its private view of the store and cadre did not apply (a staged one). */
  blocked: string[];
}

/**
 * After a writer (completed, failed or cancelled): carries its own branch over from its private ref copies
 * and reports what else it tried to change (staged), or puts back anything it changed in the shared store
 * besides task branches (snapshot); then keeps a dirty worktree or one with commits for salvage and
 * removes a clean one with no commits, branch included (SPEC 9).
 */
export async function finishWriter(
  worktree: NonNullable<PreparedWriter['worktree']>,
): Promise<FinishedWriter> {
  return withRepoLock(worktree.commonDir, async () => {
    const blocked = worktree.staged ? await carryOver(worktree.repoTop, worktree.staged) : [];
    // Any writer's branch may come and go meanwhile (concurrent writers); every other ref is the user's.
    const undone = worktree.snapshot
      ? await restoreStore(worktree.repoTop, worktree.commonDir, worktree.snapshot, (ref) =>
          ref.startsWith(`refs/heads/${TASK_BRANCH_PREFIX}`),
        )
      : [];
    const state = await inspectWorktree(worktree.repoTop, worktree);
    const removed = !state.dirty && state.commits.length === 0;
    if (removed) await removeWorktree(worktree.repoTop, worktree);
    return { state, removed, undone, blocked };
  });
}
