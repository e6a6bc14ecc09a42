import { execFile } from 'node:child_process';
import { lockRepo } from './repo-lock.js';

/**
 * Every git command cadre itself runs carries these: nothing a writer committed or configured (a hook, a
 * `core.hooksPath` pointing into the tree, an fsmonitor program) runs outside the sandbox (SPEC 9).
 */
export const HARDENING = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false'] as const;

/** Identity for commits cadre makes itself (merges), used only when the user has none configured. */
const FALLBACK_IDENTITY = { GIT_AUTHOR_NAME: 'cadre', GIT_AUTHOR_EMAIL: 'cadre@localhost' };

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export class GitError extends Error {
  override name = 'GitError';
  constructor(
    readonly args: readonly string[],
    readonly result: GitResult,
  ) {
    super(
      `git ${args.join(' ')} failed: ${(result.stderr || result.stdout).trim() || `exit ${result.code}`}`,
    );
  }
}

/** Runs `git <args>` in `cwd` with hooks and fsmonitor off; resolves whatever the exit code. */
export function gitRun(cwd: string, args: readonly string[], env?: NodeJS.ProcessEnv): Promise<GitResult> {
  return new Promise((resolve) => {
    execFile(
      'git',
      [...HARDENING, ...args],
      {
        cwd,
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', ...env },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({
          code,
          stdout: String(stdout),
          stderr: String(stderr || (error && !stderr ? error.message : '')),
        });
      },
    );
  });
}

/** Like gitRun, but a non-zero exit throws GitError; resolves with stdout, trailing newline removed. */
export async function git(cwd: string, args: readonly string[], env?: NodeJS.ProcessEnv): Promise<string> {
  const result = await gitRun(cwd, args, env);
  if (result.code !== 0) throw new GitError(args, result);
  return result.stdout.replace(/\n$/, '');
}

/** Environment for a commit cadre makes: the user's identity if git knows one, else a fallback. */
export async function commitEnv(cwd: string): Promise<NodeJS.ProcessEnv> {
  const name = await gitRun(cwd, ['config', 'user.name']);
  const email = await gitRun(cwd, ['config', 'user.email']);
  if (name.code === 0 && email.code === 0) return {};
  return {
    ...FALLBACK_IDENTITY,
    GIT_COMMITTER_NAME: FALLBACK_IDENTITY.GIT_AUTHOR_NAME,
    GIT_COMMITTER_EMAIL: FALLBACK_IDENTITY.GIT_AUTHOR_EMAIL,
  };
}

const repoLocks = new Map<string, Promise<unknown>>();

/**
 * Runs `fn` after every earlier call for the same repository (its common git dir) has settled, in this
 * process and in every other cadre process (a lock file in the common dir): cadre's own changes to a
 * shared store (adding and removing writers' worktrees and branches, carrying refs over, merging) never
 * race each other on git's lock files.
 */
export function withRepoLock<T>(commonDir: string, fn: () => Promise<T>): Promise<T> {
  const previous = repoLocks.get(commonDir) ?? Promise.resolve();
  const locked = async () => {
    const release = await lockRepo(commonDir);
    try {
      return await fn();
    } finally {
      release();
    }
  };
  const next = previous.then(locked, locked);
  const settled = next.catch(() => undefined);
  repoLocks.set(commonDir, settled);
  void settled.then(() => {
    if (repoLocks.get(commonDir) === settled) repoLocks.delete(commonDir);
  });
  return next;
}
