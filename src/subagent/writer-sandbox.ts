import { join } from 'node:path';
import { buildSandboxPolicy, type SandboxPolicy, type SandboxSettings } from '../sandbox/policy.js';
import { isConfining, type ShellSandbox } from '../sandbox/sandbox.js';
import { privateObjectsEnv } from '../worktree/private-objects.js';
import type { WriterBranch } from '../worktree/writer-branch.js';

/** Whether a confining sandbox really runs here: a probe that ran, not a binary on PATH (SPEC 9). */
export type SandboxAvailability = { ok: true } | { ok: false; reason: string };

/** The one place an isolated writer meets the OS sandbox (`src/sandbox/`). */
export interface WriterSandbox {
  /** Cached per process. */
  probe(): Promise<SandboxAvailability>;
  /**
   * The sandbox can bind private copies of the store's branch refs over the real ones (bwrap): the
   * writer's branch moves in its copy. Otherwise its worktree's HEAD is detached and moves alone.
   */
  readonly stagesRefs?: boolean;
  /**
   * The sandbox policy rooted at the worktree: the filesystem read-only except the worktree, a private
   * temp dir and, of the shared git store, only the worktree's admin dir (its HEAD, index and private
   * objects; the files tying it to the store stay read-only) and, staged, the private ref copies. Its git
   * writes new objects privately and reads the shared ones as an alternate.
   */
  rootedAt(paths: { worktree: string; gitCommonDir: string; writer: WriterBranch }): ShellSandbox;
}

/** The run's sandbox as isolated writers see it; none or an unconfined one makes writers fall back (SPEC 9). */
export function writerSandbox(sandbox: ShellSandbox | undefined): WriterSandbox {
  return {
    probe: async () =>
      sandbox && isConfining(sandbox)
        ? { ok: true }
        : { ok: false, reason: sandbox?.unconfinedReason ?? 'no sandbox was set up for this run' },
    stagesRefs: sandbox?.backend === 'bwrap',
    rootedAt: ({ worktree, gitCommonDir, writer }) => {
      if (!sandbox || !isConfining(sandbox)) throw new Error('no confining sandbox for an isolated writer');
      return { ...sandbox, policy: writerPolicy(sandbox.settings, worktree, gitCommonDir, writer) };
    },
  };
}

/** The policy of `rootedAt`, for any backend (only bwrap is given the ref copies to bind). */
export function writerPolicy(
  settings: SandboxSettings,
  worktree: string,
  gitCommonDir: string,
  writer: WriterBranch,
): SandboxPolicy {
  const { staged, adminDir } = writer;
  return buildSandboxPolicy(settings, worktree, {
    writable: [adminDir],
    // The store visible (one under the private /tmp would be hidden otherwise) and read-only; the admin
    // dir's pointers too: rewritten, they would send cadre's own git in the worktree to another store.
    readOnly: [...(staged ? [gitCommonDir] : []), join(adminDir, 'commondir'), join(adminDir, 'gitdir')],
    mounts: staged
      ? [
          { source: staged.heads.copy, target: staged.heads.real },
          { source: staged.logs.copy, target: staged.logs.real },
        ]
      : [],
    setEnv: privateObjectsEnv(gitCommonDir, writer.privateObjects),
  });
}
