import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../worktree/git.js';

/** What `review_provider` found in the session's diff (`review` in the JSON result, issue 16 B7). */
export interface SessionReview {
  /** The `providers` alias the review ran on and its model; absent when there was nothing to review. */
  provider?: string;
  model?: string;
  /** Files the session changed, added or removed. */
  files: string[];
  findings: string;
}

/** A diff longer than this is cut with a marker: the reviewer's window is finite. */
const MAX_DIFF_CHARS = 200_000;

/**
 * The project's files as they were when the session started, kept in a private git directory outside
 * the project: the user's repository, index and stash are never touched, and a project that is not a git
 * repository is reviewed the same way. The project's `.gitignore` files apply.
 */
export class WorkTreeSnapshot {
  private constructor(
    private readonly root: string,
    private readonly gitDir: string,
    private readonly base: string,
  ) {}

  static async take(root: string): Promise<WorkTreeSnapshot> {
    const gitDir = mkdtempSync(join(tmpdir(), 'cadre-review-'));
    try {
      await git(root, ['init', '-q', '--bare', gitDir]);
      const base = await writeTree(root, gitDir);
      return new WorkTreeSnapshot(root, gitDir, base);
    } catch (error) {
      rmSync(gitDir, { recursive: true, force: true });
      throw error;
    }
  }

  /** The changes since the snapshot, as a unified diff, and the paths they touch. */
  async diff(): Promise<{ files: string[]; diff: string }> {
    const now = await writeTree(this.root, this.gitDir);
    const args = [`--git-dir=${this.gitDir}`, 'diff', '--no-color', '--no-ext-diff', this.base, now];
    const files = (await git(this.root, [...args.slice(0, -2), '--name-only', this.base, now]))
      .split('\n')
      .filter((f) => f !== '');
    const diff = await git(this.root, args);
    return {
      files,
      diff:
        diff.length > MAX_DIFF_CHARS
          ? `${diff.slice(0, MAX_DIFF_CHARS)}\n[… diff truncated at ${MAX_DIFF_CHARS} characters]`
          : diff,
    };
  }

  dispose(): void {
    rmSync(this.gitDir, { recursive: true, force: true });
  }
}

/** Every file of the work tree (ignored ones left out) into the private index, as one tree object. */
async function writeTree(root: string, gitDir: string): Promise<string> {
  const env = { GIT_INDEX_FILE: join(gitDir, 'cadre-index') };
  const base = [`--git-dir=${gitDir}`, `--work-tree=${root}`];
  await git(root, [...base, 'add', '-A', '--', '.'], env);
  return git(root, [...base, 'write-tree'], env);
}

/** The review as printed at the end of a session. */
export function reviewText(review: SessionReview): string {
  const by = review.provider ? ` by ${review.provider}` : '';
  return `session review${by} (${review.files.length} file(s) changed):\n${review.findings}`;
}

/** What the reviewer reads: the session's tasks and its diff. */
export function reviewRequest(tasks: readonly string[], diff: string): string {
  const asked = tasks.map((t) => `<task>\n${t}\n</task>`).join('\n');
  return `${asked}\n\n<diff>\n${diff}\n</diff>`;
}
