import { join } from 'node:path';
import { buildSandboxPolicy } from '../sandbox/policy.js';
import { isConfining, type ShellSandbox, sandboxAt } from '../sandbox/sandbox.js';
import type { StagedRefs } from '../worktree/staged-refs.js';

/** Whether a confining sandbox really runs here: a probe that ran, not a binary on PATH (SPEC 9). */
export type SandboxAvailability = { ok: true } | { ok: false; reason: string };

/** The one place an isolated writer meets the OS sandbox (`src/sandbox/`). */
export interface WriterSandbox {
  /** Cached per process. */
  probe(): Promise<SandboxAvailability>;
  /**
   * The sandbox can keep the shared git store read-only and bind private copies of its branch refs over
   * it (bwrap): the writer's ref changes are staged (`rootedAt` gets `staged`) instead of guarded after
   * the fact. Otherwise the store is writable and cadre checks it when the writer ends.
   */
  readonly stagesRefs?: boolean;
  /**
   * The sandbox policy rooted at the worktree: the filesystem read-only except the worktree and a private
   * temp dir; with `staged`, of the shared git store only its objects, the worktree's admin dir and the
   * private ref copies are writable; without, the whole store (its `hooks/` and `config` read-only).
   */
  rootedAt(paths: { worktree: string; gitCommonDir: string; staged?: StagedRefs }): ShellSandbox;
}

/** The run's sandbox as isolated writers see it; none or an unconfined one makes writers fall back (SPEC 9). */
export function writerSandbox(sandbox: ShellSandbox | undefined): WriterSandbox {
  return {
    probe: async () =>
      sandbox && isConfining(sandbox)
        ? { ok: true }
        : { ok: false, reason: sandbox?.unconfinedReason ?? 'no sandbox was set up for this run' },
    stagesRefs: sandbox?.backend === 'bwrap',
    rootedAt: ({ worktree, gitCommonDir, staged }) => {
      if (!sandbox || !isConfining(sandbox)) throw new Error('no confining sandbox for an isolated writer');
      if (!staged || sandbox.backend !== 'bwrap')
        return sandboxAt(sandbox, worktree, { gitStores: [gitCommonDir] });
      const policy = buildSandboxPolicy(sandbox.settings, worktree, {
        writable: [join(gitCommonDir, 'objects'), staged.adminDir],
        // Visible (a store under the private /tmp would be hidden otherwise) and read-only.
        readOnly: [gitCommonDir],
        mounts: [
          { source: staged.heads.copy, target: staged.heads.real },
          { source: staged.logs.copy, target: staged.logs.real },
        ],
      });
      return { ...sandbox, policy };
    },
  };
}
