import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/**
 * Prevention rather than repair of the shared git store (SPEC 9: only the writer's own
 * `refs/heads/cadre-task-<uuid>` may change). Inside its sandbox an isolated writer sees the store
 * read-only, except its own worktree's admin dir (its private objects inside), and private copies of
 * `refs/heads` and `logs/refs/heads` bound over the real ones: a commit in the worktree moves its branch in the copy. As
 * the writer goes (after each of its commands) and when it ends, cadre carries its own branch over to the
 * real store (`followWriter`); when it ends, every other change of the copy is reported as an attempt
 * never applied. Nothing of the real store is ever put back, so the user's own commits stay as they are.
 */
export interface StagedRefs {
  branch: string;
  /** The worktree's admin dir in the common git dir (`worktrees/<name>`): writable for the writer. */
  adminDir: string;
  /** Private copies (inside the admin dir) and the real directories they stand in for. */
  heads: { copy: string; real: string };
  logs: { copy: string; real: string };
  /** The copied loose refs (path under refs/heads → content), to tell what the writer changed. */
  initial: Map<string, string>;
}

/** The admin dir a linked worktree's `.git` file points to. */
export function adminDirOf(worktreePath: string): string {
  const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(join(worktreePath, '.git'), 'utf8'))?.[1];
  if (!pointer) throw new Error(`${worktreePath}/.git does not name the worktree's git dir`);
  return resolve(worktreePath, pointer.trim());
}

/** Every loose ref file under `dir` (lock files left out), by path relative to it. */
function looseRefs(dir: string): Map<string, string> {
  const refs = new Map<string, string>();
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (!entry.name.endsWith('.lock'))
        refs.set(relative(dir, path), readFileSync(path, 'utf8').trim());
    }
  };
  if (existsSync(dir)) walk(dir);
  return refs;
}

/** Makes the private copies for a writer's worktree (cadre's own process, before the writer runs). */
export function stageRefs(commonDir: string, worktree: { path: string; branch: string }): StagedRefs {
  const adminDir = adminDirOf(worktree.path);
  const heads = { copy: join(adminDir, 'cadre-refs-heads'), real: join(commonDir, 'refs', 'heads') };
  const logs = { copy: join(adminDir, 'cadre-logs-heads'), real: join(commonDir, 'logs', 'refs', 'heads') };
  for (const dir of [heads.copy, logs.copy, logs.real]) mkdirSync(dir, { recursive: true });
  cpSync(heads.real, heads.copy, { recursive: true, filter: (source) => !source.endsWith('.lock') });
  const ownLog = join(logs.real, worktree.branch);
  if (existsSync(ownLog) && statSync(ownLog).isFile()) cpSync(ownLog, join(logs.copy, worktree.branch));
  return { branch: worktree.branch, adminDir, heads, logs, initial: looseRefs(heads.copy) };
}

export const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** Where the writer's copy has its own branch now: a commit, or what it did to the branch instead. */
export function stagedTip(staged: StagedRefs): { commit: string } | { attempt: string } {
  // One file, not the whole copy: this runs after every command of every writer.
  let own: string | undefined;
  try {
    own = readFileSync(join(staged.heads.copy, staged.branch), 'utf8').trim();
  } catch {
    own = undefined;
  }
  if (own !== undefined && OBJECT_ID.test(own)) return { commit: own };
  return { attempt: `refs/heads/${staged.branch} was ${own === undefined ? 'deleted' : `set to "${own}"`}` };
}

/**
 * After the writer: one line per change it made in its copy to a ref other than its own branch (none of
 * them is applied), and the copies removed. Its own branch is carried over by `followWriter`.
 */
export function strayRefChanges(staged: StagedRefs): string[] {
  const after = looseRefs(staged.heads.copy);
  const attempts: string[] = [];
  const tip = stagedTip(staged);
  if ('attempt' in tip) attempts.push(tip.attempt);
  for (const [ref, value] of after) {
    if (ref === staged.branch || staged.initial.get(ref) === value) continue;
    attempts.push(
      staged.initial.has(ref)
        ? `refs/heads/${ref} was moved to ${value}`
        : `refs/heads/${ref} was created at ${value}`,
    );
  }
  for (const ref of staged.initial.keys())
    if (ref !== staged.branch && !after.has(ref)) attempts.push(`refs/heads/${ref} was deleted`);
  rmSync(staged.heads.copy, { recursive: true, force: true });
  rmSync(staged.logs.copy, { recursive: true, force: true });
  return attempts.map((a) => `${a} in the writer's view of the shared git store; not applied`);
}
