import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

function readLine(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * The git store(s) commands in `root` write to: `root/.git`, or for a linked worktree (`.git` is a file)
 * the repository's common directory, which holds that worktree's own directory too.
 */
export function gitStoresOf(root: string): string[] {
  const dotGit = join(root, '.git');
  let isDir: boolean;
  try {
    isDir = statSync(dotGit).isDirectory();
  } catch {
    return [];
  }
  if (isDir) return [dotGit];
  const pointer = readLine(dotGit)?.match(/^gitdir:\s*(.+)$/)?.[1];
  if (!pointer) return [];
  const gitDir = resolve(root, pointer);
  const common = readLine(join(gitDir, 'commondir'));
  return [common ? resolve(gitDir, common) : gitDir];
}
