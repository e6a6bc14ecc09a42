import type { WrapShell } from '../tool/shell-process.js';

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
  wrapper(paths: { worktree: string; gitCommonDir: string }): WrapShell;
}

/** Until the sandbox module lands there is no confining sandbox: writers fall back as SPEC 9 says. */
export const noWriterSandbox: WriterSandbox = {
  probe: async () => ({ ok: false, reason: 'this build of cadre has no sandbox backend' }),
  wrapper: () => {
    throw new Error('no sandbox backend');
  },
};
