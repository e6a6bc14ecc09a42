import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { git } from './git.js';
import { importObjects } from './private-objects.js';
import { OBJECT_ID, type StagedRefs, stagedTip } from './staged-refs.js';

/**
 * An isolated writer's branch as cadre keeps it (SPEC 9: only `refs/heads/cadre-task-<uuid>` may change in
 * the shared store, and only cadre changes it). The writer's git writes objects privately and moves its
 * branch only in its own view: in private ref copies (`staged`, bwrap), or, where a sandbox cannot bind
 * them, as its worktree's own detached HEAD in its admin dir. `followWriter` brings the objects home and
 * moves the real branch to the writer's commit, after each command and when it ends, so a crash leaves
 * the branch where the writer's work is.
 */
export interface WriterBranch {
  repoTop: string;
  commonDir: string;
  branch: string;
  base: string;
  /** The worktree's admin dir (`<common>/worktrees/<name>`): its HEAD, index, private objects. */
  adminDir: string;
  privateObjects: string;
  staged?: StagedRefs;
  /** The commit cadre last moved the real branch to (the base at first). */
  synced: string;
}

/** The writer's commit as its own view has it; undefined when there is nothing to follow. */
function writerTip(writer: WriterBranch): string | undefined {
  if (writer.staged) {
    const tip = stagedTip(writer.staged);
    return 'commit' in tip ? tip.commit : undefined;
  }
  // A detached HEAD is the writer's commit; a HEAD on a branch (an unconfined writer checked one out)
  // moved that branch itself.
  const head = readFileSync(join(writer.adminDir, 'HEAD'), 'utf8').trim();
  return OBJECT_ID.test(head) ? head : undefined;
}

/**
 * Moves the real branch to the writer's commit, its objects brought home and checked complete first.
 * Call under the repository lock. Throws when they cannot be (the branch then stays where it was).
 */
export async function followWriter(writer: WriterBranch): Promise<void> {
  const tip = writerTip(writer);
  if (tip === undefined || tip === writer.synced) return;
  await importObjects(writer.repoTop, writer.commonDir, writer.privateObjects, {
    commit: tip,
    known: [...new Set([writer.synced, writer.base])],
  });
  await git(writer.repoTop, ['update-ref', `refs/heads/${writer.branch}`, tip]);
  writer.synced = tip;
}
