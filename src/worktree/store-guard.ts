import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { git } from './git.js';
import { TASK_BRANCH_PREFIX } from './worktree.js';

/**
 * What a writer could change in the git store it shares with the user's checkout: every ref, the HEAD
 * files of the other checkouts, the config and the hooks. Only its own branch may change (SPEC 9).
 */
export interface StoreSnapshot {
  refs: Map<string, string>;
  files: Map<string, string>;
  hooks: Set<string>;
}

async function readRefs(repoTop: string): Promise<Map<string, string>> {
  const out = await git(repoTop, ['for-each-ref', '--format=%(refname) %(objectname)']);
  const refs = new Map<string, string>();
  for (const line of out.split('\n').filter(Boolean)) {
    const space = line.indexOf(' ');
    refs.set(line.slice(0, space), line.slice(space + 1));
  }
  return refs;
}

/**
 * HEAD of the main checkout and of the user's own linked worktrees, plus the config file. Writers'
 * worktrees (`cadre-task-*`, this one's included) come and go while a writer runs and are not guarded.
 */
function guardedFiles(commonDir: string): string[] {
  const files = [join(commonDir, 'HEAD'), join(commonDir, 'config')];
  const linked = join(commonDir, 'worktrees');
  if (existsSync(linked)) {
    for (const name of readdirSync(linked)) {
      if (!name.startsWith(TASK_BRANCH_PREFIX)) files.push(join(linked, name, 'HEAD'));
    }
  }
  return files.filter((f) => existsSync(f));
}

function hookNames(commonDir: string): Set<string> {
  const dir = join(commonDir, 'hooks');
  return new Set(existsSync(dir) ? readdirSync(dir) : []);
}

export async function snapshotStore(repoTop: string, commonDir: string): Promise<StoreSnapshot> {
  const files = new Map<string, string>();
  for (const file of guardedFiles(commonDir)) files.set(file, readFileSync(file, 'utf8'));
  return { refs: await readRefs(repoTop), files, hooks: hookNames(commonDir) };
}

/**
 * Puts back everything in `before` that changed, except the refs `mayChange` accepts (the writer's own
 * branch, other live writers' branches), and says what it undid (empty when nothing). New refs are
 * deleted, moved or deleted refs restored, changed files rewritten, new hooks removed. Each note keeps the
 * value it undid, so nothing is lost if the change was the user's own.
 */
export async function restoreStore(
  repoTop: string,
  commonDir: string,
  before: StoreSnapshot,
  mayChange: (ref: string) => boolean,
): Promise<string[]> {
  const undone: string[] = [];
  const after = await readRefs(repoTop);
  for (const [ref, sha] of after) {
    if (mayChange(ref) || before.refs.get(ref) === sha) continue;
    const old = before.refs.get(ref);
    if (old === undefined) {
      await git(repoTop, ['update-ref', '-d', ref]);
      undone.push(`deleted ${ref} (at ${sha}), which appeared in the shared git store while the writer ran`);
    } else {
      await git(repoTop, ['update-ref', ref, old]);
      undone.push(`restored ${ref} to ${old}; it had been moved to ${sha} while the writer ran`);
    }
  }
  for (const [ref, sha] of before.refs) {
    if (mayChange(ref) || after.has(ref)) continue;
    await git(repoTop, ['update-ref', ref, sha]);
    undone.push(`restored ${ref} at ${sha}; it had been deleted while the writer ran`);
  }
  for (const [file, text] of before.files) {
    // A linked worktree removed meanwhile (`git worktree remove`) is gone with its HEAD: nothing to restore.
    if (!existsSync(dirname(file))) continue;
    const now = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    if (now === text) continue;
    writeFileSync(file, text);
    undone.push(`restored ${file}, which changed while the writer ran`);
  }
  for (const hook of hookNames(commonDir)) {
    if (before.hooks.has(hook)) continue;
    rmSync(join(commonDir, 'hooks', hook), { force: true, recursive: true });
    undone.push(`removed the hook ${join(commonDir, 'hooks', hook)}, which appeared while the writer ran`);
  }
  return undone;
}
