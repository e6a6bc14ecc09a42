import { randomBytes } from 'node:crypto';
import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** The lock file cadre keeps in a repository's common git dir while it changes the store itself. */
export const REPO_LOCK_FILE = 'cadre-git.lock';

/** How the lock is waited for; every field has a default (tests shorten them). */
export interface RepoLockOptions {
  /** Give up after this long, saying which process holds the lock. Default 120 s. */
  timeoutMs?: number;
  /** A lock older than this is stale whoever holds it (a hung process, a reused pid). Default 10 min. */
  staleMs?: number;
  /** Between two looks at a held lock. Default 25 ms. */
  pollMs?: number;
  clock?: () => number;
}

interface Holder {
  pid: number;
  host: string;
  at: number;
}

function readHolder(path: string): Holder | undefined {
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as Holder;
    return typeof holder.pid === 'number' ? holder : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the lock at `path` was left behind: its process (on this host) is gone, or it is older than
 * `staleMs`. An unreadable lock file (a holder still writing it) is stale only by age.
 */
function isStale(path: string, staleMs: number, now: number): boolean {
  const holder = readHolder(path);
  if (holder && holder.host === hostname() && !alive(holder.pid)) return true;
  try {
    return now - statSync(path).mtimeMs > staleMs;
  } catch {
    return false;
  }
}

/**
 * Removes a stale lock without removing a fresh one another process took meanwhile: the lock is moved
 * aside first (one mover wins), checked again, and put back when it turns out live.
 */
function breakStale(path: string, staleMs: number, now: number): void {
  const aside = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch {
    return;
  }
  if (!isStale(aside, staleMs, now)) {
    try {
      linkSync(aside, path);
    } catch {
      // Yet another process holds the lock now; the one moved aside had just been taken and is lost.
    }
  }
  rmSync(aside, { force: true });
}

/**
 * Takes the cross-process lock of the repository whose common git dir is `commonDir` (an O_EXCL lock file
 * holding the owner's pid and host), waiting while another cadre process holds it; a stale lock is broken.
 * Resolves with the release function.
 */
export async function lockRepo(commonDir: string, options: RepoLockOptions = {}): Promise<() => void> {
  const { timeoutMs = 120_000, staleMs = 600_000, pollMs = 25, clock = Date.now } = options;
  const path = join(commonDir, REPO_LOCK_FILE);
  const deadline = clock() + timeoutMs;
  for (;;) {
    try {
      const fd = openSync(path, 'wx');
      try {
        writeFileSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), at: clock() }));
      } finally {
        closeSync(fd);
      }
      let released = false;
      return () => {
        if (released) return;
        released = true;
        rmSync(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (isStale(path, staleMs, clock())) {
      breakStale(path, staleMs, clock());
      continue;
    }
    if (clock() > deadline) {
      const holder = readHolder(path);
      throw new Error(
        `another cadre process${holder ? ` (pid ${holder.pid} on ${holder.host})` : ''} has held ${path} for over ${Math.round(timeoutMs / 1000)} s; if none is running, remove that file`,
      );
    }
    // Another process's git work takes milliseconds: a short poll is the whole wait.
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
