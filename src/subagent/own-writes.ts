import { createHash } from 'node:crypto';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AnyTool } from '../tool/tool.js';
import { gitRun } from '../worktree/git.js';
import { PATH_BOUND_WRITERS, widensClaim } from './claimed-tools.js';

/** What a path holds: a content hash, `dir` for a directory, null when nothing is there. */
function fingerprint(absolute: string): string | null {
  try {
    if (statSync(absolute).isDirectory()) return 'dir';
    return createHash('sha1').update(readFileSync(absolute)).digest('hex');
  } catch {
    return null;
  }
}

/**
 * The uncommitted paths of a checkout (`git status -z`, untracked files listed one by one, both sides
 * of a rename), relative to its top; empty outside a repository.
 */
export async function uncommittedPaths(top: string): Promise<string[]> {
  const status = await gitRun(top, ['status', '--porcelain', '-z', '--untracked-files=all']);
  if (status.code !== 0) return [];
  const fields = status.stdout.split('\0').filter(Boolean);
  const paths: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i];
    paths.push(entry.slice(3));
    // A rename or copy names its source in the next field.
    if (entry[0] === 'R' || entry[0] === 'C') paths.push(fields[++i]);
  }
  return paths;
}

/**
 * What this session's own serialized writers left uncommitted in the parent checkout (SPEC 9): a
 * writer after them must not fail the dirty-parent check on their work, yet the user's own edits must
 * still fail it. Each file a writer wrote is kept, by absolute path, with what it held right after; a
 * file still holding exactly that is explained by the writers, one changed since (by the parent, the
 * user, anything) is not.
 */
export class OwnWrites {
  private readonly written = new Map<string, string | null>();

  /** Records absolute `paths` as a writer left them. */
  record(paths: readonly string[]): void {
    for (const path of paths) this.written.set(path, fingerprint(path));
  }

  /** Whether an uncommitted file (absolute) is a writer's, untouched since. */
  explains(path: string): boolean {
    const left = this.written.get(path);
    return left !== undefined && fingerprint(path) === left;
  }

  /** The uncommitted paths of the checkout at `top` (relative to it) that no writer of this session explains. */
  async unexplained(top: string): Promise<string[]> {
    const paths = await uncommittedPaths(top);
    return paths.filter((path) => !this.explains(join(top, path)));
  }

  /**
   * Runs a write whose paths are not known beforehand (`bash`, an MCP write) in the checkout at `top`,
   * while the writer holds all of it: every uncommitted file the write changed or created is its own.
   */
  async around<T>(top: string, write: () => Promise<T>): Promise<T> {
    const dirty = async () => (await uncommittedPaths(top)).map((path) => join(top, path));
    const before = new Map((await dirty()).map((path) => [path, fingerprint(path)]));
    try {
      return await write();
    } finally {
      const after = await dirty();
      this.record(after.filter((path) => !before.has(path) || before.get(path) !== fingerprint(path)));
    }
  }
}

/**
 * A serialized writer's tools (in the checkout whose top is `top`), recording what they write in `own`:
 * path-bound writes their named paths, a `bash` call or an MCP write whatever it changed (they run
 * holding the whole checkout, SPEC 10).
 */
export function recordingOwnWrites(
  tools: readonly AnyTool[],
  own: OwnWrites,
  root: string,
  top: string,
): AnyTool[] {
  const base = realpathSync(root);
  return tools.map((tool) => {
    if (PATH_BOUND_WRITERS.has(tool.name))
      return {
        ...tool,
        async execute(input, ctx) {
          try {
            return await tool.execute(input, ctx);
          } finally {
            const subject = tool.subject(input);
            const paths = subject.kind === 'path' ? subject.paths : [];
            own.record(paths.map((path) => resolve(base, path)));
          }
        },
      };
    if (widensClaim(tool))
      return { ...tool, execute: (input, ctx) => own.around(top, () => tool.execute(input, ctx)) };
    return tool;
  });
}
