import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addWorktree, removeWorktree } from '../src/worktree/worktree.js';
import { median } from './cli-run.js';

/**
 * The cost an isolated writer adds (SPEC 9): making its worktree and branch from HEAD and removing both,
 * as cadre does for a clean writer with no commits, in a repository of a few hundred files.
 */
export async function benchWorktree(runs = 15): Promise<{ medianMs: number; runs: number }> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'cadre-bench-wt-')));
  const repo = join(base, 'repo');
  try {
    for (let dir = 0; dir < 20; dir++) {
      mkdirSync(join(repo, `dir${dir}`), { recursive: true });
      for (let file = 0; file < 20; file++)
        writeFileSync(
          join(repo, `dir${dir}`, `file${file}.ts`),
          `export const v${file} = ${dir};\n`.repeat(20),
        );
    }
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
    git('init', '-q');
    git('add', '-A');
    git('-c', 'user.name=bench', '-c', 'user.email=bench@x', 'commit', '-qm', 'files');
    const head = git('rev-parse', 'HEAD');
    const env = { ...process.env, CADRE_WORKTREE_DIR: join(base, 'worktrees') };
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      const worktree = await addWorktree(repo, head, env);
      await removeWorktree(repo, worktree);
      times.push(performance.now() - started);
    }
    return { medianMs: median(times), runs };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
