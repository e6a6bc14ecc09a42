import { isConfining, type ShellSandbox, sandboxAt } from '../sandbox/sandbox.js';

/** Whether a confining sandbox really runs here: a probe that ran, not a binary on PATH (SPEC 9). */
export type SandboxAvailability = { ok: true } | { ok: false; reason: string };

/** The one place an isolated writer meets the OS sandbox (`src/sandbox/`). */
export interface WriterSandbox {
  /** Cached per process. */
  probe(): Promise<SandboxAvailability>;
  /**
   * The sandbox policy rooted at the worktree: the filesystem read-only except the worktree, the shared
   * git store (its `hooks/` and `config` read-only) and a private temp dir.
   */
  rootedAt(paths: { worktree: string; gitCommonDir: string }): ShellSandbox;
}

/** The run's sandbox as isolated writers see it; none or an unconfined one makes writers fall back (SPEC 9). */
export function writerSandbox(sandbox: ShellSandbox | undefined): WriterSandbox {
  return {
    probe: async () =>
      sandbox && isConfining(sandbox)
        ? { ok: true }
        : { ok: false, reason: sandbox?.unconfinedReason ?? 'no sandbox was set up for this run' },
    rootedAt: ({ worktree, gitCommonDir }) => {
      if (!sandbox || !isConfining(sandbox)) throw new Error('no confining sandbox for an isolated writer');
      return sandboxAt(sandbox, worktree, { gitStores: [gitCommonDir] });
    },
  };
}
